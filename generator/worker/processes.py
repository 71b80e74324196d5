"""Processes: dying with the parent, ending what a check left behind (the worker is a subreaper),
and the limits set on a checker."""
import os
import signal
import sys

try:
    import resource
except ImportError:  # not on Windows: no limits there
    resource = None  # type: ignore[assignment]

from .kinds import _open
from .limits import MEMORY_LIMIT, OUTPUT_LIMIT, THREAD_RESERVE, UNLIMITED_MEMORY

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36


_LIBC: list = []


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


# ------------------------------------------------------------ processes
def cores() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


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
        limits.append((getattr(resource, "RLIMIT_DATA", None), MEMORY_LIMIT + used.get("VmData", 0)))
        if not _GPU_HERE:  # with a GPU any check may start CUDA (cudnn.version() does), whose reserved
            # address space alone is past any such limit ("cudaGetDeviceCount ... out of memory"); data still counts
            limits.append((getattr(resource, "RLIMIT_AS", None),
                           MEMORY_LIMIT + used.get("VmSize", 0) + THREAD_RESERVE * (os.cpu_count() or 1)))
    for limit, extra in limits:
        if limit is None:
            continue
        try:
            hard = resource.getrlimit(limit)[1]
            resource.setrlimit(limit, (extra if hard == resource.RLIM_INFINITY else min(extra, hard), hard))
        except (ValueError, OSError):
            pass


_MEMORY_BASE: dict = {}  # what the worker uses before forking: read once there, not in every checker


_GPU_HERE: list = []  # [True] once the worker found a usable CUDA GPU on this machine (before forking)


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
