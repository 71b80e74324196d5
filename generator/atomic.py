"""Atomic output: write a temp file in the target's folder, then rename it into place.

A build killed half-way leaves the previous artifact intact, never a truncated file. The
temp file (``.<name>.<pid>.<random>.part``) carries the id of the process writing it, so
that the next write of the same target removes what a killed process (SIGKILL, a power
cut) left behind, and never a temp file another build is still writing.

Only a regular file is replaced by renaming: a symbolic link is written through (its
target is replaced, the link stays), and a device, FIFO or socket (``--json /dev/stdout``)
is written to in place.
"""
from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def remove_stale_parts(target: Path) -> None:
    """Remove the temp files of ``target`` whose writer is gone."""
    pattern = re.compile(rf"\.{re.escape(target.name)}\.(\d+)\.[A-Za-z0-9_]+\.part")
    try:
        names = [name for name in os.listdir(target.parent) if name.endswith(".part")]
    except OSError:
        return
    for name in names:
        found = pattern.fullmatch(name)
        if found and not _alive(int(found.group(1))):
            try:
                (target.parent / name).unlink()
            except OSError:
                pass


def _written_through(target: Path) -> tuple[Path, bool]:
    """``(where to write, whether to write in place)``: a link's final target, and whether that is
    something other than a regular file (a device, a FIFO), which is written to rather than replaced."""
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target, False
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", str(target))
    return target, not stat.S_ISREG(mode)


@contextmanager
def atomic_path(target: str | Path):
    """Yield a temp path beside ``target``; on success it replaces ``target``, on error it is removed.

    Where ``target`` is (or links to) a device or FIFO, the yielded path is that device itself."""
    target, in_place = _written_through(Path(target))
    if in_place:
        yield target
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_parts(target)
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".part", dir=target.parent)
    os.close(fd)
    try:
        yield Path(temp)
        os.chmod(temp, 0o644)
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def read_regular(path: str | Path, limit: int = -1) -> bytes:
    """The bytes of ``path`` (at most ``limit``), which must be a regular file (links are followed): a
    folder, FIFO, socket or device is an OSError, found without waiting on it (a FIFO would block)."""
    mode = os.stat(path).st_mode  # never blocks, whatever the file is
    if stat.S_ISDIR(mode):
        what = "a folder, not a module file" if str(path).endswith(".yaml") else "a folder, not a file"
        raise IsADirectoryError(errno.EISDIR, what, str(path))
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "not a regular file (a FIFO, socket or device)", str(path))
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as stream:
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):  # swapped for something else since the stat
            raise OSError(errno.EINVAL, "not a regular file (a FIFO, socket or device)", str(path))
        return stream.read(limit)


def atomic_write_bytes(target: str | Path, data: bytes) -> None:
    with atomic_path(target) as temp:
        temp.write_bytes(data)


def atomic_write_text(target: str | Path, text: str) -> None:
    atomic_write_bytes(target, text.encode("utf-8"))
