"""A checker: a forked copy of the pristine worker that runs the checks it is sent, one result a line
on a channel of its own."""
import json
import os
import shutil
import signal
import sys
import time

try:
    import fcntl
    import resource
except ImportError:  # not on Windows: no limits there
    resource = None  # type: ignore[assignment]

from .kinds import CODE_KINDS, _mutants, _run_code, check_kind, judge, resolve
from .limits import OUTPUT_LIMIT, RESULT_LIMIT, UNLIMITED_MEMORY, _cut, _message, time_limit
from .processes import (
    PR_SET_CHILD_SUBREAPER,
    _end_strays,
    _limit_cpu,
    _limit_resources,
    _prctl,
    _reap_exited,
    die_with_parent,
)
from .state import _pristine


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
    state, before = _pristine()
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
        _limit_cpu(time_limit(item, timeout))
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


def _build_world(code):
    """Run a rival's ``world`` (code that makes the rival belief true: a patch of torch, another
    starting state) before its check; None, or why it could not be built."""
    try:
        _run_code(code)
    except BaseException as err:
        return "%s: %s" % (type(err).__name__, _message(err))
    return None


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


_LIVE: set = set()  # pids of the checkers the worker has forked and not yet reaped
_SCRATCH: set = set()  # the temporary folders of checkers not yet removed


class Child:
    """A checker: a forked copy of the pristine worker that runs the checks the supervisor sends."""

    def __init__(self, checks, timeout):
        command_read, self.command_fd = os.pipe()
        self.result_fd, result_write = os.pipe()
        self.output = _output_file()  # the checks' stdout and stderr: read back when a child dies
        self.scratch = _scratch_folder()  # its temporary files: removed with it (``remove_scratch``)
        _SCRATCH.add(self.scratch)
        self.pid = os.fork()
        if self.pid == 0:
            try:
                os.setpgid(0, 0)  # a check that signals its process group cannot reach the worker
                signal.set_wakeup_fd(-1)
                for number in (signal.SIGCHLD, signal.SIGTERM):
                    signal.signal(number, signal.SIG_DFL)
                _seal(command_read, result_write, self.output)
                _use_scratch(self.scratch)
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
        self.deadline = time.monotonic() + time_limit(checks[position], timeout)
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

    def remove_scratch(self):
        """Remove the checker's temporary folder and whatever its checks left there (once it and what
        it started are gone: nothing can write there any more)."""
        if self.scratch is not None:
            remove_scratch(self.scratch)
            self.scratch = None

    def output_tail(self):
        try:
            size = os.fstat(self.output).st_size
            return os.pread(self.output, 2000, max(size - 2000, 0)).decode("utf-8", "replace")
        except (OSError, TypeError):
            return ""


_TEMP: list = []


def remove_scratch(folder):
    shutil.rmtree(folder, ignore_errors=True)
    _SCRATCH.discard(folder)


def _scratch_folder():
    """A new private folder in the system's temporary folder, for one checker."""
    import tempfile

    return tempfile.mkdtemp(prefix="torchdeck-check-")


def _use_scratch(folder):
    """Make ``folder`` this process's temporary folder: Python's ``tempfile`` (its cached choice
    included) and every program it starts (``TMPDIR``). What a check leaves in temporary files (a
    log folder of a launcher, a compiler's cache) then goes with its checker, and no later check or
    run can find it."""
    os.environ["TMPDIR"] = folder
    tempfile = sys.modules.get("tempfile")
    if tempfile is not None:
        tempfile.tempdir = folder


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
