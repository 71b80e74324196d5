"""Controls for checks: change one thing a check reads from torch and see whether the check notices.

A check proves its claim only if it would fail were the claim false. ``code_subjects`` reads a
check's code and lists every torch name it reads (a flag, a default, a function it calls, an
attribute it tests with ``hasattr``); ``apply`` changes one of them in the running process
(the worker does this in a throwaway child): a value is pinned to another one (a flag flipped,
a number shifted, a string replaced, a tensor shifted), a function's result is changed the
same way, a function that raised returns instead, a setter or context manager does nothing,
a name is removed or added. A check that still passes under every change is ``missed``.

Names that only serve to observe (tensor factories, comparisons, seeding) are left alone:
changing ``torch.equal`` would make any check fail and so prove nothing.

Stdlib and torch only, like the worker that imports it.
"""
import ast
import contextlib
import enum
import sys
import types

INSTRUMENTS = frozenset("torch." + name for name in (
    "tensor as_tensor from_numpy zeros ones empty full arange linspace logspace eye rand randn randint "
    "randperm zeros_like ones_like empty_like full_like rand_like randn_like randint_like equal allclose "
    "isclose manual_seed seed Generator device Size no_grad enable_grad inference_mode set_grad_enabled "
    "is_tensor is_grad_enabled stack cat tensor_split chunk where abs max min sum mean nn Tensor testing "
    "profiler autograd jit compile dtype finfo iinfo float float16 float32 float64 half bfloat16 double "
    "int int8 int16 int32 int64 long uint8 bool complex64 complex128 qint8 quint8 qint32 float8_e4m3fn "
    "float8_e5m2 strided sparse_coo channels_last contiguous_format preserve_format").split())
INSTRUMENT_PREFIXES = ("torch.testing.", "torch.profiler.", "torch.autograd.profiler.", "torch.nn.Module",
                       "torch.nn.init.", "torch.utils.benchmark.")

# Where a name sits says how likely it is the check's subject: these are tried first.
_SUBJECT_PREFIXES = ("torch.backends.", "torch._C.", "torch.version.", "torch.__config__.", "torch.__version__",
                     "torch.cuda.", "torch.mps.", "torch.xpu.", "torch.ops.")
_QUERY_WORDS = ("get_", "is_", "are_", "set_", "use_", "_get", "_set", "_is", "preferred", "enable", "flags",
                "version", "show", "parallel_info", "engine", "supported")

MAX_TRIES = 12  # changes tried per check before it is called missed


# ----------------------------------------------------------------- reading
def code_subjects(code, parse_mode):
    """``[{"path": dotted name, "mode": how it is read}]`` for a check's code, most likely first.

    Modes: ``value`` (read), ``call`` (called), ``presence`` (``hasattr``/``getattr`` with a
    default), ``written`` (assigned, never read). A PATH check's one subject is its PATH, read as
    its kind says (``worker.subjects``).
    """
    try:
        tree = ast.parse(code, mode=parse_mode)
    except SyntaxError:
        return []
    reads = _Reads()
    reads.visit(tree)
    found = []
    for path, mode in reads.found:
        if path in INSTRUMENTS or path.startswith(INSTRUMENT_PREFIXES) or path == "torch":
            continue
        entry = {"path": path, "mode": mode}
        if mode == "value" and path in reads.written:
            entry["written"] = True
        if entry not in found:
            found.append(entry)
    read = {entry["path"] for entry in found}
    for path in sorted(reads.written - read):  # written, never read: writes that may be refused
        if not (path in INSTRUMENTS or path.startswith(INSTRUMENT_PREFIXES)):
            found.append({"path": path, "mode": "written"})
    return sorted(found, key=_likelihood)


def _likelihood(subject):
    path = subject["path"]
    last = path.rpartition(".")[2]
    return (0 if path.startswith(_SUBJECT_PREFIXES) else 1) + (0 if any(w in last for w in _QUERY_WORDS) else 1)


class _Reads(ast.NodeVisitor):
    """The torch names a piece of code reads, calls or tests for, in order of appearance."""

    def __init__(self):
        self.aliases = {"torch": "torch"}  # local name -> dotted torch path (checks run with torch imported)
        self.found = []
        self.written = set()

    def visit_Import(self, node):
        for alias in node.names:
            if alias.name == "torch" or alias.name.startswith("torch."):
                if alias.asname:
                    self.aliases[alias.asname] = alias.name
                else:
                    self.aliases["torch"] = "torch"

    def visit_ImportFrom(self, node):
        if node.level == 0 and node.module and (node.module == "torch" or node.module.startswith("torch.")):
            for alias in node.names:
                if alias.name != "*":
                    self.aliases[alias.asname or alias.name] = node.module + "." + alias.name

    def visit_Assign(self, node):
        self.visit(node.value)
        path = self._path(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name) and path and not isinstance(node.value, ast.Call):
                self.aliases[target.id] = path  # matmul = torch.backends.cuda.matmul
            else:
                self.visit(target)

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("hasattr", "getattr") and len(node.args) >= 2:
            owner, name = self._path(node.args[0]), node.args[1]
            if owner and isinstance(name, ast.Constant) and isinstance(name.value, str):
                if func.id == "hasattr" or len(node.args) == 3:
                    self.found.append((owner + "." + name.value, "presence"))
                else:
                    self.found.append((owner + "." + name.value, "value"))
                for arg in node.args[2:] + [k.value for k in node.keywords]:
                    self.visit(arg)
                return
        path = self._path(func)
        if path:
            self.found.append((path, "call"))
        else:
            self.visit(func)
        for arg in node.args:
            self.visit(arg)
        for keyword in node.keywords:
            self.visit(keyword.value)

    def visit_Attribute(self, node):
        path = self._path(node)
        if path is None:
            self.generic_visit(node)
        elif isinstance(node.ctx, ast.Load):
            self.found.append((path, "value"))
        else:
            self.written.add(path)

    def visit_Name(self, node):
        path = self.aliases.get(node.id)
        if path and path != "torch" and isinstance(node.ctx, ast.Load):
            self.found.append((path, "value"))

    def _path(self, node):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        return ".".join([self.aliases[node.id]] + parts[::-1])


# ---------------------------------------------------------------- changing
class Change:
    """One change applied in this process; ``described`` says what it did once it took effect."""

    def __init__(self):
        self.described = None
        self.seen = None  # for a call: what the function did when first called (value, none, context, raised)
        self.wrapped = False  # a call's change is made (and described) when the check calls the function

    @property
    def installed(self):
        return self.wrapped or self.described is not None


def apply(subject, variant, resolve):
    """Make change number ``variant`` (an int, or "no-effect"/"raise" for calls) to ``subject``.

    Returns a ``Change``; its ``described`` stays None where this variant does not apply
    (no such variant for that value, the name cannot be changed), known at once for a value
    and once the function is called for a call.
    """
    change = Change()
    path, mode = subject["path"], subject["mode"]
    parent, _, name = path.rpartition(".")
    try:
        owner = resolve(parent) if parent else None
    except Exception:
        return change
    present, value = _lookup(resolve, path)
    if mode == "presence":
        mode = "exists" if present else "absent"
    if mode == "exists":
        if variant == 0 and present and _remove(owner, name, path, resolve):
            change.described = "%s removed" % path
        return change
    if mode == "absent":
        if variant == 0 and not present and _add(owner, name, path, resolve):
            change.described = "%s added" % path
        return change
    if not present:
        return change
    if mode == "written":
        if variant == 0 and _pin(owner, name, path, value, resolve, ignore_only=True):
            change.described = "writes to %s are accepted and ignored" % path
        return change
    if mode == "type":
        replacement = 1 if isinstance(value, str) or not isinstance(value, (bool, int, float)) else "text"
        if variant == 0 and _pin(owner, name, path, replacement, resolve):
            change.described = "%s replaced by %r" % (path, replacement)
        return change
    if mode == "signature":
        if variant == 0 and _pin(owner, name, path, _other_signature, resolve):
            change.described = "%s replaced by a function taking (*args, **kwargs)" % path
        return change
    if mode == "call" and callable(value) and not isinstance(value, type):
        change.wrapped = _pin(owner, name, path, _wrapped(value, variant, change, path), resolve, pin_writes=False)
        return change
    choices = list(variants(value))
    if subject.get("written"):
        choices.append((value, "stays %r whatever is written to it" % (value,)))
    if isinstance(variant, int) and variant < len(choices):
        new, how = choices[variant]
        if _pin(owner, name, path, new, resolve):
            change.described = "%s %s" % (path, how)
    return change


def _lookup(resolve, path):
    try:
        return True, resolve(path)
    except Exception:
        return False, None


class _Stand:
    """What an added name holds: an object that is none of the things a check might test for."""

    def __repr__(self):
        return "<stand-in>"


def _other_signature(*args, **kwargs):
    return None


def variants(value):
    """``(new value, how it was changed)`` for each plausible other value of ``value`` (none where
    another value cannot be made, e.g. a named tuple that refuses other lengths)."""
    try:
        return _variants(value)
    except Exception:
        return []


def _variants(value):
    if isinstance(value, bool):
        return [(not value, "flipped to %r" % (not value)), (int(value), "made the int %d" % value)]
    if isinstance(value, enum.Enum):
        others = [m for m in type(value) if m is not value]
        return [(others[0], "set to %s" % others[0])] if others else []
    members = getattr(type(value), "__members__", None)  # a pybind11 enum
    if isinstance(members, dict) and value in members.values():
        others = [m for m in members.values() if m != value]
        return [(others[0], "set to %s" % others[0])] if others else []
    if isinstance(value, types.MappingProxyType):
        return [(dict(value), "made a writable dict"), (types.MappingProxyType({}), "emptied")]
    if isinstance(value, int):
        return [(value + 1, "shifted to %d" % (value + 1)), (0 if value else -1, "set to %d" % (0 if value else -1))]
    if isinstance(value, float):
        shifted = value + 1.0 if value == value and abs(value) != float("inf") else 0.0
        return [(shifted, "shifted to %r" % shifted), (0.0 if value else -1.0, "set to %r" % (0.0 if value else -1.0))]
    if isinstance(value, str):
        return [(str(value) + "-other", "replaced by %r" % (str(value) + "-other")), ("", "replaced by ''"),
                ("99.0.0", "replaced by '99.0.0'"), (None, "replaced by None")]
    if value is None:
        return [("12.1", "set to '12.1' (was None)"), (1, "set to 1 (was None)")]
    if isinstance(value, (tuple, list)):
        if hasattr(value, "_fields"):  # a named tuple: change one field instead of its length
            return _named_tuple_variants(value)
        shorter = value[:-1] if value else type(value)([0]) if isinstance(value, list) else (0,)
        out = [(shorter, "replaced by %r" % (shorter,))]
        if len(value) > 1 and list(value) != list(value)[::-1]:
            out.append((type(value)(reversed(value)), "reversed"))
        return out
    if isinstance(value, (dict, set, frozenset)):
        other = type(value)() if value else type(value)({"other": 1} if isinstance(value, dict) else {"other"})
        return [(other, "replaced by %r" % (other,))]
    torch = sys.modules.get("torch")
    if torch is None:
        return []
    if isinstance(value, torch.Tensor):
        return _tensor_variants(value, torch)
    if isinstance(value, torch.dtype):
        other = torch.float64 if value != torch.float64 else torch.float32
        return [(other, "set to %s" % other)]
    if isinstance(value, torch.device):
        other = torch.device("meta" if value.type != "meta" else "cpu")
        return [(other, "set to %s" % other)]
    if isinstance(value, type):
        return [(type(value.__name__, (), {}), "replaced by an unrelated class of the same name")]
    if isinstance(value, type(sys)):
        return [(type(sys)(value.__name__), "replaced by an empty module of the same name")]
    if callable(value):
        return [(None, "replaced by None")]
    return []


def _named_tuple_variants(value):
    out = []
    for field in value._fields:
        for new, how in variants(getattr(value, field))[:1]:
            try:
                out.append((value._replace(**{field: new}), "with its %s %s" % (field, how)))
            except Exception:
                pass
    return out


def _tensor_variants(value, torch):
    out = []
    try:
        shifted = ~value if value.dtype == torch.bool else value + 1
        out.append((shifted, "shifted (every element changed)"))
    except Exception:
        pass
    try:
        out.append((value.detach().reshape(-1)[:-1].clone() if value.numel() else torch.zeros(1),
                    "reshaped (one element fewer)"))
    except Exception:
        pass
    return out


def _wrapped(function, variant, change, path):
    """``function`` with its result changed (variant n), its effect removed ("no-effect") or made to raise."""
    def call(*args, **kwargs):
        if variant == "no-effect":
            change.described = "%s does nothing" % path
            return contextlib.nullcontext()
        if variant == "raise":
            change.described = "%s raises RuntimeError" % path
            raise RuntimeError("changed by a control")
        try:
            result = function(*args, **kwargs)
        except Exception as err:
            if change.seen is None:
                change.seen = "raised"
            if variant == 0:
                change.described = "%s returns None instead of raising %s" % (path, type(err).__name__)
                return None
            if variant == 1:
                other = ValueError if isinstance(err, RuntimeError) else RuntimeError
                change.described = "%s raises %s instead of %s" % (path, other.__name__, type(err).__name__)
                raise other("changed by a control") from None
            raise
        if change.seen is None:
            change.seen = ("none" if result is None else
                           "context" if hasattr(result, "__enter__") and hasattr(result, "__exit__") else "value")
        if change.seen == "value" and isinstance(variant, int):
            choices = variants(result)
            if variant < len(choices):
                new, how = choices[variant]
                change.described = "%s's result %s" % (path, how)
                return new
        return result

    call.__name__ = getattr(function, "__name__", "changed")
    call.__doc__ = getattr(function, "__doc__", None)
    return call


def _pin(owner, name, path, new, resolve, pin_writes=True, ignore_only=False):
    """Make ``owner.name`` read ``new`` from now on; where a class allows, writes to it are ignored too
    (``ignore_only``: only there).

    True when reading the path gives ``new`` afterwards.
    """
    if pin_writes and _pin_on_class(owner, name, new):
        if _reads(resolve, path, new):
            return True
    if ignore_only:
        return False
    try:
        setattr(owner, name, new)
    except Exception:
        return False
    return _reads(resolve, path, new)


def _reads(resolve, path, new):
    present, value = _lookup(resolve, path)
    if not present:
        return False
    if value is new:
        return True
    try:
        return type(value) is type(new) and bool(value == new)
    except Exception:
        return False


def _pin_on_class(owner, name, new):
    """Give ``owner`` a subclass of its class in which ``name`` always reads ``new`` and writes are ignored."""
    cls = type(owner)
    base_setattr = cls.__setattr__

    def ignore_or_set(self, key, value):
        if key != name:
            base_setattr(self, key, value)

    return _reclass(owner, {name: property(lambda self: new, lambda self, value: None),
                            "__setattr__": ignore_or_set})


def _reclass(owner, namespace):
    """Switch ``owner`` to a subclass of its class holding ``namespace``; False where its class allows none."""
    cls = type(owner)
    try:
        subclass = type(cls.__name__, (cls,), dict(namespace, __module__=cls.__module__))
        object.__setattr__(owner, "__class__", subclass)
    except TypeError:
        return False
    return True


def _add(owner, name, path, resolve):
    """Make ``path`` resolve to a stand-in; False where its owner refuses new names."""
    try:
        setattr(owner, name, _Stand())
    except Exception:
        if not _reclass(owner, {name: _Stand()}):
            return False
    return _lookup(resolve, path)[0]


def _remove(owner, name, path, resolve):
    """Make ``path`` stop resolving: hide it from attribute lookup (a module's ``__getattr__`` and a
    wrapper's delegation included) and block importing it where it is a module."""
    if path in sys.modules or isinstance(getattr(owner, name, None), type(sys)):
        sys.modules[path] = None  # an import of it now fails
    cls = type(owner)
    fallback = getattr(cls, "__getattr__", None)

    def hidden(self, key):
        if key == name:
            raise AttributeError("'%s' has no attribute '%s'" % (cls.__name__, name))
        return cls.__getattribute__(self, key)

    def hidden_fallback(self, key):
        if key == name or fallback is None:
            raise AttributeError("'%s' has no attribute '%s'" % (cls.__name__, key))
        return fallback(self, key)

    if not _reclass(owner, {"__getattribute__": hidden, "__getattr__": hidden_fallback}):
        try:
            delattr(owner, name)
        except Exception:
            return False
    return not _lookup(resolve, path)[0]
