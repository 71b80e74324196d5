"""The worker's main loop: import torch once, read the request, answer hello, run every check (the
ones that use the compiler stack in a sub-worker), then the controls."""
import gc
import json
import os
import re
import select
import signal
import sys
import threading
import time
import traceback
import warnings

from .capabilities import describe_build, detect_capabilities, skip_reason
from .checker import _LIVE
from .controls import run_controls
from .kinds import CHECK_KINDS, CODE_KINDS, MODULES_AFTER_IMPORT_TORCH, check_kind
from .limits import _cut
from .processes import (
    _GPU_HERE,
    _MEMORY_BASE,
    PR_SET_CHILD_SUBREAPER,
    PR_SET_DUMPABLE,
    _end_strays,
    _libc,
    _memory_in_use,
    _prctl,
    cores,
    die_with_parent,
)
from .state import _namespace_baseline, _pristine_state
from .supervise import _end_everything, supervise


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

    found = _probe_machine(float(request.get("timeout", 10)))
    capabilities = found["capabilities"]
    send({"hello": {"torch": torch.__version__, "python": "%d.%d.%d" % sys.version_info[:3],
                    "capabilities": capabilities, "build": found.get("build", {})}})
    items = request["checks"]
    compiler = [index for index, item in enumerate(items) if _uses_compiler_stack(item)]
    relay = None
    if compiler and len(compiler) < len(items):
        relay = _start_subworker(items, compiler, capabilities, request, out)
    handed_on = set(compiler) if relay is not None else set()
    mine = [index for index in range(len(items)) if index not in handed_on]
    # the worker imports the stack itself only where every check uses it (no sub-worker then)
    _serve(items, mine, capabilities, request, send, stack=bool(compiler) and relay is None, collapsed=waiting,
           relay=relay)
    if relay is not None:
        relay.finish()
    _end_strays()
    out.flush()


def _serve(items, indexes, capabilities, request, send, stack=False, collapsed=False, relay=None):
    """Run the checks of ``items`` at ``indexes`` (and, where asked, their controls) in checkers forked
    from this process, once it is ready to fork (with the compiler stack imported first, where ``stack``):
    each result goes to ``send``."""
    mine = [items[index] for index in indexes]
    imported = stack and _import_compiler_stack()
    _namespace_baseline()  # taken once here, after every import: every child compares against it
    _pristine_state()
    gc.freeze()  # forked children then leave torch's objects' pages shared
    gc.enable()
    forks = sum(check_kind(item["check"]) in CODE_KINDS for item in mine)
    forks += sum(len(item.get("rivals", ())) for item in mine) if request.get("controls") else 0
    if (imported or not collapsed) and forks >= 64:
        _map_in_large_pages()  # it pays for itself from about 30 forks on (again for what was imported)
    _MEMORY_BASE.update(_memory_in_use())
    _GPU_HERE[:] = [True] if capabilities.get("cuda") else []
    statuses = {}  # index -> status, and -1-index -> the status of that fact's written control
    timeout = float(request.get("timeout", 10))

    def send_named(message):
        item = items[message["index"]]
        if "id" in item:  # an exported request: results and verdicts name their fact and check
            message.update(id=item["id"], hash=item.get("hash"))
        send(message)

    def emit(index, status, detail, at=None, pristine=True, **_):
        if index < 0:
            statuses[index] = (status, detail, at)
            return
        statuses[index] = status
        send_named({"index": index, "status": status, "detail": _cut(detail), "pristine": pristine})

    checks = []
    for index in indexes:
        item = items[index]
        reason = skip_reason(item, capabilities)
        if reason:
            emit(index, "skip", reason)
        else:
            checks.append({"index": index, "check": item["check"], "requires": item.get("requires", []),
                           "timeout": item.get("timeout")})
            if request.get("controls") and item.get("control"):
                checks.append({"index": -1 - index, "check": item["control"], "requires": item.get("requires", []),
                               "timeout": item.get("timeout")})
    checks.sort(key=_schedule_rank)
    slots = max(1, min(_cores(), len(checks) or 1))
    supervise(checks, timeout, emit, slots, relay)
    if request.get("controls"):
        run_controls(items, statuses, timeout, slots, send_named, relay)


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
                   lambda message: channel.write(json.dumps(message) + "\n"), stack=True)
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


def _import_compiler_stack():
    """Import the compiler stack (a second or so); whether it could be."""
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
    return min(cores(), 4)


PROBE_SECONDS = 120.0  # the least the capability probe is given: on a loaded machine importing CUDA's modules is slow


def _probe_machine(timeout):
    """What this build and machine can do and what they are, found in a child (so CUDA is never started here).
    A probe that does not answer is an error: taken as "nothing is available", every fact that requires
    something would be skipped, and those skips cached, on a machine that was merely busy."""
    limit = max(timeout, PROBE_SECONDS)
    found = _in_child(lambda: {"capabilities": detect_capabilities(), "build": describe_build()}, limit)
    if "capabilities" not in found:
        raise RuntimeError("the probe of what this torch and machine can do did not answer within %g s" % limit)
    return found


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
