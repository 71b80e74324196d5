"""The kinds of check, one table (``CHECK_KINDS``), and how a check is run and judged.

A check's result is ``(status, detail)``; ``judge`` adds where a ``fail`` happened: at the check's own
test (``assertion``) or on the way to it (``crash``), and only the first proves a claim false."""
import errno
import inspect
import io
import sys

from .limits import MEMORY_LIMIT, _message, _short

_MISSING = object()


_open = io.open  # a checker reads /proc after its check, which may have replaced builtins.open


# ---------------------------------------------------------------- resolution
def resolve(path):
    """The object a dotted PATH names, importing submodules where needed."""
    import importlib

    parts = path.split(".")
    obj = importlib.import_module(parts[0])
    for i in range(1, len(parts)):
        name = parts[i]
        value = getattr(obj, name, _MISSING)
        if value is _MISSING and isinstance(obj, type(sys)):
            module_name = ".".join(parts[: i + 1])
            try:
                importlib.import_module(module_name)
            except ModuleNotFoundError as err:
                if err.name != module_name:
                    raise
            else:
                value = getattr(obj, name, _MISSING)
                if value is _MISSING:
                    value = sys.modules.get(module_name, _MISSING)
        if value is _MISSING:
            raise AttributeError("'%s' has no attribute '%s'" % (".".join(parts[:i]), name))
        obj = value
    return obj


# what a `type` check's `is` names, most specific first: `_type_name` calls a value by the first that matches
TYPE_NAMES = ("bool", "int", "float", "str", "module", "class", "function", "callable")


def _type_matches(value, name):
    if name == "bool":
        return isinstance(value, bool)
    if name == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "float":
        return isinstance(value, float)
    if name == "str":
        return isinstance(value, str)
    if name == "function":  # what a user calls as one: not an object that is callable and also something else
        return inspect.isfunction(value) or (inspect.ismethod(value) and inspect.isfunction(value.__func__))
    if name == "callable":
        return callable(value) and not inspect.isclass(value)
    if name == "module":
        return isinstance(value, type(sys))
    if name == "class":
        return inspect.isclass(value)
    raise ValueError("unknown type name %r" % name)


def _type_name(value):
    for name in TYPE_NAMES:
        if _type_matches(value, name):
            return name
    return type(value).__name__


def _equal(actual, expected):
    """YAML values compare strictly: True is not 1; a non-YAML value compares by str(), a str subclass
    included (a ``(str, Enum)`` member equal to 'none' prints as ``Precision.NONE``, not as 'none')."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    if expected is None:
        return actual is None
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return actual == expected
    if isinstance(expected, str):
        return actual == expected if type(actual) is str else str(actual) == expected
    if isinstance(expected, list) and isinstance(actual, (list, tuple)):
        return len(actual) == len(expected) and all(_equal(a, e) for a, e in zip(actual, expected))
    return actual == expected


def _raise_if_out_of_memory(err):
    """A check that ran out of memory proves nothing: MemoryError, or a mapping refused (ENOMEM)
    under the address-space limit, becomes ``error``."""
    if isinstance(err, MemoryError) or (isinstance(err, OSError) and err.errno == errno.ENOMEM):
        raise MemoryError() from err


def _exception_matches(err, name):
    return any(cls.__name__ == name or "%s.%s" % (cls.__module__, cls.__name__) == name
               for cls in type(err).__mro__)


# The modules in ``sys.modules`` right after the worker's own ``import torch`` (its first import of
# anything torch): what a fresh interpreter that only ran ``import torch`` has loaded. Checks read it
# as ``modules_after_import_torch`` instead of starting such an interpreter (two seconds each); a
# rival's world may add to it, in its own checker. Empty, and not offered, outside a worker.
MODULES_AFTER_IMPORT_TORCH: set = set()


def _run_code(code):
    import torch

    scope = {"torch": torch, "__name__": "__check__"}
    if MODULES_AFTER_IMPORT_TORCH:
        scope["modules_after_import_torch"] = MODULES_AFTER_IMPORT_TORCH
    scope["wrappers_around"] = wrappers_around
    scope["succeeds"] = succeeds
    exec(compile(code, "<check>", "exec"), scope)


def succeeds(what, action, *args, **kwargs):
    """``action(*args, **kwargs)``'s result; where it raises, an AssertionError that says ``what`` was
    refused. For a step the claim says works (an assignment accepted, a getter answering): in a world
    where it raises instead, the check fails at its own assertion, not by crashing."""
    try:
        return action(*args, **kwargs)
    except Exception as err:
        raise AssertionError("%s raised %s: %s" % (what, type(err).__name__, err)) from None


# ------------------------------------------------------------------- checks
def run_check(check):
    """(status, detail) for one check; exceptions of the checked code are results, not crashes.

    A check that cannot be compiled, or that runs out of memory, says nothing about its claim:
    ``error``, never ``fail``.
    """
    return judge(check)[:2]


def judge(check):
    """``(status, detail, at)``: ``run_check``'s result and, for a ``fail``, where it failed.

    ``at`` is ``"assertion"`` where the check failed at its own test (a ``default`` that differs or
    whose read raises, an ``expr`` that is false, an ``assert`` in the check's code, a ``raises`` whose code raised
    nothing, a PATH that exists or not as claimed) and ``"crash"`` where something else went wrong
    on the way (a name that is gone, an exception the check did not ask for). Only the first proves
    the claim false: a control is caught at the check's assertion or not at all.
    """
    kind = CHECK_KINDS[check_kind(check)]
    if kind.target == "code":
        try:
            compile(check[kind.name], "<check>", kind.parse_mode)
        except (SyntaxError, ValueError) as err:
            return "error", "the check's code does not compile: %s" % _message(err), None
    try:
        status, detail = kind.run(check[kind.name], check)
    except MemoryError:
        return "error", "the check ran out of memory (limit %d MiB)" % (MEMORY_LIMIT >> 20), None
    except _Crash as crash:
        return "fail", crash.detail, "crash"
    except _Refused as refused:
        return "fail", str(refused), "assertion"
    return status, detail, ("assertion" if status == "fail" else None)


class _Crash(Exception):
    """A check that failed on the way to its test, not at it."""

    def __init__(self, detail):
        Exception.__init__(self, detail)
        self.detail = detail


def _raised_by_the_check(err):
    """Whether ``err`` is an AssertionError raised by the check's own code (not inside torch), or by
    ``succeeds``, the assertion a check makes of a step it says works."""
    if not isinstance(err, AssertionError):
        return False
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and (tb.tb_frame.f_code.co_filename == "<check>" or tb.tb_frame.f_code is succeeds.__code__)


def _run_exists(target, check):
    try:
        resolve(target)
    except (AttributeError, ImportError) as err:
        return "fail", "expected %s to exist: %s" % (target, err)
    return "pass", ""


def _run_absent(target, check):
    parent, _, name = target.rpartition(".")
    try:
        owner = resolve(parent)
    except (AttributeError, ImportError) as err:
        return "error", "cannot tell: the parent %s does not exist either (%s); a typo?" % (parent, err)
    try:
        resolve(target)
    except (AttributeError, ImportError):
        defined = _defined_without_running(owner, name)
        if defined is None:
            return "pass", ""
        return "fail", "expected %s to be absent, but %s defines it (%s); reading it raises here" % (
            target, _short(owner), _short(defined))
    return "fail", "expected %s to be absent, but it exists (%s)" % (target, _short(owner))


def _defined_without_running(owner, name):
    """What ``owner`` or its class defines as ``name``, found without running it (None if nothing): a
    property that raises AttributeError on this build (a hook only another build has) still exists."""
    try:
        return inspect.getattr_static(owner, name)
    except AttributeError:
        return None


def _resolved(target):
    """The object PATH names; that it is missing is a crash, not the check's own failure."""
    try:
        return resolve(target)
    except (AttributeError, ImportError) as err:
        raise _Crash("%s does not exist: %s" % (target, err))


class _Refused(Exception):
    """Reading a PATH that exists raised: the value the claim states cannot be read, which is the
    check's own failure (a ``default`` or ``type`` check is that one read)."""


def _read(target):
    """The value PATH names, for a check whose test is reading it: a missing name is a crash, but a
    read that raises (a property refusing, as on a build or in a state where it cannot answer) is
    the check failing at its own test."""
    try:
        return _resolved(target)
    except _Crash:
        raise
    except Exception as err:
        raise _Refused("reading %s raised %s: %s" % (target, type(err).__name__, _message(err))) from None


def _run_default(target, check):
    value = _read(target)
    if _equal(value, check["equals"]):
        return "pass", ""
    return "fail", "expected %s == %s, actual %s" % (target, _short(check["equals"]), _short(value))


def _run_type(target, check):
    value = _read(target)
    if _type_matches(value, check["is"]):
        return "pass", ""
    return "fail", "expected %s to be a %s, actual %s" % (target, check["is"], _type_name(value))


def _run_signature(target, check):
    value = _resolved(target)
    try:
        params = list(inspect.signature(value).parameters)
    except (TypeError, ValueError) as err:
        raise _Crash("%s has no inspectable signature: %s" % (target, err))
    if params != list(check["params"]):
        return "fail", "expected parameters %s, actual %s" % (check["params"], params)
    wrappers = wrappers_around(value)
    if wrappers:
        return "fail", "expected parameters %s, and inspect.signature shows them, but a call goes through %s first" % (
            check["params"], ", ".join(wrappers))
    return "pass", ""


def wrappers_around(fn):
    """The wrappers a call to ``fn`` passes through before it reaches what ``inspect.signature(fn)`` reports
    (``functools.wraps`` sets ``__wrapped__``, and ``inspect.signature`` follows it), each as
    ``name(its own parameters)``. Pass-throughs that cannot change a call are left out:
    ``contextlib.contextmanager``'s, ``functools.lru_cache``'s and ``deprecated``'s. A wrapper that takes ``*args, **kwargs``
    may still drop or change an argument, so it is listed, and so is a function whose ``__signature__``
    replaces what its code takes. Checks read it (``wrappers_around``) to judge
    the function a user calls, not only the signature it reports."""
    found = [_described(fn)] if _signature_set(fn) else []
    layer = fn.__init__ if isinstance(fn, type) else fn  # a class: the __init__ a call runs
    while getattr(layer, "__wrapped__", None) is not None and not _same_signature(layer):
        if not _passes_everything_on(layer):
            found.append(_described(layer))
        layer = layer.__wrapped__
    if layer is not fn and _signature_set(layer):
        found.append(_described(layer))
    return found


def _signature_set(obj):
    """Whether ``obj`` carries a ``__signature__`` of its own: what ``inspect.signature`` reports then is
    not read from its code (a function that takes more can say it takes less). For a callable object
    (neither a class nor a function) its class's ``__signature__`` counts too: a call runs the class's
    ``__call__``, whatever the signature says."""
    if "__signature__" in getattr(obj, "__dict__", {}):
        return True
    if isinstance(obj, type) or inspect.isroutine(obj) or not callable(obj):
        return False
    return any("__signature__" in vars(klass) for klass in type(obj).__mro__ if klass is not object)


def _same_signature(layer):
    """Whether the wrapper's own parameters are those ``inspect.signature`` reports for it."""
    try:
        return inspect.signature(layer, follow_wrapped=False) == inspect.signature(layer)
    except (TypeError, ValueError):
        return False


def _passes_everything_on(layer):
    """An ``lru_cache``, or a known pass-through that really calls what ``__wrapped__`` names (a
    ``functools.wraps`` on top of one would set ``__wrapped__`` to another function)."""
    import functools

    if isinstance(layer, functools._lru_cache_wrapper):
        return True
    if getattr(layer, "__code__", None) not in _pass_through_code():
        return False
    return any(_cell_value(cell) is layer.__wrapped__ for cell in layer.__closure__ or ())


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


_PASS_THROUGH_CODE: list = []


def _pass_through_code():
    """The code of wrappers that hand a call on unchanged: ``contextlib.contextmanager``'s, and the
    ``deprecated`` decorator's of ``typing_extensions`` and ``warnings`` (Python 3.13+), which warn first."""
    if not _PASS_THROUGH_CODE:
        import contextlib
        import warnings

        def nothing():
            yield

        _PASS_THROUGH_CODE.append(contextlib.contextmanager(nothing).__code__)
        decorators = [getattr(warnings, "deprecated", None)]
        try:
            import typing_extensions

            decorators.append(typing_extensions.deprecated)
        except ImportError:
            pass
        _PASS_THROUGH_CODE.extend(d("")(lambda: None).__code__ for d in decorators if d is not None)
    return _PASS_THROUGH_CODE


def _described(layer):
    name = getattr(layer, "__qualname__", None) or type(layer).__name__
    code = getattr(layer, "__code__", None)
    if not (isinstance(layer, type) or inspect.isroutine(layer)) and callable(layer):  # what a call runs
        name = type(layer).__qualname__ + ".__call__"
        code = getattr(type(layer).__call__, "__code__", None)
    if _signature_set(layer) and code is not None:  # its own parameters, from its code
        return "%s(%s) behind __signature__" % (name, ", ".join(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]))
    try:
        return "%s%s" % (name, inspect.signature(layer, follow_wrapped=False))
    except (TypeError, ValueError):
        return "%s(?)" % name


def _run_expr(target, check):
    import torch

    try:
        value = eval(compile(target, "<check>", "eval"), {"torch": torch})
    except Exception as err:
        _raise_if_out_of_memory(err)
        raise _Crash("the expression raised %s: %s" % (type(err).__name__, _message(err)))
    if value:
        return "pass", ""
    return "fail", "expected a truthy value, actual %s" % _short(value)


def _run_snippet(target, check):
    try:
        _run_code(target)
    except Exception as err:
        _raise_if_out_of_memory(err)
        detail = "the snippet raised %s: %s" % (type(err).__name__, _message(err))
        if _raised_by_the_check(err):
            return "fail", detail
        raise _Crash(detail)
    return "pass", ""


def _run_raises(target, check):
    try:
        _run_code(target)
    except Exception as err:
        _raise_if_out_of_memory(err)
        if _exception_matches(err, check["error"]):
            return "pass", ""
        detail = "expected %s, actual %s: %s" % (check["error"], type(err).__name__, _message(err))
        if _raised_by_the_check(err):
            return "fail", detail
        raise _Crash(detail)
    return "fail", "expected %s, but the code raised nothing" % check["error"]


class CheckKind:
    """Everything about one kind of check, in one place.

    ``name`` is its key in a fact's ``check``, and ``target`` says what that key holds: a dotted
    ``"path"`` or Python ``"code"`` (run in a checker of its own). ``companion`` is the second key
    the kind needs (or None) and ``holds`` what that key holds (``"value"``: any YAML value,
    ``"type-name"``: one of TYPE_NAMES, ``"names"``: a list of names, ``"exception-name"``: a class
    name); the content model's validation is built from these. ``run(target, check)`` returns
    ``(status, detail)``. ``rank`` orders a checker's checks (lower first: ``default`` reads a
    pristine state). ``read_as`` tells the controls how a PATH kind reads its PATH (the change
    they make to it); ``parse_mode`` is how code is compiled; ``final_test`` says where its own
    test is (``"expression"`` or ``"assert"``: a written control that only turns it around is
    refused). ``doc`` is its line in the README's table.
    """

    def __init__(self, name, target, run, doc, companion=None, holds=None, rank=1, read_as=None,
                 parse_mode="exec", final_test=None):
        self.name, self.target, self.run, self.doc = name, target, run, doc
        self.companion, self.holds, self.rank = companion, holds, rank
        self.read_as = read_as or name
        self.parse_mode, self.final_test = parse_mode, final_test


# The one table of check kinds: to add a kind, add its entry here (and its line to the README).
CHECK_KINDS = {kind.name: kind for kind in (
    CheckKind("exists", "path", _run_exists,
              doc=("PATH resolves. Resolution starts at the first name's module and takes each next name by "
                   '`getattr`, importing `a.b.c` as a submodule where the attribute is missing (so '
                   '`torch.backends.xeon.run_cpu` and `torch.backends.xnnpack` work, and property modules '
                   'such as `cudnn` are read through `sys.modules`).')),
    CheckKind("absent", "path", _run_absent,
              doc=('everything but the last name resolves and the last does not, nor does the parent or its class '
                   'define it (a property that raises AttributeError on this build still exists). If the parent '
                   'is missing too the result is `error` (a typo must not pass as "absent").')),
    CheckKind("default", "path", _run_default, companion="equals", holds="value", rank=0, read_as="value",
              doc=('the value read in a pristine interpreter (before any other check ran) equals VALUE. '
                   'Strict for booleans (`True` is not `1`) and `null`; a non-YAML value (an enum, a dtype, a '
                   '`str` subclass) compares by `str()`, what it prints; lists compare element-wise. A read that '
                   'raises (a property refusing) fails at the check\'s own test, as with `type`; a name that is '
                   'gone is a crash.')),
    CheckKind("type", "path", _run_type, companion="is", holds="type-name",
              doc=('T is `bool`, `int` (not bool), `float`, `str`, `function` (a Python function, or a method bound '
                   'to one: not a callable object), `callable` (not a class), `module` or `class`. A read that raises '
                   'fails at the check\'s own test.')),
    CheckKind("signature", "path", _run_signature, companion="params", holds="names",
              doc=('`inspect.signature(obj)` has exactly these parameter names in this order, and so does the function a '
                   'user calls: a call may go through no wrapper (`functools.wraps` makes `inspect.signature` show what '
                   'it wraps) other than a pass-through that cannot change it, `contextlib.contextmanager`\'s, '
                   '`lru_cache`\'s or `deprecated`\'s (`wrappers_around`).')),
    CheckKind("expr", "code", _run_expr, rank=2, parse_mode="eval", final_test="expression",
              doc=('the expression, evaluated with `torch` imported, is truthy (an expression that raises '
                   'crashes: a fail not at its own test).')),
    CheckKind("snippet", "code", _run_snippet, rank=2, final_test="assert",
              doc=('the code (with `torch` imported) runs without raising.')),
    CheckKind("raises", "code", _run_raises, companion="error", holds="exception-name", rank=2,
              doc=('the code raises an exception whose class or any base class is called `Name` (or '
                   '`module.Name`).')),
)}


CODE_KINDS = tuple(name for name, kind in CHECK_KINDS.items() if kind.target == "code")


def check_kind(check):
    """The kind of a check as the worker receives it (a dict holding one kind's key)."""
    return next(kind for kind in CHECK_KINDS if kind in check)


def subjects(check):
    """What a check reads from torch, most likely first (the controls change these): a PATH kind's
    PATH, read as its kind reads it, or the names its code reads (``mutants.code_subjects``)."""
    kind = CHECK_KINDS[check_kind(check)]
    if kind.target == "path":
        return [{"path": check[kind.name], "mode": kind.read_as}]
    return _mutants().code_subjects(check[kind.name], kind.parse_mode)


def _mutants():
    from . import mutants  # on first use: only the controls need it

    return mutants
