"""Files from outside, read and written without trusting their names or their contents.

Three guarantees, each one place: a reader opens regular files only (a FIFO would hang
it, ``/dev/zero`` would fill memory), so it stats before it opens, opens without
blocking and checks again on the open descriptor; a reader holds at most one bounded
line in memory and stops at the record's limits (spec/RECORDS.md); and a path that a
controller sends (``load``, ``record``) stays inside the folder the operator named
(``xactika engine --files DIR``): no absolute path, no ``..``, no symbolic link
followed anywhere below that folder, since every step opens the next with O_NOFOLLOW.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from xactika.protocol.notation.untrusted import escape, is_safe
from xactika.protocol.records.textform import MAX_LINE, MAX_RECORD_BYTES, RecordError

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


class RecordTooLarge(RecordError):
    """Input over the record's limits; ``line`` is where the reader stopped."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a file"


def _refuse(mode: int) -> OSError:
    return OSError(errno.EINVAL, f"not a regular file but {_kind(mode)}")


def _open_checked(name: str, dir_fd: int | None, *, follow: bool) -> IO[bytes]:
    """Stat, open without blocking, and stat the descriptor: regular files only."""
    before = os.stat(name, dir_fd=dir_fd, follow_symlinks=follow)
    if not stat.S_ISREG(before.st_mode):
        raise _refuse(before.st_mode)
    flags = os.O_RDONLY | _NONBLOCK | _CLOEXEC | (0 if follow else _NOFOLLOW)
    fd = os.open(name, flags, dir_fd=dir_fd)
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode):  # swapped between the stat and the open
            raise _refuse(now.st_mode)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def open_regular(path: str | os.PathLike[str]) -> IO[bytes]:
    """Open a file the user named for reading; OSError (with a strerror) unless regular."""
    try:
        return _open_checked(os.fspath(path), None, follow=True)
    except ValueError:  # a NUL in the name
        raise OSError(errno.EINVAL, "the name holds a NUL byte") from None


def bounded_lines(fh: IO[bytes]) -> Iterator[bytes]:
    """A stream's lines, never more than one bounded line in memory.

    A line over MAX_LINE is yielded once, cut, and nothing after it (the reader reports
    it); past MAX_RECORD_BYTES bytes, RecordTooLarge. (Readers count the header and
    event lines against MAX_RECORD_LINES; blank and comment lines cost only bytes.)
    """
    total = 0
    lineno = 0
    while True:
        raw = fh.readline(MAX_LINE + 1)
        if not raw:
            return
        lineno += 1
        total += len(raw)
        if total > MAX_RECORD_BYTES:
            raise RecordTooLarge(lineno, f"a record holds at most {MAX_RECORD_BYTES} bytes")
        yield raw
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            return  # too long: the reader says so, and reads no further


class PathRefused(OSError):
    """A path a controller may not use; ``strerror`` says why."""

    def __init__(self, why: str) -> None:
        super().__init__(errno.EACCES, why)


class Folder:
    """The one folder whose files a controller may name; nothing outside it is reachable."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.path.realpath(os.fspath(path))
        if not os.path.isdir(self.path):
            raise OSError(errno.ENOTDIR, f"{self.path!r} is not a folder")

    def parts(self, rel: str) -> list[str]:
        """The steps of a relative path inside the folder; PathRefused for any other."""
        if not rel or not is_safe(rel):
            raise PathRefused(f"bad file name {escape(rel, 80)!r}")
        if rel.startswith(("/", "\\")) or os.path.isabs(rel):
            raise PathRefused("absolute paths are refused: name a file inside the files "
                              "folder")
        parts = [p for p in rel.split("/") if p not in ("", ".")]
        if ".." in parts:
            raise PathRefused("'..' is refused: name a file inside the files folder")
        if not parts or rel.endswith("/"):
            raise PathRefused(f"{escape(rel, 80)!r} names a folder, not a file")
        return parts

    @contextmanager
    def place(self, rel: str) -> Iterator[tuple[int, str]]:
        """(descriptor of the file's folder, file name), walked without following links."""
        parts = self.parts(rel)
        fd = os.open(self.path, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
        try:
            for step in parts[:-1]:
                try:
                    nxt = os.open(step, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC,
                                  dir_fd=fd)
                except OSError as exc:
                    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                        raise PathRefused(f"{escape(step, 80)!r} is not a folder (symbolic "
                                          "links are not followed)") from None
                    raise
                os.close(fd)
                fd = nxt
            yield fd, parts[-1]
        finally:
            os.close(fd)

    def open_read(self, rel: str) -> IO[bytes]:
        """A regular file inside the folder, opened for reading; OSError otherwise."""
        with self.place(rel) as (fd, name):
            try:
                return _open_checked(name, fd, follow=False)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise PathRefused("a symbolic link: links are not followed") from None
                raise
