"""Run one pure computation in a forked process while the caller goes on with other work.

``in_background(function, argument)`` forks (on Linux); the child computes
``function(argument)`` and leaves the result pickled in a temporary file;
``Pending.result()`` returns it, or raises the exception the function raised,
as a direct call would. A child that dies is a RuntimeError. Where fork is not
available or not safe (Windows, macOS), or there is one core, ``result()``
simply makes the call itself.

Fork rather than a process pool: the child inherits what is loaded (content,
lexers) as it is, with nothing to pickle on the way out and no interpreter to
start. ``function`` must be pure: the child's side effects are lost.
"""
from __future__ import annotations

import os
import pickle
import signal
import sys
import tempfile
from typing import Callable, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def in_background(function: Callable[[T], R], argument: T) -> Pending[R]:
    return Pending(function, argument)


class Pending(Generic[R]):
    """``function(argument)``, being computed in a forked child."""

    def __init__(self, function: Callable[[T], R], argument: T):
        self.function, self.argument = function, argument
        self.pid = None
        if _can_fork() and _cores() > 1:
            # a file, not a pipe: the child writes its result and exits at once, without waiting
            # for us to read; until it exits, every page either process writes to must first be copied
            self.file = tempfile.TemporaryFile(prefix="torchdeck-")
            self.pid = os.fork()
            if self.pid == 0:  # pragma: no cover - runs in the child, which never returns
                _compute_and_exit(function, argument, self.file.fileno())

    def result(self) -> R:
        if self.pid is None:
            return self.function(self.argument)
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        with self.file:
            self.file.seek(0)
            data = self.file.read()
        if not data or os.WIFSIGNALED(status) or os.WEXITSTATUS(status):
            raise RuntimeError(f"the background process died ({_describe(status)})")
        ok, value = pickle.loads(data)
        if not ok:
            raise value
        return value

    def cancel(self) -> None:
        """Stop and collect a child whose result will not be read (the caller failed first)."""
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
            self.pid = None
            self.file.close()

    def __del__(self):
        try:
            self.cancel()
        except Exception:  # at interpreter exit os may be half torn down; the child dies with us anyway
            pass


def _can_fork() -> bool:
    # macOS system frameworks are not fork-safe; Windows cannot fork
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def _cores() -> int:
    from .worker.processes import cores

    return cores()


def _compute_and_exit(function, argument, fd: int) -> None:  # pragma: no cover - child side
    status = 1
    try:
        try:
            payload = pickle.dumps((True, function(argument)), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as err:  # the parent raises it, as the direct call would
            try:
                payload = pickle.dumps((False, err), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:
                payload = pickle.dumps((False, RuntimeError(f"{type(err).__name__}: {err}")))
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view):]
        status = 0
    finally:
        os._exit(status)  # no atexit handlers, no flushing of the parent's buffers


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit code {os.WEXITSTATUS(status)}"
