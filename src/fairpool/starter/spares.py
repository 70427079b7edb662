"""Spare scratch directories: a finished job's sandbox, emptied but for its job ad and
machine ad, kept under a hidden name in EXECUTE for the next job of the same user.

A short job's sandbox costs the filesystem more than anything else its start does: a
directory and two files made, then removed again. Where ext4 runs without a journal, every
inode allocation skips the inodes freed in the last half minute, so at a hundred jobs a
second each one costs a tenth of a millisecond or more, and rewriting a file from empty
frees and allocates its blocks again. A spare is renamed into place as ``dir_<n>`` (never
over an existing name) and its two ad files are rewritten where they lie: no inode and no
block is allocated or freed.

What a job sees is unchanged: a new ``dir_<n>``, mode 0700 and its own, holding only the
two ads; ``dir_<n>`` is gone once the job has left. Only the same user's jobs get a spare:
a process the last job left running (one that left its session) may still hold the
directory open, which is harmless between two jobs of one user, who can enter each other's
sandboxes anyway. Spares are this process's alone (its pid is in their names); a startd
starting after a crash removes the ones it finds (leftovers.py).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import itertools
import os
import stat
import threading

from .sandbox import JOB_AD_NAME, MACHINE_AD_NAME, apparent_bytes, remove_tree

__all__ = ["SPARE_PREFIX", "Spares"]

SPARE_PREFIX = ".spare_"
LIMIT = 256  # spares kept per user: more than a machine's slots
_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
_libc = ctypes.CDLL(None, use_errno=True)
_renameat2 = getattr(_libc, "renameat2", None)


class Spares:
    """The spare directories of one execute directory, by user; safe to use from the
    starter's threads at once (a job's sandbox is kept from the thread that finishes it)."""

    def __init__(self, execute_dir: str | os.PathLike[str], limit: int = LIMIT) -> None:
        self.directory = os.path.abspath(execute_dir)
        self.limit = limit
        self.usable = _renameat2 is not None  # renaming without replacing needs renameat2
        self._free: dict[int, list[tuple[str, dict[str, int]]]] = {}
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)
        self._pid = os.getpid()  # in the spares' names (a system call each time)

    def take(self, uid: int, target: str | os.PathLike[str]) -> dict[str, int] | None:
        """Rename a spare of ``uid``'s to ``target``; the inode numbers of the ad files it
        holds, by name (None: no spare, ``target`` made by nobody). FileExistsError when
        ``target`` exists (the spare stays for the next try)."""
        with self._lock:
            free = self._free.get(uid)
            if not free or not self.usable:
                return None
            spare, kept = free.pop()
        try:
            _rename_noreplace(spare, target)
        except FileExistsError:
            with self._lock:
                free.append((spare, kept))
            raise
        except OSError as error:  # gone meanwhile, or a filesystem that cannot do it
            if error.errno in (errno.EINVAL, errno.ENOSYS):
                self.usable = False
            self._discard(spare)
            return None
        return kept

    def keep(self, path: str | os.PathLike[str], uid: int) -> int | None:
        """Empty the sandbox ``path`` of ``uid``'s job but for its ad files and keep it as
        a spare; the apparent size in bytes of what it held (what
        ``Sandbox.disk_usage_kib`` counts, found on the way), or None when it is not kept
        (the caller removes it): not a directory of that user's with mode 0700 any more,
        or enough spares kept already."""
        with self._lock:
            if not self.usable or len(self._free.get(uid, ())) >= self.limit:
                return None
        try:
            info = os.lstat(path)
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != uid:
                return None
            if stat.S_IMODE(info.st_mode) != 0o700:
                return None
            kept, held = _empty(path, uid)
            spare = f"{self.directory}/{SPARE_PREFIX}{self._pid}_{next(self._numbers)}"
            os.rename(path, spare)  # a name of this process's own: nothing is there
        except OSError:
            return None
        with self._lock:
            self._free.setdefault(uid, []).append((spare, kept))
        return held

    def clear(self) -> None:
        """Remove every spare (the startd stops)."""
        with self._lock:
            spares = [spare for free in self._free.values() for spare, _ in free]
            self._free.clear()
        for spare in spares:
            self._discard(spare)

    @staticmethod
    def _discard(spare: str) -> None:
        with contextlib.suppress(OSError):
            remove_tree(spare)


def _rename_noreplace(source: str, target: str | os.PathLike[str]) -> None:
    """rename(2) that fails with EEXIST where ``target`` exists (plain rename would put a
    directory in the place of an empty one another starter has just made)."""
    assert _renameat2 is not None
    done = _renameat2(
        _AT_FDCWD, os.fsencode(source), _AT_FDCWD, os.fsencode(target), _RENAME_NOREPLACE
    )
    if done != 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number), str(target))


def _empty(path: str | os.PathLike[str], uid: int) -> tuple[dict[str, int], int]:
    """Remove everything in ``path`` but the ad files that are still the job's plain files
    (one link each); the inode numbers of those, by name, and the apparent size in bytes
    of all it held. Entries are removed through a descriptor of the directory, never by
    following a link."""
    kept, held = {}, 0
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        for entry in os.scandir(fd):
            info = entry.stat(follow_symlinks=False)
            held += info.st_size
            if entry.name in (JOB_AD_NAME, MACHINE_AD_NAME) and _plain(info, uid):
                kept[entry.name] = info.st_ino
            elif stat.S_ISDIR(info.st_mode):
                inside = os.path.join(path, entry.name)
                held += apparent_bytes(inside)
                remove_tree(inside)
            else:
                os.unlink(entry.name, dir_fd=fd)
    finally:
        os.close(fd)
    return kept, held


def _plain(info: os.stat_result, uid: int) -> bool:
    return stat.S_ISREG(info.st_mode) and info.st_nlink == 1 and info.st_uid == uid
