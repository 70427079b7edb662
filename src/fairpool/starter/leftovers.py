"""What a crashed startd leaves behind: jobs still running, scratch directories.

The startd records each job's pid and its process start time (psutil's ``create_time``).
After a restart, a pid alone proves nothing: the kernel may have given it to an unrelated
process. The pair does: a pid with the same start time is the same process.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
from collections.abc import Iterable
from pathlib import Path

import psutil

from .sandbox import remove_tree
from .spares import SPARE_PREFIX

__all__ = ["kill_leftover", "remove_stale_sandboxes", "start_time"]

SAME_START = 0.01  # seconds: one clock tick (create_time counts ticks since boot)
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
_TICK = 1_000_000_000 // _CLOCK_TICKS  # nanoseconds
_EDGE = 100_000  # nanoseconds kept from a tick's edges, against two clocks read apart
_boot_time = functools.cache(psutil.boot_time)  # psutil reads all of /proc/stat for it


def start_time(pid: int, between: tuple[int, int] | None = None) -> float:
    """psutil's ``create_time`` of ``pid`` (the kernel's start in clock ticks since boot,
    plus the boot time), from one read of /proc/<pid>/stat: a starter takes it at every
    job start, where psutil would read the file twice and /proc/stat as well.
    OSError when there is no such process.

    ``between``: CLOCK_BOOTTIME nanoseconds read before and after the process was made.
    The kernel counts a process's start in ticks of that clock, so when both fall in one
    tick (a little way from its edges), that tick is the start and nothing is read: the
    first read of a new process's /proc entry costs a tenth of a millisecond."""
    if between is not None:
        first, last = (between[0] - _EDGE) // _TICK, (between[1] + _EDGE) // _TICK
        if first == last:
            return first / _CLOCK_TICKS + _boot_time()
    with open(f"/proc/{pid}/stat", "rb") as stat:
        text = stat.read()
    ticks = int(text[text.rindex(b")") + 2 :].split()[19])  # starttime, the 22nd field
    return ticks / _CLOCK_TICKS + _boot_time()


def kill_leftover(pid: int, create_time: float) -> bool:
    """SIGKILL the job ``pid`` started at ``create_time``, its process group and its
    descendants; False (and nothing sent) when that process no longer exists."""
    try:
        process = psutil.Process(pid)
        if abs(process.create_time() - create_time) > SAME_START:
            return False
        descendants = process.children(recursive=True)
        leads_group = os.getpgid(pid) == pid
    except (psutil.Error, ProcessLookupError):
        return False
    with contextlib.suppress(ProcessLookupError):
        if leads_group:
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
    for child in descendants:  # also those that left the group with setsid
        with contextlib.suppress(psutil.Error):
            child.kill()
    return True


def remove_stale_sandboxes(
    execute_dir: str | os.PathLike[str], keep: Iterable[str | os.PathLike[str]] = ()
) -> list[Path]:
    """Remove every ``dir_<n>`` and spare (spares.py) under ``execute_dir`` except those
    in ``keep`` (the sandboxes of jobs still running); the removed paths, sorted."""
    execute = Path(execute_dir)
    if not execute.is_dir():
        return []
    kept = {Path(path).resolve() for path in keep}
    removed = []
    for path in sorted(execute.iterdir()):
        ours = path.name.startswith(("dir_", SPARE_PREFIX))
        stale = ours and path.resolve() not in kept
        if stale and path.is_dir() and not path.is_symlink():
            remove_tree(path)
            removed.append(path)
    return removed
