"""List the public API of every ``torch.backends`` submodule of the installed torch.

Run as a plain script in the target interpreter (stdlib and torch only); prints
a JSON list of dotted names. Public means: not underscored, and defined by the
module itself rather than imported into it (``torch``, ``Optional``,
``contextlib`` are left out). Property modules (cudnn, mkldnn, ...) contribute
their class's properties; namespace objects (``cuda.matmul``, ``cudnn.conv``,
``cufft_plan_cache``) their properties, methods, and the names their
``__getattr__`` answers to.
"""
import ast
import importlib
import inspect
import json
import pkgutil
import sys
import textwrap
import warnings

ModuleType = type(sys)
_SKIP = {"TYPE_CHECKING", "annotations"}
_ROOT = ["torch.backends"]  # the package being scanned; tests point it at a fake tree


def _is_backends_object(value):
    return type(value).__module__.startswith(_ROOT[0]) and not isinstance(value, (type, ModuleType))


def _getattr_names(cls):
    """String constants that ``cls.__getattr__`` compares ``name`` against."""
    method = cls.__dict__.get("__getattr__")
    if method is None:
        return []
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(method)))
    except (OSError, TypeError, SyntaxError):
        return []
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) and node.left.id == "name":
            for comparator in node.comparators:
                if isinstance(comparator, ast.Constant) and isinstance(comparator.value, str):
                    names.append(comparator.value)
    return names


def _class_names(cls, stop=(object, ModuleType)):
    names = []
    for klass in cls.__mro__:
        if klass in stop or not klass.__module__.startswith(_ROOT[0]):
            continue
        names += [k for k in vars(klass) if not k.startswith("_")]
    return names + _getattr_names(cls)


def _defined_here(value, module_name):
    owner = getattr(value, "__module__", None)
    if inspect.isfunction(value) or inspect.isclass(value):
        return owner == module_name
    if isinstance(value, (bool, int, float, str, tuple, frozenset, set, list, dict)):
        return not _imported_constant(value, module_name)
    return False


def _imported_constant(value, module_name):
    """True when another module holds this very object under the same name (``REMAINDER``)."""
    home = sys.modules.get(module_name)
    for name, holder in list(sys.modules.items()):
        if holder is None or holder is home or name == module_name or name.startswith(_ROOT[0]):
            continue
        for attr in (n for n, v in vars(home).items() if v is value):
            if getattr(holder, attr, None) is value and not isinstance(value, (bool, int)):
                return True
    return False


def scan_namespace(path, obj, found, seen):
    if id(obj) in seen:
        return
    seen.add(id(obj))
    scan_attributes(path, obj, sorted(set(_class_names(type(obj)))), found, seen)


def scan_attributes(path, obj, names, found, seen):
    """Record ``path.name`` for each name; go into the values that are backends namespaces themselves."""
    for name in names:
        found.add(path + "." + name)
        try:
            value = getattr(obj, name)
        except Exception:
            continue
        if _is_backends_object(value):
            scan_namespace(path + "." + name, value, found, seen)


def scan_module(path, found, seen):
    module = sys.modules[path]
    real = getattr(module, "m", module) if type(module) is not ModuleType else module
    if type(module) is not ModuleType:
        scan_attributes(path, module, _class_names(type(module)), found, seen)
    explicit = getattr(real, "__all__", None)
    # submodules imported after a property module replaced itself land on the replacement
    names = set(vars(real)) | set(vars(module))
    for name in sorted(names):
        if name.startswith("_") or name in _SKIP or name == "m" and real is not module:
            continue
        value = getattr(module, name, None) if name in vars(module) else getattr(real, name)
        child = path + "." + name
        if isinstance(value, ModuleType):
            if getattr(value, "__name__", "") == child or (hasattr(value, "m") and child in sys.modules):
                found.add(child)
                scan_module(child, found, seen)
            continue
        if _is_backends_object(value):
            found.add(child)
            scan_namespace(child, value, found, seen)
        elif (explicit is not None and name in explicit) or _defined_here(value, real.__name__):
            found.add(child)


def scan(root):
    """Public dotted names under the package ``root``, its public submodules imported first."""
    _ROOT[0] = root
    package = importlib.import_module(root)
    depth = root.count(".") + 1
    for info in pkgutil.walk_packages(package.__path__, root + "."):
        if any(part.startswith("_") for part in info.name.split(".")[depth:]):
            continue
        try:
            importlib.import_module(info.name)
        except Exception:
            pass
    found = set()
    scan_module(root, found, set())
    return sorted(n for n in found if not any(p.startswith("_") for p in n.split(".")))


def main():
    warnings.simplefilter("ignore")
    import torch

    json.dump({"torch": torch.__version__, "names": scan("torch.backends")}, sys.stdout)


if __name__ == "__main__":
    main()
