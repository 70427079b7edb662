"""The starter's record of the jobs it started, for the startd that starts after a crash.

A file per slot under ``SPOOL/starters``, holding the last job started there: its pid, its
process's start time and its name. The starter writes it in place at every start, right
after the process is made (one ``pwrite`` of a fixed width: no file is made or removed,
no fsync: the processes die with the machine anyway), and never clears it: a restarted
startd that finds the pid gone, or given to a process with another start time, kills
nothing (leftovers.py). A startd starting after a crash reads them all, kills what
still runs, and removes the files.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote, unquote

__all__ = ["Record", "Records", "read_records"]

WIDTH = 128  # bytes a record takes: pid, start time and "cluster.proc" fit with room


class Record(NamedTuple):
    """A job a starter started on ``slot``."""

    slot: str
    pid: int
    create_time: float
    job: str


class Records:
    """The record files of one starter, each kept open once written."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._files: dict[str, int] = {}  # slot -> its file's descriptor
        self._long: set[str] = set()  # slots whose file holds more than WIDTH bytes

    def write(self, slot: str, pid: int, create_time: float, job: str) -> None:
        """``slot`` now runs ``job`` as ``pid``, started at ``create_time``."""
        fd = self._files.get(slot)
        if fd is None:
            path = self.directory / quote(slot, safe="@")
            fd = self._files[slot] = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        line = f"{pid} {create_time!r} {job}\n".encode().ljust(WIDTH)
        os.pwrite(fd, line, 0)
        if len(line) > WIDTH or slot in self._long:  # never for a pid and "cluster.proc"
            os.ftruncate(fd, len(line))  # what a longer record left is cut
            self._long.discard(slot)
            if len(line) > WIDTH:
                self._long.add(slot)

    def close(self) -> None:
        for fd in self._files.values():
            os.close(fd)
        self._files.clear()


def read_records(directory: str | os.PathLike[str], *, remove: bool = False) -> list[Record]:
    """The records under ``directory`` that can be read (``remove``: and the files gone)."""
    found = []
    root = Path(directory)
    if not root.is_dir():
        return found
    for path in sorted(root.iterdir()):
        with contextlib.suppress(OSError, ValueError):
            pid, create_time, job = path.read_text().split()
            found.append(Record(unquote(path.name), int(pid), float(create_time), job))
        if remove:
            with contextlib.suppress(OSError):
                path.unlink()
    return found
