"""The job's scratch directory: ``EXECUTE/dir_<n>``, owned by the job's user, removed after.

HTCondor gives every job a fresh directory under EXECUTE (``_CONDOR_SCRATCH_DIR``), holding
the job ad and the machine ad the job may read, and deletes it when the job leaves the
machine. The starter itself only creates, lists, measures and removes it (as root that
touches nothing through the job's links); the job's files are copied in and out by the shim
as the job's user. A startd passes its ``Spares``: the directory then comes from the last
job of the same user, emptied, and goes back there after (spares.py), which the job cannot
tell from a new one.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from .identity import JobUser
from .plan import STDERR_NAME, STDOUT_NAME

if TYPE_CHECKING:
    from .spares import Spares

__all__ = ["JOB_AD_NAME", "MACHINE_AD_NAME", "Sandbox", "remove_tree"]

JOB_AD_NAME = ".job.ad"  # _CONDOR_JOB_AD
MACHINE_AD_NAME = ".machine.ad"  # _CONDOR_MACHINE_AD
_NOT_OUTPUT = frozenset({JOB_AD_NAME, MACHINE_AD_NAME, STDOUT_NAME, STDERR_NAME})
_MAX_DIRS = 100_000
_HELD: dict[str, set[int]] = {}  # an execute directory -> its dir_<n> this process holds


class Sandbox:
    """One job's scratch directory and the state of its files before the job ran. Its
    path is kept as text: a job's start and end make no path objects (``path`` makes
    one for its callers)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        user: JobUser,
        spares: Spares | None = None,
        kept: dict[str, int] | None = None,
    ) -> None:
        self.where = os.fspath(path)
        self.user = user
        self._spares = spares
        self._kept = kept or {}  # the ad files a spare brought: name -> inode number
        self._before: dict[str, tuple[int, int, int]] = {}

    @property
    def path(self) -> Path:
        return Path(self.where)

    @classmethod
    def create(
        cls, execute_dir: str | os.PathLike[str], user: JobUser, spares: Spares | None = None
    ) -> Sandbox:
        """A new ``dir_<n>`` (the lowest free n) under ``execute_dir``, mode 0700, owned by
        the job's user: one of ``spares`` when it has one for the user. OSError when the
        machine's execute directory cannot be used."""
        execute = os.path.abspath(execute_dir)  # the job and the shim get absolute paths
        held = _HELD.setdefault(execute, set())
        for number in range(1, _MAX_DIRS):
            if number in held:  # this process's: known without listing the directory
                continue
            path = f"{execute}/dir_{number}"
            try:
                kept = spares.take(user.uid, path) if spares is not None else None
                if kept is None:
                    _make(path)
            except FileExistsError:  # another starter's, or left by an earlier run
                continue
            held.add(number)
            if kept is None and user.switch:
                os.chown(path, user.uid, user.gid)
            return cls(path, user, spares, kept)
        raise FileExistsError(f"{execute}: no free dir_<n> below {_MAX_DIRS}")

    def write_ads(self, job: bytes, machine: bytes | None) -> tuple[str, str | None]:
        """The job ad and the machine ad (when there is one), in the old syntax as
        ``write_old`` gives them, written for the job to read; their paths. An ad file a
        spare brought that has no ad this time is removed."""
        job_path = self.write_ad(JOB_AD_NAME, job)
        machine_path = self.write_ad(MACHINE_AD_NAME, machine) if machine is not None else None
        for name in self._kept:
            _clear(f"{self.where}/{name}")
        self._kept.clear()
        return job_path, machine_path

    def write_ad(self, name: str, ad: bytes) -> str:
        """Write an ad's text in the old format (as ``condor_q -l`` prints it) for the job
        to read.

        Created exclusively and without following links: the directory already belongs to
        the job's user, whose other processes must not get a root starter to write elsewhere.
        A spare's file is written over in place, once it proves to be the same plain file."""
        path = f"{self.where}/{name}"
        text = memoryview(ad)
        size = len(text)
        reopened = self._reopen(name)
        if reopened is None:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            before = 0
        else:
            fd, before = reopened
        try:  # the bytes as they are: a text stream costs four more system calls a file
            if self.user.switch and reopened is None:
                os.fchown(fd, self.user.uid, self.user.gid)
            while text:
                text = text[os.write(fd, text) :]
            if before > size:  # cut what a longer last ad left beyond this one
                os.ftruncate(fd, size)
        finally:
            os.close(fd)
        return path

    def _reopen(self, name: str) -> tuple[int, int] | None:
        """A spare's ad file ``name`` opened for writing, and its size, when it is still
        the plain file the spare kept (the last job's processes may have replaced it); else
        whatever is there is removed, and None. Opened without waiting, as a FIFO would
        make it."""
        inode = self._kept.pop(name, None)
        if inode is None:
            return None
        path = f"{self.where}/{name}"
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            fd = None
        if fd is not None:
            info = os.fstat(fd)
            if stat.S_ISREG(info.st_mode) and info.st_nlink == 1 and info.st_ino == inode:
                return fd, info.st_size
            os.close(fd)
        _clear(path)
        return None

    def snapshot(self) -> None:
        """Remember the top-level files as the job will first see them."""
        self._before = self._top_files()

    def changed_files(self) -> list[str]:
        """Top-level regular files created or modified since ``snapshot`` (HTCondor's
        automatic output list), without the starter's own files."""
        return sorted(
            name
            for name, state in self._top_files().items()
            if name not in _NOT_OUTPUT and self._before.get(name) != state
        )

    def disk_usage_kib(self) -> int:
        """The bytes in the sandbox (apparent sizes, links not followed), in KiB rounded up."""
        return _kib(apparent_bytes(self.where))

    def remove(self, *, measure: bool = False) -> int | None:
        """The sandbox is gone: kept as a spare, or removed. ``measure``: its
        ``disk_usage_kib`` as it was, found while it is emptied (one pass over it, not
        two: a short job's exit makes both); a sandbox that could not be made a spare
        after all, part emptied, is measured as it was left."""
        held = None if self._spares is None else self._spares.keep(self.where, self.user.uid)
        if held is None:
            if measure:
                held = apparent_bytes(self.where)
            remove_tree(self.where)
        parent, _, name = self.where.rpartition("/")
        number = name.removeprefix("dir_")
        if number.isdigit():
            _HELD.get(parent, set()).discard(int(number))
        return _kib(held) if measure and held is not None else None

    def _top_files(self) -> dict[str, tuple[int, int, int]]:
        files = {}
        for entry in os.scandir(self.where):
            if entry.is_file(follow_symlinks=False):
                state = entry.stat(follow_symlinks=False)
                files[entry.name] = (state.st_mtime_ns, state.st_size, state.st_ino)
        return files


def apparent_bytes(path: str) -> int:
    """The apparent sizes of everything under the directory ``path`` (links not
    followed; 0 for what cannot be read, or is gone while we look)."""
    total = 0
    pending = [path]
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:  # removed or unreadable while we looked
            continue
        for entry in entries:
            try:
                total += entry.stat(follow_symlinks=False).st_size
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
            except OSError:
                continue
    return total


def _kib(size: int) -> int:
    return (size + 1023) // 1024


def remove_tree(path: str | os.PathLike[str]) -> None:
    """Remove a directory tree (without following links, even as root), also one whose job
    took its own write permissions away (only root is above those)."""
    if not os.path.lexists(path):
        return
    try:
        shutil.rmtree(path)
    except PermissionError:
        if os.geteuid() == 0:  # never chmod by path as root: a link could redirect it
            raise
        _open_up(str(path))
        shutil.rmtree(path)


def _make(path: str) -> None:
    """``path`` made, mode 0700, and the execute directory above it when it is missing
    (looked for only then: a look at every start locks the directory every time)."""
    try:
        os.mkdir(path, 0o700)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.mkdir(path, 0o700)


def _clear(path: str) -> None:
    """Remove whatever ``path`` names now (a file, a link, a directory tree), if anything."""
    try:
        os.unlink(path)
    except IsADirectoryError:
        remove_tree(path)
    except FileNotFoundError:
        pass


def _open_up(path: str) -> None:
    os.chmod(path, 0o700)
    for entry in os.scandir(path):
        if entry.is_dir(follow_symlinks=False):
            _open_up(entry.path)
