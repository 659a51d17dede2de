"""The one way a record reaches the disk (its headers are made in assemble.py).

Every writer of records (the engine's ``record``, ``selfplay --record``, the REPL's
``save``, the match runner, the table server, ``convert``) goes through here, so each
record appears whole or not at all: it is written to a temporary file in its own
folder, forced to disk, renamed over its name, and the folder is forced too; a crash at
any moment leaves the old file or the whole new one (spec/RECORDS.md). A writer that must
never replace a record (the table server's signed ones) publishes with ``replace=False``:
the last step then takes the name only if nothing has it (a hard link, which fails where
the name exists, instead of the rename).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from typing import TextIO

DATE_FORMAT = "%Y-%m-%dT%H:%M:%SZ"  # the ``date`` header: UTC to the second


class Staged:
    """A temporary file beside ``path``, put in its place by :meth:`publish`.

    With ``dir_fd``, ``path`` is a name in that folder (protocol/records/files.py
    confines the engine's files that way). ``mode`` is as for ``os.open`` (the umask
    applies).
    """

    def __init__(self, path: str | os.PathLike[str], *, dir_fd: int | None = None,
                 mode: int = 0o666) -> None:
        path = os.fspath(path)
        folder, name = (None, path) if dir_fd is not None else os.path.split(path)
        self._dir = dir_fd if dir_fd is not None else os.open(
            folder or ".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        self._own_dir = dir_fd is None
        self.name = name
        self.tmp: str | None = f".{name}.{os.urandom(6).hex()}.tmp"
        try:
            fd = os.open(self.tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                         | getattr(os, "O_CLOEXEC", 0), mode, dir_fd=self._dir)
        except BaseException:
            self.tmp = None
            self._release_dir()
            raise
        self.file: TextIO = os.fdopen(fd, "w", encoding="utf-8", newline="\n")

    @property
    def published(self) -> bool:
        return self.tmp is None

    def publish(self, *, replace: bool = True) -> None:
        """Force the file to disk, rename it over the name, force the folder; with
        ``replace=False``, FileExistsError (and nothing changed) where the name is taken.

        The file stays open: a streaming writer goes on appending to the record."""
        if self.tmp is None:
            return
        self.file.flush()
        os.fsync(self.file.fileno())
        if replace:
            os.replace(self.tmp, self.name, src_dir_fd=self._dir, dst_dir_fd=self._dir)
        else:
            self._take_name()
        self.tmp = None
        os.fsync(self._dir)
        self._release_dir()

    def _take_name(self) -> None:
        """Give the temporary file the name only if no file has it: link, then unlink the
        temporary name (a folder without hard links: an exclusive placeholder, renamed over)."""
        assert self.tmp is not None
        try:
            os.link(self.tmp, self.name, src_dir_fd=self._dir, dst_dir_fd=self._dir,
                    follow_symlinks=False)
        except OSError as exc:  # FileExistsError where the name is taken
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
                raise
            os.close(os.open(self.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600,
                             dir_fd=self._dir))  # FileExistsError where it is taken
            os.replace(self.tmp, self.name, src_dir_fd=self._dir, dst_dir_fd=self._dir)
            return
        os.unlink(self.tmp, dir_fd=self._dir)

    def abandon(self) -> None:
        """Close and remove the temporary file; the name keeps what it had."""
        self.file.close()
        if self.tmp is not None:
            try:
                os.unlink(self.tmp, dir_fd=self._dir)
            except OSError:
                pass
            self.tmp = None
        self._release_dir()

    def _release_dir(self) -> None:
        if self._own_dir:
            self._own_dir = False
            os.close(self._dir)


def write_record_file(path: str | os.PathLike[str], text: str, *,
                      before_rename: Callable[[], None] | None = None,
                      dir_fd: int | None = None, mode: int = 0o666,
                      replace: bool = True) -> None:
    """Put ``text`` at ``path`` atomically and durably (a reader never sees half a file).

    ``before_rename`` runs once the text is on disk and before it takes the name: the
    match runner pins the record in its manifest there (spec/TAMPER.md). With
    ``replace=False`` an existing file at ``path`` is kept and FileExistsError raised.
    """
    staged = Staged(path, dir_fd=dir_fd, mode=mode)
    try:
        staged.file.write(text)
        staged.file.flush()
        os.fsync(staged.file.fileno())
        if before_rename is not None:
            before_rename()
        staged.publish(replace=replace)
    except BaseException:
        staged.abandon()
        raise
    staged.file.close()


def write_new_record(folder: str | os.PathLike[str], stem: str, text: str, *,
                     mode: int = 0o666) -> str:
    """Write ``text`` as ``STEM.log`` in ``folder``, or, where that name is taken (a file
    nobody expected there), as ``STEM.2.log``, ``STEM.3.log``...: never over a file. A
    file that holds ``text`` already is that record (the same game's, written again
    after a crash between the record and the journal's note of it). The name used."""
    for n in range(1, 1000):
        name = f"{stem}.log" if n == 1 else f"{stem}.{n}.log"
        path = os.path.join(folder, name)
        try:
            write_record_file(path, text, mode=mode, replace=False)
        except FileExistsError:
            if _holds(path, text):
                return path
            continue
        return path
    raise FileExistsError(errno.EEXIST, f"{stem}.log and 998 more names are taken", folder)


def _holds(path: str, text: str) -> bool:
    try:
        with open(path, encoding="utf-8", newline="") as found:
            return found.read(len(text) + 1) == text
    except (OSError, UnicodeDecodeError):
        return False
