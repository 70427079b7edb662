"""The job's scratch directory: ``EXECUTE/dir_<n>``, owned by the job's user, removed after.

HTCondor gives every job a fresh directory under EXECUTE (``_CONDOR_SCRATCH_DIR``), holding
the job ad and the machine ad the job may read, and deletes it when the job leaves the
machine. The starter itself only creates, lists, measures and removes it (as root that
touches nothing through the job's links); the job's files are copied in and out by the shim
as the job's user.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ..classad import ClassAd, write_old
from .identity import JobUser
from .plan import STDERR_NAME, STDOUT_NAME

__all__ = ["JOB_AD_NAME", "MACHINE_AD_NAME", "Sandbox", "remove_tree"]

JOB_AD_NAME = ".job.ad"  # _CONDOR_JOB_AD
MACHINE_AD_NAME = ".machine.ad"  # _CONDOR_MACHINE_AD
_NOT_OUTPUT = frozenset({JOB_AD_NAME, MACHINE_AD_NAME, STDOUT_NAME, STDERR_NAME})
_MAX_DIRS = 100_000


class Sandbox:
    """One job's scratch directory and the state of its files before the job ran."""

    def __init__(self, path: Path, user: JobUser) -> None:
        self.path = path
        self.user = user
        self._before: dict[str, tuple[int, int, int]] = {}

    @classmethod
    def create(cls, execute_dir: str | os.PathLike[str], user: JobUser) -> Sandbox:
        """A new ``dir_<n>`` (the lowest free n) under ``execute_dir``, mode 0700, owned by
        the job's user. OSError when the machine's execute directory cannot be used."""
        execute = Path(execute_dir).absolute()  # the job and the shim get absolute paths
        if not execute.is_dir():  # a look, not a mkdir: that locks the directory every time
            execute.mkdir(parents=True, exist_ok=True)
        taken = {entry.name for entry in os.scandir(execute)}
        for number in range(1, _MAX_DIRS):
            if f"dir_{number}" in taken:
                continue
            path = execute / f"dir_{number}"
            try:
                path.mkdir(mode=0o700)
            except FileExistsError:  # another starter took it between the scan and now
                continue
            if user.switch:
                os.chown(path, user.uid, user.gid)
            return cls(path, user)
        raise FileExistsError(f"{execute}: no free dir_<n> below {_MAX_DIRS}")

    def write_ad(self, name: str, ad: ClassAd) -> str:
        """Write an ad in the old format (as ``condor_q -l`` prints it) for the job to read.

        Created exclusively and without following links: the directory already belongs to
        the job's user, whose other processes must not get a root starter to write elsewhere."""
        path = self.path / name
        text = memoryview(write_old(ad).encode())
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        try:  # the bytes as they are: a text stream costs four more system calls a file
            if self.user.switch:
                os.fchown(fd, self.user.uid, self.user.gid)
            while text:
                text = text[os.write(fd, text) :]
        finally:
            os.close(fd)
        return str(path)

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
        total = 0
        pending = [str(self.path)]
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
        return (total + 1023) // 1024

    def remove(self) -> None:
        remove_tree(self.path)

    def _top_files(self) -> dict[str, tuple[int, int, int]]:
        files = {}
        for entry in os.scandir(self.path):
            if entry.is_file(follow_symlinks=False):
                state = entry.stat(follow_symlinks=False)
                files[entry.name] = (state.st_mtime_ns, state.st_size, state.st_ino)
        return files


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


def _open_up(path: str) -> None:
    os.chmod(path, 0o700)
    for entry in os.scandir(path):
        if entry.is_dir(follow_symlinks=False):
            _open_up(entry.path)
