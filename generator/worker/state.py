"""The global state the worker watches: backend flags, threads, determinism, matmul precision, namespaces.

Declarative checks share a checker only while this state stays as the pristine worker had it."""
import re
import sys

from .kinds import resolve

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


_BASELINE: list = []


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


_PRISTINE: list = []  # [(State, its reading)] taken in the parent before forking: every child starts from it


def _pristine_state():
    """The global state of a process no check has run in, and what it reads; taken in the parent once
    every import is done, so that each forked child need not (reading it does not initialise CUDA)."""
    state = State()
    _PRISTINE[:] = [(state, state.read())]
    return _PRISTINE[0]


def _pristine():
    """The pristine state the parent took (taken here where it took none)."""
    return _PRISTINE[0] if _PRISTINE else _pristine_state()
