"""The simulator's speed at real scale, each figure beside its goal (issue 21).

Stories (each runs ``fairpool simulate`` in a fresh process; the figure is that process's
CPU time, user + system, since the machine is shared and wall time depends on who else
runs; its peak memory is its maximum resident set):

* ``two-users``: the seed's two-user story with each user submitting 100,000 jobs at
  once (A at 0 h, B at 48 h; 100 one-core slots, 120 simulated hours, 60 s cycles, run
  times uniform in 5-15 minutes). Goal: under 60 s.
* ``month``: 30 days of 10,000 one-core slots and 1,000,000 jobs from 20 users (Poisson
  arrivals, exponential run times sized for 90 % load), 60 s cycles. Goal: under 3
  minutes. ``--days`` shortens it (jobs and arrival rate scale with it, so the load and
  queue lengths are the same); the per-cycle figure is printed either way.
* ``big-queue``: 100,000 one-core slots and 1,000,000 jobs queued at once by 10 users,
  one simulated day at 5-minute cycles (run times exponential, mean 2 h). A figure, no
  goal.
* ``readme``: the README's main job, ``fairpool simulate examples/two_users.toml --out
  DIR`` as a new user runs it (plots and all). Goal: under 30 s.

Run: ``nice python benchmarks/simulate.py [STORY ...] [--days D --slots S --jobs J]`` (all
stories when none is named; ``month`` at 30 days takes the longest; ``make bench`` runs a
small month).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).parent.parent
SLOT = """
Cpus = 1
Memory = 2048
Disk = 100000000
Arch = "X86_64"
OpSys = "LINUX"
HasFileTransfer = true
"""
GOALS = {"two-users": 60.0, "month": 180.0, "big-queue": None, "readme": 30.0}


def _machines(count: int) -> str:
    return f'[[machines]]\ncount = {count}\nname = "n{{n:06d}}"\nad = """{SLOT}"""\n'


def _queued(owner: str, jobs: int, at: str, runtime: str) -> str:
    """``jobs`` jobs submitted at once, 20,000 a submission (MAX_JOBS_PER_SUBMISSION)."""
    per = min(jobs, 20_000)
    text = f'[[jobs]]\nowner = "{owner}"\nat = "{at}"\nruntime = {runtime}\n'
    text += f'count = {jobs // per}\nsubmit = """\nexecutable = /bin/work\nqueue {per}\n"""\n'
    return text


def two_users() -> str:
    text = '[simulation]\nduration = "120h"\nnegotiator_interval = "60s"\n'
    text += 'sample_interval = "10m"\nseed = 1\n'
    text += '[config]\ntext = """\nDEFAULT_PRIO_FACTOR = 1.0\nPRIORITY_HALFLIFE = 86400\n"""\n'
    text += _machines(100)
    uniform = '{ distribution = "uniform", low = "5m", high = "15m" }'
    return text + _queued("A", 100_000, "0h", uniform) + _queued("B", 100_000, "48h", uniform)


LOAD = 0.9  # the share of the pool the month story keeps busy


def month(days: float, slots: int, jobs: int | None, users: int = 20) -> str:
    """``jobs`` over the ``days`` (default: 1,000,000 a month, pro rata)."""
    seconds = days * 86400
    jobs = round(1_000_000 * days / 30) if jobs is None else jobs
    rate = jobs / seconds / users  # per user, per second
    mean = LOAD * slots * seconds / jobs  # run time that keeps the pool that busy
    text = f'[simulation]\nduration = {seconds}\nnegotiator_interval = "60s"\n'
    text += 'sample_interval = "1h"\nseed = 1\n' + _machines(slots)
    for user in range(users):
        text += f'[[jobs]]\nowner = "u{user:02d}"\nrate = {rate}\n'
        text += f'runtime = {{ distribution = "exponential", mean = {mean} }}\n'
        text += 'submit = """\nexecutable = /bin/work\nqueue\n"""\n'
    return text


def big_queue() -> str:
    text = '[simulation]\nduration = "24h"\nnegotiator_interval = "5m"\n'
    text += 'sample_interval = "1h"\nseed = 1\n' + _machines(100_000)
    exponential = '{ distribution = "exponential", mean = "2h" }'
    return text + "".join(_queued(f"u{u}", 100_000, "0h", exponential) for u in range(10))


def measure(args: list[str], work: Path) -> tuple[float, float, float, dict]:
    """Run ``fairpool simulate ARGS --out work/out``: its CPU seconds, wall seconds, peak
    MiB (that process's own, from wait4), and summary.json."""
    began = time.perf_counter()
    command = [sys.executable, "-m", "fairpool.cli", "simulate", *args, "--out", str(work / "out")]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, cwd=ROOT)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - began
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)}: exit status {child.returncode}")
    cpu = usage.ru_utime + usage.ru_stime
    summary = json.loads((work / "out" / "summary.json").read_text())
    return cpu, wall, usage.ru_maxrss / 1024, summary


def run(story: str, days: float, slots: int, jobs: int | None) -> None:
    with tempfile.TemporaryDirectory(prefix="fairpool-bench-") as tmp:
        work = Path(tmp)
        if story == "readme":
            args = ["examples/two_users.toml"]
        else:
            text = {"two-users": two_users, "big-queue": big_queue}.get(story)
            scenario = work / "scenario.toml"
            scenario.write_text(text() if text else month(days, slots, jobs))
            args = [str(scenario), "--quiet", "--no-plots"]
        cpu, wall, peak, summary = measure(args, work)
    pool = summary["pool"]
    goal = GOALS[story]
    label = f"{story} ({days:g} days, {slots:,} slots)" if story == "month" else story
    verdict = "no goal"
    if story == "month" and (days, slots, jobs) != (30.0, 10_000, None):
        verdict = "shortened: the goal is for the full 30 days"
    elif goal is not None:
        verdict = f"goal < {goal:g} s: {'met' if cpu < goal else 'MISSED'}"
    print(
        f"{label}: {cpu:.1f} s CPU ({wall:.1f} s wall), {verdict}; peak {peak:.0f} MiB; "
        f"{pool['jobs']['submitted']:,} jobs, {pool['jobs']['completed']:,} completed; "
        f"{pool['cycles']:,} cycles ({pool['cycles_negotiated']:,} negotiated), "
        f"{cpu / max(pool['cycles'], 1) * 1000:.1f} ms CPU per cycle in all",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stories", nargs="*", choices=list(GOALS), default=[])
    parser.add_argument("--days", type=float, default=30.0, help="length of the month story")
    parser.add_argument("--slots", type=int, default=10_000, help="slots of the month story")
    parser.add_argument("--jobs", type=int, help="jobs of the month story over its --days")
    args = parser.parse_args()
    for story in args.stories or list(GOALS):
        run(story, args.days, args.slots, args.jobs)


if __name__ == "__main__":
    main()
