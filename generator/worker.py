"""Fact-check worker: imports torch once, then runs checks in forked children.

Run as a plain script (``python worker.py``) so that any interpreter with torch
can run it, even one without torchdeck installed: stdlib and torch only.

Protocol: one JSON document on stdin ``{"checks": [{"check": {...},
"requires": [...]}, ...], "timeout": 10}``; JSON lines on the original stdout,
first ``{"hello": {...}}`` (torch, python, capabilities), then one
``{"index": i, "status": ..., "detail": ...}`` per check.

Isolation: the worker imports torch and runs no check itself. Every check that
runs code runs in a checker of its own, a fresh fork of the pristine worker that
exits after it; declarative checks (a PATH read) share a checker while the
watched state stays as it was. A checker reaches only its own channels; what it
leaves behind is ended (the worker is a subreaper); one that hangs past the
timeout is killed, one that dies is reported as ``error``. Checks that use the
compiler stack run in a sub-worker that imports it once (``_start_subworker``).
The kinds of check are one table, ``CHECK_KINDS``.
"""
import errno
import gc
import inspect
import io
import json
import re
import os
import select
import signal
import sys
import threading
import time
import traceback
import warnings

try:
    import fcntl
    import resource
except ImportError:  # not on Windows: no limits there
    resource = None

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


TYPE_NAMES = ("bool", "int", "float", "str", "callable", "module", "class")  # what a `type` check's `is` names


def _type_matches(value, name):
    if name == "bool":
        return isinstance(value, bool)
    if name == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "float":
        return isinstance(value, float)
    if name == "str":
        return isinstance(value, str)
    if name == "callable":
        return callable(value) and not inspect.isclass(value)
    if name == "module":
        return isinstance(value, type(sys))
    if name == "class":
        return inspect.isclass(value)
    raise ValueError("unknown type name %r" % name)


def _type_name(value):
    for name in ("bool", "int", "float", "str", "module", "class", "callable"):  # TYPE_NAMES, most specific first
        if _type_matches(value, name):
            return name
    return type(value).__name__


def _equal(actual, expected):
    """YAML values compare strictly: True is not 1; a non-YAML value compares by str()."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    if expected is None:
        return actual is None
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return actual == expected
    if isinstance(expected, str):
        return actual == expected if isinstance(actual, str) else str(actual) == expected
    if isinstance(expected, list) and isinstance(actual, (list, tuple)):
        return len(actual) == len(expected) and all(_equal(a, e) for a, e in zip(actual, expected))
    return actual == expected


def _short(value):
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


MESSAGE_LIMIT = 2000  # characters of an exception's message kept in a result


def _message(err):
    """An exception's message, cut to MESSAGE_LIMIT characters (a check's message can be any size)."""
    try:
        text = str(err)
    except Exception:
        text = "<%s whose message cannot be shown>" % type(err).__name__
    return _cut(text, MESSAGE_LIMIT)


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
MODULES_AFTER_IMPORT_TORCH = set()


def _run_code(code):
    import torch

    scope = {"torch": torch, "__name__": "__check__"}
    if MODULES_AFTER_IMPORT_TORCH:
        scope["modules_after_import_torch"] = MODULES_AFTER_IMPORT_TORCH
    exec(compile(code, "<check>", "exec"), scope)


# ------------------------------------------------------------------- checks
def run_check(check):
    """(status, detail) for one check; exceptions of the checked code are results, not crashes.

    A check that cannot be compiled, or that runs out of memory, says nothing about its claim:
    ``error``, never ``fail``.
    """
    return judge(check)[:2]


def judge(check):
    """``(status, detail, at)``: ``run_check``'s result and, for a ``fail``, where it failed.

    ``at`` is ``"assertion"`` where the check failed at its own test (a ``default`` that differs,
    an ``expr`` that is false, an ``assert`` in the check's code, a ``raises`` whose code raised
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
    return status, detail, ("assertion" if status == "fail" else None)


class _Crash(Exception):
    """A check that failed on the way to its test, not at it."""

    def __init__(self, detail):
        Exception.__init__(self, detail)
        self.detail = detail


def _raised_by_the_check(err):
    """Whether ``err`` is an AssertionError raised by the check's own code (not inside torch)."""
    if not isinstance(err, AssertionError):
        return False
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename == "<check>"


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
        return "pass", ""
    return "fail", "expected %s to be absent, but it exists (%s)" % (target, _short(owner))


def _resolved(target):
    """The object PATH names; that it is missing is a crash, not the check's own failure."""
    try:
        return resolve(target)
    except (AttributeError, ImportError) as err:
        raise _Crash("%s does not exist: %s" % (target, err))


def _run_default(target, check):
    value = _resolved(target)
    if _equal(value, check["equals"]):
        return "pass", ""
    return "fail", "expected %s == %s, actual %s" % (target, _short(check["equals"]), _short(value))


def _run_type(target, check):
    value = _resolved(target)
    if _type_matches(value, check["is"]):
        return "pass", ""
    return "fail", "expected %s to be a %s, actual %s" % (target, check["is"], _type_name(value))


def _run_signature(target, check):
    value = _resolved(target)
    try:
        params = list(inspect.signature(value).parameters)
    except (TypeError, ValueError) as err:
        raise _Crash("%s has no inspectable signature: %s" % (target, err))
    if params == list(check["params"]):
        return "pass", ""
    return "fail", "expected parameters %s, actual %s" % (check["params"], params)


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
              doc=('everything but the last name resolves and the last does not. If the parent is missing '
                   'too the result is `error` (a typo must not pass as "absent").')),
    CheckKind("default", "path", _run_default, companion="equals", holds="value", rank=0, read_as="value",
              doc=('the value read in a pristine interpreter (before any other check ran) equals VALUE. '
                   'Strict for booleans (`True` is not `1`) and `null`; a non-YAML value (an enum, a dtype) '
                   'compares by `str()`; lists compare element-wise.')),
    CheckKind("type", "path", _run_type, companion="is", holds="type-name",
              doc=('T is `bool`, `int` (not bool), `float`, `str`, `callable` (not a class), `module` or '
                   '`class`.')),
    CheckKind("signature", "path", _run_signature, companion="params", holds="names",
              doc=('`inspect.signature(obj)` has exactly these parameter names in this order.')),
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


# ------------------------------------------------------------- capabilities
# The one list of capabilities a fact may name in ``requires`` or ``unless``: name -> how it is
# detected (what the outputs call it: ``wording.CAPABILITY_NAMES``).
# "X-built" says what the torch build was compiled with; the bare name says X is usable here.
CAPABILITIES = {
    "cuda": "torch.cuda.is_available()",
    "cuda-built": "torch.backends.cuda.is_built()",
    "rocm-built": "torch.version.hip is not None",
    "cudnn": "torch.cuda.is_available() and torch.backends.cudnn.is_available()",
    "cudnn-built": "torch._C._has_cudnn",
    "mps": "torch.backends.mps.is_available()",
    "mps-built": "torch.backends.mps.is_built()",
    "mkl": "torch.backends.mkl.is_available()",
    "mkldnn": "torch.backends.mkldnn.is_available()",
    "openmp": "torch.backends.openmp.is_available()",
    "opt_einsum": "torch.backends.opt_einsum.is_available() and torch.backends.opt_einsum.enabled",
    "cusparselt": "torch.backends.cusparselt.is_available()",
    "kleidiai": "torch.backends.kleidiai.is_available()",
    "nnpack": "torch.backends.nnpack.is_available()",
    "xnnpack": "torch.backends.xnnpack.enabled",
    "triton": "__import__('importlib.util').util.find_spec('triton') is not None",
}


def detect_capabilities():
    """Every capability's value here; a detector that raises counts as absent."""
    import torch

    for name in ("cuda", "cudnn", "mps", "mkl", "mkldnn", "openmp", "opt_einsum", "cusparselt",
                 "kleidiai", "nnpack", "xnnpack"):
        try:
            resolve("torch.backends." + name)  # property modules such as cudnn load on first use
        except Exception:
            pass
    found = {}
    for name, expression in CAPABILITIES.items():
        try:
            found[name] = bool(eval(expression, {"torch": torch}))
        except Exception:
            found[name] = False
    return found


def describe_build():
    """What this torch was built with and which device it sees: the provenance of a run."""
    import platform
    import torch

    def attempt(fn):
        try:
            return fn()
        except Exception:
            return None

    device = attempt(lambda: torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)
    if device is None and attempt(lambda: torch.backends.mps.is_available()):
        device = "Apple MPS"
    found = {"cuda": torch.version.cuda, "hip": getattr(torch.version, "hip", None),
             "cudnn": attempt(lambda: torch.backends.cudnn.version()) if torch.version.cuda else None,
             "device": device, "machine": platform.machine(), "system": platform.system()}
    driver = _nvidia_driver()
    if driver:  # only where an NVIDIA driver is loaded: runs without one record what they always did
        found["driver"] = driver
    return found


def _nvidia_driver():
    """The loaded NVIDIA kernel driver's version (Linux), read without starting CUDA; None elsewhere."""
    try:
        with open("/proc/driver/nvidia/version") as version:
            match = re.search(r"Kernel Module\s+(?:for \S+\s+)?([0-9][0-9.]*)", version.readline())
    except OSError:
        return None
    return match.group(1) if match else None


def skip_reason(item, capabilities):
    """Why a check is not run here, or None: a capability it requires is missing, or one it excludes is present."""
    missing = [c for c in item.get("requires", []) if not capabilities.get(c)]
    if missing:
        return "needs %s (not available here)" % ", ".join(missing)
    present = [c for c in item.get("unless", []) if capabilities.get(c)]
    if present:
        return "holds only without %s (this torch has it)" % ", ".join(present)
    return None


# ------------------------------------------------------------------- state
FLAGS = (
    "cudnn.enabled", "cudnn.benchmark", "cudnn.benchmark_limit", "cudnn.deterministic",
    "cudnn.allow_tf32", "cudnn.fp32_precision", "cudnn.conv.fp32_precision", "cudnn.rnn.fp32_precision",
    "cuda.matmul.allow_tf32", "cuda.matmul.allow_fp16_reduced_precision_reduction",
    "cuda.matmul.allow_bf16_reduced_precision_reduction", "cuda.matmul.allow_fp16_accumulation",
    "cuda.matmul.fp32_precision", "mkldnn.enabled", "mkldnn.deterministic", "mkldnn.allow_tf32",
    "mkldnn.fp32_precision", "mkldnn.matmul.fp32_precision", "mkldnn.conv.fp32_precision",
    "mkldnn.rnn.fp32_precision", "fp32_precision", "opt_einsum.enabled", "opt_einsum.strategy",
    "quantized.engine", "miopen.immediate", "xnnpack.enabled", "cudnn.depthwise_kernel",
)


def _global_state():
    """(name, read, restore) for process-wide settings outside torch.backends' flags."""
    import torch

    backends = resolve("torch.backends")
    cuda = resolve("torch.backends.cuda")
    mha = resolve("torch.backends.mha")
    frozen_flag = backends.disable_global_flags.__globals__
    state = [
        # first: restoring flags below needs them unfrozen
        ("flags_frozen", backends.flags_frozen,
         lambda old: frozen_flag.__setitem__("__allow_nonbracketed_mutation_flag", not old)),
        ("nnpack", torch._C._get_nnpack_enabled, torch._C._set_nnpack_enabled),
        ("num_threads", torch.get_num_threads, torch.set_num_threads),
        ("interop_threads", torch.get_num_interop_threads, torch.set_num_interop_threads),
        ("deterministic", lambda: (torch.are_deterministic_algorithms_enabled(),
                                   torch.is_deterministic_algorithms_warn_only_enabled()),
         # the C setter: the public function would import torch._inductor (seconds) to restore
         lambda old: torch._C._set_deterministic_algorithms(old[0], warn_only=old[1])),
        ("inductor_deterministic", _inductor_deterministic, _set_inductor_deterministic),
        ("matmul_precision", torch.get_float32_matmul_precision, None),
        ("default_dtype", torch.get_default_dtype, torch.set_default_dtype),
        ("default_device", lambda: str(torch.get_default_device()), None),
        ("rng", lambda: _SameTensor(torch.random.get_rng_state()), lambda old: torch.random.set_rng_state(old.tensor)),
        ("grad", torch.is_grad_enabled, torch.set_grad_enabled),
        ("linalg", cuda.preferred_linalg_library, cuda.preferred_linalg_library),
        ("blas", cuda.preferred_blas_library, cuda.preferred_blas_library),
        ("mha_fastpath", mha.get_fastpath_enabled, mha.set_fastpath_enabled),
        ("math_sdp_reduction", cuda.fp16_bf16_reduction_math_sdp_allowed, cuda.allow_fp16_bf16_reduction_math_sdp),
        ("sdp_priority", torch._C._get_sdp_priority_order, torch._C._set_sdp_priority_order),
        ("rocm_fa", cuda.preferred_rocm_fa_library, cuda.preferred_rocm_fa_library),
    ]
    for name in ("flash", "mem_efficient", "math", "cudnn"):
        state.append(("sdp." + name, getattr(cuda, name + "_sdp_enabled"), getattr(cuda, "enable_%s_sdp" % name)))
    return state


class _SameTensor:
    """A tensor that compares by value (``==`` of two tensors is a tensor), for ``State``."""

    __slots__ = ("tensor",)

    def __init__(self, tensor):
        self.tensor = tensor

    def __eq__(self, other):
        import torch

        return isinstance(other, _SameTensor) and torch.equal(self.tensor, other.tensor)


def _inductor_deterministic():
    config = sys.modules.get("torch._inductor.config")
    return None if config is None else config.deterministic


def _set_inductor_deterministic(value):
    config = sys.modules.get("torch._inductor.config")
    if config is not None and value is not None:
        config.deterministic = value


def _flag_state():
    state = []
    for flag in FLAGS:
        owner_path, _, attr = ("torch.backends." + flag).rpartition(".")
        try:
            owner = resolve(owner_path)
            getattr(owner, attr)
        except Exception:
            continue  # not in this torch: nothing to watch
        write = None if _PRECISION.search(flag) else (lambda v, o=owner, a=attr: setattr(o, a, v))
        state.append((flag, (lambda o=owner, a=attr: getattr(o, a)), write))
    return state


# Precision settings inherit from each other ("none" defers to the level above), so writing
# back the value read would turn an inherited setting into an explicit one: never restored,
# a change to one of them ends the child instead.
_PRECISION = re.compile(r"fp32_precision|allow_tf32")


def _namespace_state():
    """Whether torch's namespaces were patched (``torch.zeros = ...``, a backend's ``is_available``,
    a method of ``torch.Tensor``). A patch cannot be undone faithfully (the patched object may have
    been changed too), so it ends the child.

    Module dicts are watched through CPython's dict version tag, which changes with every write and
    is read without touching the values (reading every value would copy the pages they live on into
    each forked child). Only a dict whose tag moved is compared with its baseline, taken in the
    parent before forking: a rebound or deleted name is a patch, a submodule an import bound is not.
    Where the tag cannot be read, every dict is compared each time.
    """
    import torch

    baseline = _namespace_baseline()
    tensor = vars(torch.Tensor)
    names = tuple(tensor)
    return [("namespaces", lambda: [_unchanged(entry) for entry in baseline], None),
            ("tensor_methods", lambda: (len(tensor), tuple(map(id, map(tensor.get, names)))), None)]


_BASELINE = []


def _namespace_baseline():
    """``[dict, version reader, version, {name: id}]`` for each watched module, once per process tree."""
    if _BASELINE:
        return _BASELINE
    import torch

    modules = [torch, torch._C, torch.nn, torch.nn.functional, torch.cuda, torch.random]
    modules += [sys.modules[n] for n in sorted(sys.modules) if n.startswith("torch.backends")
                and isinstance(sys.modules[n], type(sys))]
    version = _dict_version_reader()
    for module in modules:
        space = vars(module)
        _BASELINE.append([space, version, version(space) if version else None,
                          dict(zip(space, map(id, space.values())))])
    return _BASELINE


def _unchanged(entry):
    """Whether a watched module's names are still bound as in the baseline (new submodules aside).

    A dict found unchanged after an import moved its version gets that version as its baseline
    (in this child): the next check reads the tag again instead of comparing every name.
    """
    space, version, base_version, base_ids = entry
    if version is not None and version(space) == base_version:
        return True
    current = dict(zip(space.keys(), map(id, space.values())))  # torch writes some module globals often
    if current != base_ids:
        if any(current.get(name) != ident for name, ident in base_ids.items()):
            return False
        added = current.keys() - base_ids.keys()
        if not all(isinstance(space[name], type(sys)) for name in added):
            return False
        base_ids.update((name, current[name]) for name in added)
    if version is not None:
        entry[2] = version(space)
    return True


def _dict_version_reader():
    """A function giving a dict's version tag (PEP 509), or None where this interpreter has none to read."""
    import platform

    if platform.python_implementation() != "CPython" or not (3, 8) <= sys.version_info[:2] <= (3, 13):
        return None
    import ctypes

    offset = 2 * ctypes.sizeof(ctypes.c_void_p) + ctypes.sizeof(ctypes.c_ssize_t)  # after the header and ma_used

    def version(space):
        return ctypes.c_uint64.from_address(id(space) + offset).value

    probe = {"a": 1}
    seen = [version(probe)]
    probe["a"] = 2
    seen.append(version(probe))
    probe["b"] = 3
    seen.append(version(probe))
    del probe["b"]
    seen.append(version(probe))
    return version if len(set(seen)) == 4 and version(probe) == seen[-1] else None


class State:
    """The global state a check could change: read cheaply before and after each check, restored if changed."""

    def __init__(self):
        self.entries = []
        for entry in _global_state() + _flag_state() + _namespace_state():
            try:
                entry[1]()
            except Exception:
                continue
            self.entries.append(entry)

    def read(self):
        values = []
        for _, read, _ in self.entries:
            try:
                values.append(read())
            except Exception as err:
                values.append("!" + type(err).__name__)
        return values

    def restore(self, before):
        """Put back what changed; True when the state is now exactly ``before``.

        An entry without a writer cannot be put back faithfully: its change returns False.
        """
        for _ in range(2):  # a second pass settles flags that alias each other
            now = self.read()
            if now == before:
                return True
            for (_, _, write), old, new in zip(self.entries, before, now):
                if old != new:
                    if write is None:
                        return False
                    try:
                        write(old)
                    except Exception:
                        pass
        return self.read() == before


# ------------------------------------------------------------------ children
# Isolation does not rest on listing what a check may change: every check that runs code gets a
# checker of its own, forked from the worker (which runs no check, so it stays pristine), and the
# checker exits after that one check; whatever the check changed (process, interpreter or torch
# state, threads, signal handlers, a pending alarm, descriptors, its output budget) dies with it.
# Declarative checks (default, exists, absent, type, signature) run none of the content's code:
# they share a checker, which leaves as soon as the watched state (``State``) differs.

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36
_LIBC = []


def _libc():
    """The C library (Linux), loaded once in the worker; None elsewhere."""
    if not _LIBC:
        _LIBC.append(None)
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                _LIBC[0] = ctypes.CDLL(None, use_errno=True)
            except Exception:
                pass
    return _LIBC[0]


def _prctl(option, value):
    """``prctl(option, value)`` (Linux); False where it cannot be made."""
    libc = _libc()
    try:
        return libc is not None and libc.prctl(option, value, 0, 0, 0) == 0
    except Exception:
        return False


def die_with_parent(how=signal.SIGKILL):
    """Have the kernel send ``how`` to this process when its parent dies (Linux), so that no
    checker outlives a worker, and no worker outlives torchdeck, whatever killed them. The
    worker asks for SIGTERM: its handler ends every process below it on the way out."""
    _prctl(PR_SET_PDEATHSIG, how)


# Limits on one checker: memory beyond what it starts with (data and address space: a shared
# mapping counts too), output it may write, and CPU seconds per check (wall seconds times
# cores, so threads are not cut short). Address space also grows by what threads reserve
# without using (a stack, a malloc arena): THREAD_RESERVE per core is allowed for that.
MEMORY_LIMIT = 4 << 30
THREAD_RESERVE = 72 << 20
OUTPUT_LIMIT = 64 << 20
# Facts that require these start CUDA, which maps large virtual areas: no memory limit for them.
UNLIMITED_MEMORY = ("cuda", "cudnn")
DETAIL_LIMIT = 4000  # characters of a result's detail
RESULT_LIMIT = 1 << 20  # bytes a checker may send on its result channel
SPARES_PER_SLOT = 4  # checkers forked ahead, in one burst, while others run


def _needs_own_checker(item):
    """Whether a check runs in a checker of its own: it runs code (or a changed world's code), or it
    starts CUDA (no memory limit)."""
    return (check_kind(item["check"]) in CODE_KINDS or "mutate" in item or "world" in item
            or any(need in UNLIMITED_MEMORY for need in item.get("requires", ())))


def _seal(command_fd, result_fd, output_fd):
    """Leave a new checker only what it needs: /dev/null as stdin, its output file as stdout and
    stderr, its command and result pipes as 3 and 4 (not passed on to programs it runs). Every
    other descriptor the worker holds (its protocol pipe, other checkers' pipes) is closed."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    keep = (devnull, output_fd, command_fd, result_fd)
    floor = max(max(keep) + 1, 5)
    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD, floor) for fd in keep]  # above every target below
    for target, fd in zip((0, 1, 2, 3, 4), (moved[0], moved[1], moved[1], moved[2], moved[3])):
        os.dup2(fd, target, inheritable=target < 3)
    for fd in _open_descriptors():
        if fd > 4:
            try:
                os.close(fd)
            except OSError:
                pass


def _open_descriptors():
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            return [int(name) for name in os.listdir(folder)]
        except (OSError, ValueError):
            continue
    try:
        top = min(os.sysconf("SC_OPEN_MAX"), 65536)
    except (ValueError, OSError):
        top = 4096
    return range(top)


def child_main(checks, timeout):
    """Run the checks the parent names on fd 3 (one position a line), answering each on fd 4.

    A checker starts as a copy of the worker, which runs no check. One check that runs code is all
    it runs; declarative checks may follow each other while the watched state stays pristine.
    Processes a check leaves behind are ended, wherever they moved: the checker is their subreaper.
    """
    die_with_parent()
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    me = os.getpid()
    forked = []
    os.register_at_fork(after_in_parent=lambda: forked.append(True))
    state, before = _PRISTINE or _pristine_state()
    pending = b""
    ran = 0
    code_ran = 0  # checks that ran code here: a checker where one ran is no longer pristine
    while True:
        line, pending = _read_line(3, pending)
        if line is None:
            break
        item = checks[int(line)]
        if ran == 0:
            _limit_resources(item)
        else:  # each check has the whole output budget
            try:
                os.ftruncate(1, 0)
                os.lseek(1, 0, os.SEEK_SET)
            except OSError:
                pass
        ran += 1
        _limit_cpu(timeout)
        change = _make_change(item.get("mutate"))
        at = None
        try:
            if change is not None and not change.installed:
                status, detail = "n/a", ""
            else:
                broken = _build_world(item["world"]) if "world" in item else None
                if broken is not None:
                    status, detail = "error", "the rival's world could not be built: %s" % broken
                else:
                    status, detail, at = judge(item["check"])
        except BaseException as err:  # SystemExit, KeyboardInterrupt from checked code
            status, detail = "error", "the check escaped: %s: %s" % (type(err).__name__, _message(err))
        if os.getpid() != me:  # the copy a forking check made returns here too: it must not report
            os._exit(0)
        _reap_exited()
        leftover = _end_strays()
        flooded = _output_size() >= OUTPUT_LIMIT  # Python ignores SIGXFSZ: its writes fail instead
        if flooded:
            status, detail = "error", "the check wrote more than %d MiB of output" % (OUTPUT_LIMIT >> 20)
        elif forked:
            status, detail = "error", "the check forked its interpreter; checks must not start processes"
        elif leftover:
            status, detail = "error", "the check left a process running (pid %d); it was ended" % leftover
        own = _needs_own_checker(item)
        pristine = code_ran == 0
        code_ran += own
        dirty = own or bool(forked or leftover or flooded) or not state.restore(before)
        result = {"status": status, "detail": _cut(detail), "at": at, "dirty": dirty, "pristine": pristine}
        if change is not None:  # a changed world is never handed to the next check
            result.update(change=change.described, seen=change.seen)
        os.write(4, (json.dumps(result) + "\n").encode())
        if dirty:
            break
    os._exit(0)


def _read_line(fd, pending):
    """``(line, rest)`` read from ``fd``; ``(None, b"")`` at its end."""
    while b"\n" not in pending:
        chunk = os.read(fd, 4096)
        if not chunk:
            return None, b""
        pending += chunk
    line, _, rest = pending.partition(b"\n")
    return line, rest


def _cut(text, limit=DETAIL_LIMIT):
    """``text`` in at most ``limit`` characters."""
    text = text if isinstance(text, str) else str(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _build_world(code):
    """Run a rival's ``world`` (code that makes the rival belief true: a patch of torch, another
    starting state) before its check; None, or why it could not be built."""
    try:
        _run_code(code)
    except BaseException as err:
        return "%s: %s" % (type(err).__name__, _message(err))
    return None


def _mutants():
    try:
        from . import mutants
    except ImportError:  # run as a script: its folder is on the path
        import mutants
    return mutants


def _make_change(mutate):
    """The change a control run makes before its check (None for a plain check)."""
    if mutate is None:
        return None
    mutants = _mutants()
    try:
        return mutants.apply(mutate["subject"], mutate["variant"], resolve)
    except Exception:  # the change could not be made: it does not apply (the child exits afterwards)
        return mutants.Change()


def _output_size():
    try:
        return os.fstat(1).st_size
    except OSError:
        return 0


_PRISTINE = None  # (State, its reading) taken in the parent before forking: every child starts from it


def _pristine_state():
    """The global state of a process no check has run in, and what it reads; taken once, in the parent,
    so that each forked child need not (reading it does not initialise CUDA)."""
    global _PRISTINE
    state = State()
    _PRISTINE = (state, state.read())
    return _PRISTINE


# ------------------------------------------------------------ processes
def _children():
    """Pids of this process's children, zombies included (Linux); None where they cannot be listed."""
    me = os.getpid()
    try:
        tasks = os.listdir("/proc/%d/task" % me)
    except OSError:
        return None
    found = []
    for task in tasks:
        try:
            with _open("/proc/%d/task/%s/children" % (me, task)) as listing:
                found += [int(pid) for pid in listing.read().split()]
        except FileNotFoundError:
            if task == str(me):  # a kernel without the children file: read every process's parent
                return _children_by_scan(me)
        except (OSError, ValueError):
            pass
    return found


def _children_by_scan(me):
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with _open("/proc/%s/stat" % name) as stat:
                    if int(stat.read().rpartition(")")[2].split()[1]) == me:
                        found.append(int(name))
            except (OSError, ValueError, IndexError):
                pass
    return found


def _end_strays(known=()):
    """End every child of this process not in ``known``: SIGKILL, then reap. This process is their
    subreaper, so what they leave behind (whatever session or group it moved to) becomes its child in
    turn and is ended too. The first pid found, else 0 (-1: some remain but cannot be listed)."""
    first = 0
    for _ in range(1000):
        pids = _children()
        if pids is None:  # no /proc: only tell whether any child is left (never reaping a known one)
            if known:
                return 0
            try:
                return -1 if os.waitpid(-1, os.WNOHANG)[0] == 0 else 0
            except ChildProcessError:
                return 0
        strays = [pid for pid in pids if pid not in known]
        if not strays:
            return first
        first = first or strays[0]
        for pid in strays:  # not yet reaped, so none of these pids can have been reused
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in strays:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
    return first


def _reap_exited():
    """Reap this checker's children that have finished (a check may leave them unwaited)."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                return
        except ChildProcessError:
            return


def _limit_resources(item):
    if resource is None:
        return
    limits = [(getattr(resource, "RLIMIT_FSIZE", None), OUTPUT_LIMIT)]
    if not any(need in UNLIMITED_MEMORY for need in item.get("requires", ())):
        used = _MEMORY_BASE or _memory_in_use()
        limits += [(getattr(resource, "RLIMIT_DATA", None), MEMORY_LIMIT + used.get("VmData", 0)),
                   (getattr(resource, "RLIMIT_AS", None),
                    MEMORY_LIMIT + used.get("VmSize", 0) + THREAD_RESERVE * (os.cpu_count() or 1))]
    for limit, extra in limits:
        if limit is None:
            continue
        try:
            hard = resource.getrlimit(limit)[1]
            resource.setrlimit(limit, (extra if hard == resource.RLIM_INFINITY else min(extra, hard), hard))
        except (ValueError, OSError):
            pass


_MEMORY_BASE = {}  # what the worker uses before forking: read once there, not in every checker


def _memory_in_use():
    """``{"VmData": bytes, "VmSize": bytes}`` of this process (Linux); empty elsewhere."""
    found = {}
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(("VmData:", "VmSize:")):
                    found[line.split(":")[0]] = int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return found


def _limit_cpu(timeout):
    """Let the next check use at most ``timeout`` seconds of CPU per core, then SIGXCPU ends the child."""
    if resource is None:
        return
    used = resource.getrusage(resource.RUSAGE_SELF)
    allowed = int(used.ru_utime + used.ru_stime + timeout * (os.cpu_count() or 1)) + 2
    try:
        hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        resource.setrlimit(resource.RLIMIT_CPU, (allowed if hard == resource.RLIM_INFINITY else min(allowed, hard),
                                                  hard))
    except (ValueError, OSError):
        pass


def _death_reason(status, output=""):
    tail = (": " + " ".join(output.split())[-300:]) if output.strip() else ""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number == getattr(signal, "SIGXCPU", None):
            return "the check used more CPU time than its timeout allows (SIGXCPU)"
        if number == getattr(signal, "SIGXFSZ", None):
            return "the check wrote more than %d MiB of output (SIGXFSZ)" % (OUTPUT_LIMIT >> 20)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = "signal %d" % number
        return "the check killed its interpreter (%s)%s" % (name, tail)
    return "the check ended its interpreter (exit code %d)%s" % (os.WEXITSTATUS(status), tail)


_LIVE = set()  # pids of the checkers the worker has forked and not yet reaped


class Child:
    """A checker: a forked copy of the pristine worker that runs the checks the supervisor sends."""

    def __init__(self, checks, timeout):
        command_read, self.command_fd = os.pipe()
        self.result_fd, result_write = os.pipe()
        self.output = _output_file()  # the checks' stdout and stderr: read back when a child dies
        self.pid = os.fork()
        if self.pid == 0:
            try:
                os.setpgid(0, 0)  # a check that signals its process group cannot reach the worker
                signal.set_wakeup_fd(-1)
                for number in (signal.SIGCHLD, signal.SIGTERM):
                    signal.signal(number, signal.SIG_DFL)
                _seal(command_read, result_write, self.output)
                child_main(checks, timeout)
            finally:
                os._exit(70)
        _LIVE.add(self.pid)
        os.close(command_read)
        os.close(result_write)
        os.set_blocking(self.result_fd, False)
        self.own = False  # runs one check that needs a checker of its own
        self.position = None  # the check it is running
        self.deadline = None
        self.timed_out = False
        self.oversized = False
        self.buffer = bytearray()

    def start(self, position, checks, timeout):
        self.position = position
        self.own = _needs_own_checker(checks[position])
        self.deadline = time.monotonic() + timeout
        try:
            os.write(self.command_fd, b"%d\n" % position)
        except OSError:  # it has died already: reported when it is reaped
            pass

    def receive(self):
        """Read what the checker sent; False once its channel is closed (or it sent too much)."""
        while self.result_fd is not None:
            try:
                chunk = os.read(self.result_fd, 65536)
            except BlockingIOError:
                return True
            if chunk and len(self.buffer) + len(chunk) <= RESULT_LIMIT:
                self.buffer += chunk
                continue
            if chunk:  # a check flooding its own channel: the checker is ended
                self.oversized = True
                self.kill()
            os.close(self.result_fd)
            self.result_fd = None
        return False

    def lines(self):
        """The complete lines received since the last call."""
        *complete, rest = bytes(self.buffer).split(b"\n")
        self.buffer = bytearray(rest)
        return complete

    def kill(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass

    def close_channels(self):
        for fd in (self.command_fd, self.result_fd, self.output):
            if fd is not None:
                os.close(fd)
        self.command_fd = self.result_fd = self.output = None

    def output_tail(self):
        try:
            size = os.fstat(self.output).st_size
            return os.pread(self.output, 2000, max(size - 2000, 0)).decode("utf-8", "replace")
        except (OSError, TypeError):
            return ""


_TEMP = []


def _output_file():
    """A descriptor of a new unnamed temporary file (a checker's stdout and stderr)."""
    if not _TEMP:
        import tempfile

        _TEMP.append(tempfile.gettempdir())
    if hasattr(os, "O_TMPFILE"):
        try:
            return os.open(_TEMP[0], os.O_TMPFILE | os.O_RDWR, 0o600)
        except OSError:
            pass
    import tempfile

    with tempfile.TemporaryFile() as named:
        return os.dup(named.fileno())


def _parse_result(line):
    """A checker's result line as a dict, or None where it is not one the checker's own code writes."""
    try:
        result = json.loads(line)
    except ValueError:
        return None
    if not (isinstance(result, dict) and result.get("status") in ("pass", "fail", "error", "n/a")
            and isinstance(result.get("detail"), str) and result.get("at") in (None, "assertion", "crash")
            and isinstance(result.get("dirty"), bool)):
        return None
    if any(not isinstance(result.get(key), (str, type(None))) for key in ("change", "seen")):
        return None
    result["detail"] = _cut(result["detail"])
    return result


def _end_everything(*_):
    """SIGTERM from torchdeck (interrupted or cancelled): end every checker and what they started, then exit."""
    for pid in list(_LIVE):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    _end_strays()
    os._exit(143)


class _ChildSignals:
    """SIGCHLD as a readable pipe, so that ``select`` wakes when a checker exits."""

    def __enter__(self):
        self.fd, self._write_fd = os.pipe()
        os.set_blocking(self.fd, False)
        os.set_blocking(self._write_fd, False)
        self._old_fd = signal.set_wakeup_fd(self._write_fd)
        self._old_handler = signal.signal(signal.SIGCHLD, lambda *_: None)
        return self

    def drain(self):
        try:
            while os.read(self.fd, 4096):
                pass
        except BlockingIOError:
            pass

    def __exit__(self, *_):
        signal.signal(signal.SIGCHLD, self._old_handler)
        signal.set_wakeup_fd(self._old_fd)
        os.close(self.fd)
        os.close(self._write_fd)


def supervise(checks, timeout, emit, slots=1, relay=None):
    """Run every check in forked checkers, ``slots`` at a time; emit exactly one result per check.
    Meanwhile pass on what a sub-worker sends (``relay``), so that it never waits on a full pipe.

    Checks go out in list order to whichever slot is free. A check that runs code gets a fresh
    checker (as many are forked ahead as there are slots); declarative checks share one until it
    leaves. A checker that has sent its result frees its slot; its result counts once it has exited
    having sent that one line and nothing more. A check past its timeout has its checker killed
    (SIGKILL, whatever it did to groups and signals); whatever a checker leaves behind is reparented
    to the worker (its subreaper) and ended.
    """
    import collections

    queue = collections.deque(range(len(checks)))
    own_left = sum(1 for item in checks if _needs_own_checker(item))
    shared_left = len(checks) - own_left
    # running: a check each, holding a slot; finishing: sent a result, not yet exited;
    # idle: shared checkers waiting for a check; spares: forked ahead; leaving: done, not yet exited
    running, finishing, idle, spares, leaving = [], [], [], [], []

    def emit_result(child, result):
        extra = {key: result[key] for key in ("change", "seen") if key in result}
        emit(checks[child.position]["index"], result["status"], result["detail"], at=result.get("at"),
             pristine=result.get("pristine") is True, **extra)

    def finish(child, status):
        """A checker has exited: the result of the check it ran, if it ran one."""
        if child.position is None:
            return
        child.receive()
        lines = child.lines()
        result = _parse_result(lines[0]) if lines else None
        index = checks[child.position]["index"]
        if child.timed_out:
            emit(index, "error", "timed out after %g s" % timeout)
        elif child.oversized:
            emit(index, "error", "the check sent more than %d KiB on its checker's result channel" %
                 (RESULT_LIMIT >> 10))
        elif len(lines) > 1 or child.buffer:
            emit(index, "error", "the check wrote to its checker's result channel (%d line(s))" %
                 (len(lines) + bool(child.buffer)))
        elif lines and result is None:
            emit(index, "error", "the checker sent a malformed result: %s" %
                 _cut(lines[0].decode("utf-8", "replace"), 200))
        elif result is not None:
            emit_result(child, result)
        else:
            emit(index, "error", _death_reason(status, child.output_tail()))
        child.position = None

    def received(child):
        """Read what a running checker sent; move it on once its result is in."""
        child.receive()
        if child.own or child.oversized:
            if b"\n" in child.buffer or child.result_fd is None:
                running.remove(child)  # judged when it exits: one line and nothing more
                finishing.append(child)
            return
        for line in child.lines():
            if child.position is None:
                break  # nothing is asked of it: it has no business writing
            result = _parse_result(line)
            if result is None:
                emit(checks[child.position]["index"], "error", "the checker sent a malformed result")
                result = {"dirty": True}
                child.kill()
            else:
                emit_result(child, result)
            child.position = None
            running.remove(child)
            (leaving if result["dirty"] else idle).append(child)

    with _ChildSignals() as wakeup:
        try:
            while queue or running or finishing:
                while queue and len(running) < slots:
                    own = _needs_own_checker(checks[queue[0]])
                    if own:
                        own_left -= 1
                        child = spares.pop(0) if spares else Child(checks, timeout)
                    else:
                        shared_left -= 1
                        child = idle.pop() if idle else (spares.pop(0) if spares else Child(checks, timeout))
                    child.start(queue.popleft(), checks, timeout)
                    running.append(child)
                if idle and not shared_left:  # no declarative check left for them
                    for child in idle:
                        os.close(child.command_fd)  # it reads the end of its commands and exits
                        child.command_fd = None
                    leaving += idle
                    idle = []
                if len(spares) < min(own_left, slots):
                    # forked in a burst: the worker's pages that a fork shares are copied when the worker
                    # next writes them, once per burst rather than once per checker
                    while len(spares) < min(own_left, SPARES_PER_SLOT * slots):
                        spares.append(Child(checks, timeout))
                    continue
                timed = running + finishing
                wait = max(min(child.deadline for child in timed) - time.monotonic(), 0) if timed else None
                fds = [child.result_fd for child in running if child.result_fd is not None]
                fds += [relay.fd] if relay is not None and relay.fd is not None else []
                ready = select.select(fds + [wakeup.fd], [], [], wait)[0]
                if relay is not None and relay.fd in ready:
                    relay.pump()
                for child in list(running):
                    if child.result_fd in ready:
                        received(child)
                if wakeup.fd in ready:
                    wakeup.drain()
                    exited = _reap_checkers()
                    for child in running + finishing + idle + spares + leaving:
                        if child.pid in exited:
                            finish(child, exited[child.pid])
                            child.close_channels()
                            for group in (running, finishing, idle, spares, leaving):
                                if child in group:
                                    group.remove(child)
                    if exited:
                        _end_strays(_LIVE)  # what an ended checker left behind is reparented here
                now = time.monotonic()
                for child in running + finishing:
                    if now >= child.deadline:
                        child.timed_out = True
                        child.deadline = now + 1  # reaped once the kill lands: no busy wait meanwhile
                        child.kill()
        finally:
            for child in running + finishing + idle + spares + leaving:
                child.kill()
                try:
                    os.waitpid(child.pid, 0)
                except ChildProcessError:
                    pass
                _LIVE.discard(child.pid)
                child.close_channels()
            _end_strays(_LIVE)


def _reap_checkers():
    """``{pid: exit status}`` of every child that has exited (strays included)."""
    exited = {}
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        exited[pid] = status
        _LIVE.discard(pid)
    return exited


# --------------------------------------------------------------------- main
def main():
    signal.signal(signal.SIGTERM, _end_everything)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)  # what a check leaves behind comes back here, whatever its session
    _prctl(PR_SET_DUMPABLE, 0)  # other users' processes (a check's, unless run as root) cannot open its pipes
    if EXPORTED_REQUEST is None:  # started by torchdeck (an exported copy runs on its own)
        die_with_parent(signal.SIGTERM)
    out = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # checked code that prints must not corrupt the protocol
    os.environ.setdefault("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
    warnings.simplefilter("ignore")
    calibration = _calibrate_mkl_clock_in_background()
    gc.disable()  # importing builds objects by the million and frees next to none: no collection until forking
    import torch  # before reading the request: the caller may start us early and send it later

    MODULES_AFTER_IMPORT_TORCH.update(sys.modules)
    calibration.join()  # no thread may be running when a child is forked
    _import_backends()
    waiting = EXPORTED_REQUEST is None and not select.select([sys.stdin], [], [], 0)[0]
    if waiting:  # torchdeck is still loading the content: time that would be spent waiting
        _map_in_large_pages()

    request = EXPORTED_REQUEST if EXPORTED_REQUEST is not None else json.load(sys.stdin)

    def send(message):
        out.write(json.dumps(message) + "\n")

    found = _in_child(lambda: {"capabilities": detect_capabilities(), "build": describe_build()},
                      request.get("timeout", 10))
    capabilities = found.get("capabilities", {})
    send({"hello": {"torch": torch.__version__, "python": "%d.%d.%d" % sys.version_info[:3],
                    "capabilities": capabilities, "build": found.get("build", {})}})
    items = request["checks"]
    compiler = [index for index, item in enumerate(items) if _uses_compiler_stack(item)]
    relay = None
    if compiler and len(compiler) < len(items):
        relay = _start_subworker(items, compiler, capabilities, request, out)
    handed_on = set(compiler) if relay is not None else set()
    mine = [index for index in range(len(items)) if index not in handed_on]
    _serve(items, mine, capabilities, request, send, collapsed=waiting, relay=relay)
    if relay is not None:
        relay.finish()
    _end_strays()
    out.flush()


def _serve(items, indexes, capabilities, request, send, collapsed=False, relay=None):
    """Run the checks of ``items`` at ``indexes`` (and, where asked, their controls) in checkers forked
    from this process, once it is ready to fork: each result goes to ``send``."""
    mine = [items[index] for index in indexes]
    imported = _import_compiler_stack_if_used(mine)
    _namespace_baseline()  # taken once here, after every import: every child compares against it
    _pristine_state()
    gc.freeze()  # forked children then leave torch's objects' pages shared
    gc.enable()
    forks = sum(check_kind(item["check"]) in CODE_KINDS for item in mine)
    forks += sum(len(item.get("rivals", ())) for item in mine) if request.get("controls") else 0
    if (imported or not collapsed) and forks >= 64:
        _map_in_large_pages()  # it pays for itself from about 30 forks on (again for what was imported)
    _MEMORY_BASE.update(_memory_in_use())
    statuses = {}  # index -> status, and -1-index -> the status of that fact's written control
    timeout = float(request.get("timeout", 10))

    def emit(index, status, detail, at=None, pristine=True, **_):
        if index < 0:
            statuses[index] = (status, detail, at)
            return
        statuses[index] = status
        message = {"index": index, "status": status, "detail": _cut(detail), "pristine": pristine}
        if "id" in items[index]:  # an exported request: results name their fact and check
            message.update(id=items[index]["id"], hash=items[index].get("hash"))
        send(message)

    checks = []
    for index in indexes:
        item = items[index]
        reason = skip_reason(item, capabilities)
        if reason:
            emit(index, "skip", reason)
        else:
            checks.append({"index": index, "check": item["check"], "requires": item.get("requires", [])})
            if request.get("controls") and item.get("control"):
                checks.append({"index": -1 - index, "check": item["control"], "requires": item.get("requires", [])})
    checks.sort(key=_schedule_rank)
    slots = max(1, min(_cores(), len(checks) or 1))
    supervise(checks, timeout, emit, slots, relay)
    if request.get("controls"):
        run_controls(items, statuses, timeout, slots, send, relay)


# The checks that use the compiler stack run in a sub-worker: a copy of the worker, forked before it
# imports that stack, which imports it (about a second) while the worker runs every other check. Those
# checks start from a pristine copy with the stack imported; the others fork from a smaller worker.
def _start_subworker(items, indexes, capabilities, request, out):
    """Fork the sub-worker that serves ``indexes``; the ``_Relay`` that passes on what it sends to ``out``."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(read_fd)
            os.close(out.fileno())  # the worker's own output: only the worker writes there
            die_with_parent()
            _prctl(PR_SET_CHILD_SUBREAPER, 1)
            channel = os.fdopen(write_fd, "w", buffering=1)
            _serve(items, indexes, capabilities, request,
                   lambda message: channel.write(json.dumps(message) + "\n"))
            _end_strays()
            channel.flush()
        except BaseException:
            traceback.print_exc()
            code = 3
        finally:
            os._exit(code)
    _LIVE.add(pid)
    os.close(write_fd)
    os.set_blocking(read_fd, False)
    return _Relay(read_fd, pid, out)


class _Relay:
    """What a sub-worker sends, passed on to the worker's output a whole line at a time."""

    def __init__(self, fd, pid, out):
        self.fd, self.pid, self.out = fd, pid, out
        self.pending = b""

    def pump(self):
        """Take what has arrived; at the end of it, close the channel."""
        try:
            chunk = os.read(self.fd, 65536)
        except BlockingIOError:
            return
        if not chunk:
            os.close(self.fd)
            self.fd = None
            return
        *lines, self.pending = (self.pending + chunk).split(b"\n")
        for line in lines:
            self.out.write(line.decode("utf-8", "replace") + "\n")

    def finish(self):
        """Pass on the rest of what the sub-worker sends; wait for it to exit."""
        while self.fd is not None:
            select.select([self.fd], [], [])
            self.pump()
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:  # reaped already, with the checkers
            pass
        _LIVE.discard(self.pid)


# ---------------------------------------------------------------- controls
class _Trials:
    """The changes tried on one check, one at a time: each subject's variants in turn until one is caught."""

    def __init__(self, subjects, limit):
        self.subjects = subjects
        self.position = 0
        self.pending = [0]
        self.limit = limit
        self.tried = []
        self.caught = None

    def next(self):
        """``{"subject", "variant"}`` to try next, or None when done."""
        if self.caught is not None:
            return None
        while self.position < len(self.subjects) and len(self.tried) < self.limit:
            if self.pending:
                return {"subject": self.subjects[self.position], "variant": self.pending[0]}
            self.position += 1
            self.pending = [0]
        return None

    def record(self, status, at, change, seen):
        variant = self.pending.pop(0)
        if change is None:  # the variant did not apply: on to the next subject, or to a call's other kinds
            if variant == 0 and seen in ("none", "context"):
                self.pending = ["no-effect", "raise"]
            else:
                self.pending = []
            return
        self.tried.append(change)
        if status == "fail" and at == "assertion":  # a crash in a changed world proves nothing
            self.caught = change
        elif isinstance(variant, int):
            self.pending.append(variant + 1)


def run_controls(items, statuses, timeout, slots, send, relay=None):
    """For each check that passed: every rival world it names must make it fail at its own assertion
    (``caught``, else ``missed``); without rivals, its written control must fail, or else changes to
    what it reads must make it fail, under the same rule (``caught``, ``missed``, or ``none`` where it
    reads nothing that can be changed). Sends ``{"index", "control", "detail", "rivals"}`` for each,
    ``rivals`` a ``[verdict, detail]`` per rival: ``ruled-out``, ``passes``, ``crashed`` or ``error``."""
    mutants = _mutants()
    passed = [index for index, item in enumerate(items) if statuses.get(index) == "pass"]
    worlds = [(index, rival) for index in passed for rival in items[index].get("rivals", [])]
    verdicts = {}

    def record_world(n, status, detail, at=None, **_):
        verdicts[n] = _rival_verdict(status, detail, at)

    runs = [{"index": n, "check": items[index]["check"], "world": rival["world"],
             "requires": items[index].get("requires", [])}
            for n, (index, rival) in enumerate(worlds)]
    if runs:
        supervise(runs, timeout, record_world, slots, relay)
    by_fact = {}
    for n, (index, _) in enumerate(worlds):
        by_fact.setdefault(index, []).append(verdicts.get(n, ("error", "no result")))
    trials = {}
    for index in passed:
        item = items[index]
        if item.get("rivals"):
            found = by_fact.get(index, [])
            missed = [(item["rivals"][i].get("belief", "rival %d" % (i + 1)), verdict, detail)
                      for i, (verdict, detail) in enumerate(found) if verdict != "ruled-out"]
            if missed:
                detail = "; ".join("rival '%s' %s%s" % (belief, verdict, (": " + detail) if detail else "")
                                   for belief, verdict, detail in missed)
                send({"index": index, "control": "missed", "detail": detail, "rivals": found})
            else:
                send({"index": index, "control": "caught", "rivals": found,
                      "detail": "fails at its assertion in each of its %d rival world(s)" % len(found)})
            continue
        written = statuses.get(-1 - index)
        if written is not None:
            status, detail, at = written
            if status == "fail" and at == "assertion":
                send({"index": index, "control": "caught", "detail": "its control fails: %s" % detail})
            else:
                send({"index": index, "control": "missed",
                      "detail": "its control %s: the check cannot tell the claim from its rival" %
                                ("passes too" if status == "pass" else "gave %s (%s): %s" %
                                 (status, at or "not at its assertion", detail))})
            continue
        trials[index] = _Trials(subjects(item["check"]), mutants.MAX_TRIES)
    while True:
        batch = [(index, trial.next()) for index, trial in trials.items()]
        batch = [(index, mutate) for index, mutate in batch if mutate is not None]
        if not batch:
            break
        runs = [{"index": n, "check": items[index]["check"], "mutate": mutate,
                 "requires": items[index].get("requires", [])}
                for n, (index, mutate) in enumerate(batch)]

        def record(n, status, detail, at=None, change=None, seen=None, **_):
            trials[batch[n][0]].record(status, at, change, seen)

        supervise(runs, timeout, record, slots, relay)
    for index, trial in trials.items():
        if trial.caught is not None:
            send({"index": index, "control": "caught", "detail": "fails when " + trial.caught})
        elif trial.tried:
            send({"index": index, "control": "missed",
                  "detail": "passes, or fails only by crashing, whatever changes: " + "; ".join(trial.tried)})
        else:
            send({"index": index, "control": "none", "detail": "reads nothing from torch that can be changed"})


def _rival_verdict(status, detail, at):
    """``(verdict, detail)`` of a check run in a rival's world: only a failure at the check's own
    assertion rules the rival out."""
    if status == "fail" and at == "assertion":
        return "ruled-out", detail
    if status == "fail":
        return "crashed", detail
    if status == "pass":
        return "passes", ""
    return "error", detail


# Code that sets precision flags cannot be put back faithfully, so its child exits afterwards;
# running such checks last lets the others share long-lived children.
_LIKELY_DIRTY = re.compile(r"fp32_precision\s*=|allow_tf32\s*=|set_float32_matmul_precision|disable_global_flags")


def _schedule_rank(item):
    check = item["check"]
    kind = check_kind(check)
    return CHECK_KINDS[kind].rank + (1 if kind in CODE_KINDS and _LIKELY_DIRTY.search(check[kind]) else 0)


def _calibrate_mkl_clock_in_background():
    """Have MKL measure the CPU clock now, on the other core while torch imports.

    MKL times a busy loop (0.3 to 1 s) the first time a process turns its verbose
    mode on; done here, before the fork, the children inherit the measured value
    instead of each paying for it. Builds without MKL have no such function:
    then the thread does nothing.
    """
    def calibrate():
        try:
            import ctypes
            import importlib.util

            folder = importlib.util.find_spec("torch").submodule_search_locations[0]
            library = ctypes.CDLL(os.path.join(folder, "lib", "libtorch_cpu.so"))
            library.mkl_serv_get_cpu_frequency.restype = ctypes.c_double
            library.mkl_serv_get_cpu_frequency()
        except Exception:
            pass

    thread = threading.Thread(target=calibrate, daemon=True)
    thread.start()
    return thread


def _import_backends():
    """Import every ``torch.backends`` module before forking: each check starts from torch with its
    backends loaded (as ``resolve`` would load them), and no checker pays for importing them again
    (``torch.backends.xeon.run_cpu`` alone brings in 20 modules, 50 ms in every check that uses it)."""
    import importlib
    import pkgutil

    import torch.backends

    for module in pkgutil.walk_packages(torch.backends.__path__, "torch.backends.", onerror=lambda _: None):
        try:
            importlib.import_module(module.name)
        except Exception:  # an optional dependency missing (coremltools): as a check would find it
            pass


# Checks that use these import the compiler stack on the way (``use_deterministic_algorithms`` imports
# ``torch._inductor.config``; a dispatch mode, ``torch.export``, the profiler, a flop counter or a
# semi-structured sparse tensor import ``torch._dynamo``, many through ``torch._disable_dynamo``; sympy
# comes with both): about 1 s in every checker. Such checks run in a sub-worker that imports the stack
# once before forking, and they pay nothing; a check this misses is slower, never wrong.
COMPILER_STACK_USERS = re.compile(r"use_deterministic_algorithms|TorchDispatchMode|torch\.export|torch\._dynamo|"
                                  r"torch\._inductor|torch\.compile|torch\.profiler|FlopCounterMode|"
                                  r"semi_structured|SparseSemiStructured")


def _code_of(items):
    """The code a request's checks, written controls and rivals' worlds run."""
    checks = [item["check"] for item in items]
    checks += [item["control"] for item in items if item.get("control")]
    code = [check[check_kind(check)] for check in checks if check_kind(check) in CODE_KINDS]
    return code + [rival["world"] for item in items for rival in item.get("rivals", [])]


def _uses_compiler_stack(item):
    return any(COMPILER_STACK_USERS.search(text) for text in _code_of([item]))


def _import_compiler_stack_if_used(items):
    if not any(_uses_compiler_stack(item) for item in items):
        return False
    try:
        import torch._inductor.config  # noqa: F401  (imports torch._dynamo and sympy too)
    except Exception:
        return False
    return True


def _map_in_large_pages():
    """Back the worker's private memory with 2 MiB pages where the kernel can (Linux MADV_COLLAPSE).

    Every check forks a checker; a fork copies one page-table entry per 4 KiB page the worker has
    written (about 140 MiB once torch is imported), a large page takes one entry: forking, and
    exiting, cost a third as much. Where it cannot be done nothing changes.
    """
    libc = _libc()
    if libc is None:
        return
    try:
        import ctypes

        madvise = libc.madvise
        madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        with open("/proc/self/maps") as maps:
            regions = [line.split() for line in maps]
    except Exception:
        return
    large = 1 << 21
    for fields in regions:
        start, end = (int(x, 16) for x in fields[0].split("-"))
        if fields[1][:2] != "rw" or fields[1][3] != "p" or (len(fields) > 5 and fields[5] != "[heap]"):
            continue  # private, writable, anonymous memory only
        start, end = (start + large - 1) & ~(large - 1), end & ~(large - 1)
        if end > start:
            madvise(start, end - start, 25)  # MADV_COLLAPSE; fails harmlessly before Linux 6.1


def _cores():
    try:
        return min(len(os.sched_getaffinity(0)), 4)
    except AttributeError:
        return min(os.cpu_count() or 1, 4)


def _in_child(function, timeout):
    """``function()``'s JSON result computed in a forked child, so CUDA is never initialised here."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        try:
            os.write(write_fd, json.dumps(function()).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    data = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([read_fd], [], [], max(deadline - time.monotonic(), 0))
        if not ready:
            break
        chunk = os.read(read_fd, 65536)
        if not chunk:
            break
        data += chunk
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    os.close(read_fd)
    return json.loads(data) if data else {}


# An exported copy of this file (``torchdeck ledger export``) carries its request here.
EXPORTED_REQUEST = None

if __name__ == "__main__":
    try:
        main()
    except Exception:
        traceback.print_exc()
        sys.exit(3)
