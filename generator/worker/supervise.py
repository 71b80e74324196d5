"""Running checks in checkers, a few at a time: timeouts, deaths, results that arrive whole or not at all."""
import os
import select
import signal
import time

from .checker import _LIVE, _SCRATCH, Child, _needs_own_checker, _parse_result, remove_scratch
from .limits import RESULT_LIMIT, SPARES_PER_SLOT, _cut, time_limit
from .processes import _death_reason, _end_strays


def _end_everything(*_):
    """SIGTERM from torchdeck (interrupted or cancelled): end every checker and what they started, then exit."""
    for pid in list(_LIVE):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    _end_strays()
    for folder in list(_SCRATCH):
        remove_scratch(folder)
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
            emit(index, "error", "timed out after %g s" % time_limit(checks[child.position], timeout))
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
                    ended = [child for child in running + finishing + idle + spares + leaving if child.pid in exited]
                    for child in ended:
                        finish(child, exited[child.pid])
                        child.close_channels()
                        for group in (running, finishing, idle, spares, leaving):
                            if child in group:
                                group.remove(child)
                    if exited:
                        _end_strays(_LIVE)  # what an ended checker left behind is reparented here
                    for child in ended:
                        child.remove_scratch()
                now = time.monotonic()
                for child in running + finishing:
                    if now >= child.deadline:
                        child.timed_out = True
                        child.deadline = now + 1  # reaped once the kill lands: no busy wait meanwhile
                        child.kill()
        finally:
            left = running + finishing + idle + spares + leaving
            for child in left:
                child.kill()
                try:
                    os.waitpid(child.pid, 0)
                except ChildProcessError:
                    pass
                _LIVE.discard(child.pid)
                child.close_channels()
            _end_strays(_LIVE)
            for child in left:
                child.remove_scratch()


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
