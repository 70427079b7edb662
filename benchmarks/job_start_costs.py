"""Where a live pool's job starts spend the machine, beside a bare spawn-and-reap loop.

``benchmarks/live_pool.py`` gives the rate of job starts and its ratio to a bare loop
(goal: at least half). This script says what bounds that rate: between the 10% and 90%
marks of a run of ``/bin/true`` jobs on 32 slots it reads the CPU each part of the
machine used per job (the pool's event loop thread, the pool's other threads, the starter
process, the jobs themselves, the rest of the machine) and the time the cores stood idle,
with the voluntary and forced context switches of the pool and the starter; then the same
figures for the bare loop of ``live_pool.py``, run right after on the same machine.

The rate is two cores' worth of time divided by busy plus idle time per job: a part's
share of that sum is what cutting it could give back.

With ``--calls`` it runs the pool once more with the steps of ``call_costs/`` timed
inside it and prints each step's CPU per call and per job (whole run; the instrumented
run's rate is lower than the plain one's).

Run: ``python benchmarks/job_start_costs.py [--jobs N] [--slots N] [--calls]`` (Linux: it
reads /proc). The pool runs in a temporary directory on a free loopback port.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from unittest.mock import patch

import psutil
from live_pool import bare_spawn_rate, finished_marks, starter_processes, starts_pool

TICKS = os.sysconf("SC_CLK_TCK")


def machine() -> tuple[float, float]:
    """Seconds all cores were busy and idle (iowait counted as idle) since boot."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields) - idle) / TICKS, idle / TICKS


def switches(pid: int) -> tuple[int, int]:
    """Voluntary and forced context switches of all of ``pid``'s threads."""
    voluntary = forced = 0
    for status in glob.glob(f"/proc/{pid}/task/*/status"):
        try:
            with open(status) as lines:
                for text in lines:
                    if text.startswith("voluntary_ctxt_switches"):
                        voluntary += int(text.split()[1])
                    elif text.startswith("nonvoluntary_ctxt_switches"):
                        forced += int(text.split()[1])
        except OSError:  # a thread that ended meanwhile
            continue
    return voluntary, forced


def sample(daemons: psutil.Process) -> dict[str, float]:
    """Every counter this script reads, at one moment."""
    times = daemons.cpu_times()
    loop = next(t for t in daemons.threads() if t.id == daemons.pid)
    voluntary, forced = switches(daemons.pid)
    figures = {
        "pool": times.user + times.system,
        "loop": loop.user_time + loop.system_time,
        "starter": 0.0,
        "jobs": 0.0,
        "pool switches": voluntary + forced,
        "pool forced": forced,
        "starter switches": 0,
        "starter forced": 0,
    }
    for starter in starter_processes(daemons):
        used = starter.cpu_times()
        figures["starter"] += used.user + used.system
        figures["jobs"] += used.children_user + used.children_system
        voluntary, forced = switches(starter.pid)
        figures["starter switches"] += voluntary + forced
        figures["starter forced"] += forced
    figures["busy"], figures["idle"] = machine()
    figures["wall"] = time.perf_counter()
    return figures


def pool_run(root: Path, count: int, slots: int) -> tuple[float, dict[str, float]]:
    """The pool's rate between the 10% and 90% marks and each figure per job there."""
    with starts_pool(root, count, slots) as (directory, submit):
        daemons = psutil.Process(int((directory / "master.pid").read_text()))
        submit()
        marks = finished_marks(directory, count, (0.1, 0.9), lambda: sample(daemons))
    (first, before), (last, after) = marks[0.1], marks[0.9]
    jobs = last - first
    per_job = {name: (after[name] - before[name]) / jobs for name in before}
    return 1 / per_job["wall"], per_job


def bare_run(count: int, width: int) -> tuple[float, dict[str, float]]:
    """live_pool.py's bare loop, ``width`` at a time, with the same figures."""
    busy, idle = machine()
    mine = os.times()
    rate = bare_spawn_rate(count, width)
    end, now_busy, now_idle = os.times(), *machine()
    own = end.user + end.system - mine.user - mine.system
    children = end.children_user + end.children_system - mine.children_user - mine.children_system
    return rate, {
        "loop": own / count,
        "jobs": children / count,
        "busy": (now_busy - busy) / count,
        "idle": (now_idle - idle) / count,
    }


def call_costs(root: Path, count: int, slots: int) -> None:
    """A run with the pool's steps timed inside it (call_costs/sitecustomize.py)."""
    out = root / "calls"
    out.mkdir()
    here = str(Path(__file__).resolve().parent / "call_costs")
    path = os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")]))
    with patch.dict(os.environ, {"PYTHONPATH": path, "FAIRPOOL_CALL_COSTS": str(out)}):
        rate, _ = pool_run(root, count, slots)  # the pool inherits both
    totals: dict[str, list[int]] = {}
    missing: list[str] = []
    for found in out.glob("*.json"):  # the pool's process (it writes at its exit)
        written = json.loads(found.read_text())
        totals.update(written["steps"])
        missing += written["missing"]
    if not totals:
        raise SystemExit("the pool wrote no call costs")
    if missing:
        print(f"steps the code no longer has (call_costs/sitecustomize.py): {', '.join(missing)}")
    print(f"the pool's steps, timed inside it ({count:,} jobs, {rate:,.0f} /s with the timing)")
    print(f"  {'step':<40}{'us per call':>12}{'calls per job':>15}{'us per job':>12}")
    for name, (nanoseconds, calls) in sorted(totals.items(), key=lambda item: -item[1][0]):
        per_call = nanoseconds / calls / 1000
        print(
            f"  {name:<40}{per_call:12.1f}{calls / count:15.2f}{nanoseconds / count / 1000:12.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=6000, help="jobs the pool runs")
    parser.add_argument("--slots", type=int, default=32)
    parser.add_argument("--calls", action="store_true", help="time the pool's steps in it")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="fairpool-costs-"))
    try:
        if args.calls:
            call_costs(root, args.jobs, args.slots)
            return
        rate, cost = pool_run(root, args.jobs, args.slots)
        bare, base = bare_run(min(args.jobs, 4000), args.slots)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    rows = [
        ("the pool's event loop", cost["loop"], base["loop"]),  # the bare loop's own process
        ("the pool's other threads", cost["pool"] - cost["loop"], None),
        ("the starter process", cost["starter"], None),
        ("the jobs", cost["jobs"], base["jobs"]),
        (
            "the rest of the machine",
            cost["busy"] - cost["pool"] - cost["starter"] - cost["jobs"],
            base["busy"] - base["loop"] - base["jobs"],
        ),
        ("all cores busy", cost["busy"], base["busy"]),
        ("all cores idle", cost["idle"], base["idle"]),
    ]
    print(f"job starts of /bin/true on {args.slots} slots, between the 10% and 90% marks")
    print(f"  the pool {rate:,.0f} /s, a bare loop {bare:,.0f} /s: ratio {rate / bare:.2f}")
    print(f"  {'ms of CPU per job':<28}{'pool':>8}{'bare loop':>12}")
    for name, ours, theirs in rows:
        other = f"{theirs * 1000:12.3f}" if theirs is not None else ""
        print(f"  {name:<28}{ours * 1000:8.3f}{other}")
    print(
        f"  context switches per job: the pool {cost['pool switches']:.1f}"
        f" ({cost['pool forced']:.1f} forced), the starter {cost['starter switches']:.1f}"
        f" ({cost['starter forced']:.1f} forced); load average {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
