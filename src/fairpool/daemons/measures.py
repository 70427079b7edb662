"""What the live startd measures on its machine for its policy (startd.md §14): the
``inputs(t)`` the policy engine reads at each evaluation pass.

* ``LoadAvg``: the machine's one-minute load average;
* ``CondorLoadAvg``: the part of it the pool's own jobs make (the cores their processes
  kept busy since the last pass, as psutil counts them);
* ``KeyboardIdle`` and ``ConsoleIdle``: seconds since a terminal was last used (the access
  time of the console and pseudo-terminals, as HTCondor's startd reads them), or since
  the machine booted when none is;
* ``ClockMin`` and ``ClockDay``: the local time of day in minutes and the day of week.

``TotalCondorLoadAvg`` and ``TotalLoadAvg`` are published as well.
"""

from __future__ import annotations

import glob
import os
import time
from collections.abc import Callable, Iterable

import psutil

__all__ = ["MachineMeasures"]

_TERMINALS = ("/dev/console", "/dev/tty[0-9]*", "/dev/pts/[0-9]*")


class MachineMeasures:
    """Measurements of this machine; ``job_pids()`` names the jobs' processes."""

    def __init__(self, job_pids: Callable[[], Iterable[int]]) -> None:
        self.job_pids = job_pids
        self._boot = psutil.boot_time()
        self._cpu: dict[int, tuple[float, float]] = {}  # pid -> (cpu seconds, when)
        self._last: tuple[int, dict[str, object]] | None = None

    def __call__(self, t: int) -> dict[str, object]:
        """The measurements at ``t`` (taken once per second: the startd asks at every
        event as well as at its passes)."""
        if self._last is not None and self._last[0] == t:
            return self._last[1]
        values = self._measure(t)
        self._last = (t, values)
        return values

    def _measure(self, t: int) -> dict[str, object]:
        load = os.getloadavg()[0]
        condor = self._job_load()
        idle = self._keyboard_idle(float(t))
        local = time.localtime(t)
        return {
            "LoadAvg": round(load, 3),
            "TotalLoadAvg": round(load, 3),
            "CondorLoadAvg": round(condor, 3),
            "TotalCondorLoadAvg": round(condor, 3),
            "KeyboardIdle": idle,
            "ConsoleIdle": idle,
            "ClockMin": local.tm_hour * 60 + local.tm_min,
            "ClockDay": (local.tm_wday + 1) % 7,  # Sunday is 0, as in HTCondor
        }

    def _keyboard_idle(self, now: float) -> int:
        latest = self._boot
        for pattern in _TERMINALS:
            for path in glob.glob(pattern):
                try:
                    latest = max(latest, os.stat(path).st_atime)
                except OSError:
                    continue
        return max(0, int(now - latest))

    def _job_load(self) -> float:
        """Cores the jobs' processes (and their descendants) used since the last call."""
        now = time.monotonic()
        load, seen = 0.0, {}
        jobs = list(self.job_pids())
        if not jobs:
            self._cpu = {}
            return 0.0
        children: dict[int, list[int]] = {}
        for process in psutil.process_iter(["ppid"]):  # one scan of /proc for every job
            children.setdefault(process.info["ppid"], []).append(process.pid)
        for pid in jobs:
            try:
                used = sum(sum(psutil.Process(p).cpu_times()[:2]) for p in _family(pid, children))
            except psutil.Error:
                continue
            before = self._cpu.get(pid)
            if before is not None and now > before[1]:
                load += max(0.0, used - before[0]) / (now - before[1])
            seen[pid] = (used, now)
        self._cpu = seen
        return load


def _family(pid: int, children: dict[int, list[int]]) -> list[int]:
    family, pending = [], [pid]
    while pending:
        current = pending.pop()
        family.append(current)
        pending.extend(children.get(current, ()))
    return family
