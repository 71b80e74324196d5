"""Run one pure computation in a forked process while the caller goes on with other work.

``in_background(function, argument)`` forks (on Linux); the child computes
``function(argument)`` and sends the result back pickled; ``Pending.result()``
returns it, or raises the exception the function raised, as a direct call
would. A child that dies is a RuntimeError. Where fork is not available or not
safe (Windows, macOS), ``result()`` simply makes the call itself.

Fork rather than a process pool: the child inherits what is loaded (content,
lexers) as it is, with nothing to pickle on the way out and no interpreter to
start. ``function`` must be pure: the child's side effects are lost.
"""
from __future__ import annotations

import os
import pickle
import signal
import sys
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
            read_fd, write_fd = os.pipe()
            self.pid = os.fork()
            if self.pid == 0:  # pragma: no cover - runs in the child, which never returns
                os.close(read_fd)
                _compute_and_exit(function, argument, write_fd)
            os.close(write_fd)
            self.read_fd = read_fd

    def result(self) -> R:
        if self.pid is None:
            return self.function(self.argument)
        with os.fdopen(self.read_fd, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        if not data:
            raise RuntimeError(f"the background process died ({_describe(status)})")
        ok, value = pickle.loads(data)
        if not ok:
            raise value
        return value

    def cancel(self) -> None:
        """Stop and collect a child whose result will not be read (the caller failed first)."""
        if self.pid:
            os.close(self.read_fd)
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
            self.pid = None

    def __del__(self):
        try:
            self.cancel()
        except Exception:  # at interpreter exit os may be half torn down; the child dies with us anyway
            pass


def _can_fork() -> bool:
    # macOS system frameworks are not fork-safe; Windows cannot fork
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _compute_and_exit(function, argument, write_fd: int) -> None:  # pragma: no cover - child side
    try:
        try:
            payload = pickle.dumps((True, function(argument)), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as err:  # the parent raises it, as the direct call would
            try:
                payload = pickle.dumps((False, err), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:
                payload = pickle.dumps((False, RuntimeError(f"{type(err).__name__}: {err}")))
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(payload)
    finally:
        os._exit(0)  # no atexit handlers, no flushing of the parent's buffers


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit code {os.WEXITSTATUS(status)}"
