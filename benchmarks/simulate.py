"""The simulator's speed on a big pool: 30 simulated days of 10,000 one-core slots and
1,000,000 jobs from 20 users (Poisson arrivals, exponential run times sized for 90 % load),
negotiating every 60 s. Goal (issue 7): under 10 minutes on one core.

Prints the wall time, the simulated-to-real ratio, and the cycles (negotiated and skipped
by the shortcuts of sim/shortcuts.py). ``--slots``, ``--jobs`` and ``--days`` scale it
(``--jobs`` is the number over the whole ``--days``); the figure of record is the default.
Run: ``nice python benchmarks/simulate.py [--days D --slots S --jobs J]``.
"""

from __future__ import annotations

import argparse
import sys
import time

import progress

from fairpool.sim.runner import simulate
from fairpool.sim.scenario import parse_scenario

USERS = 20
LOAD = 0.9
SLOT = """
Cpus = 1
Memory = 2048
Disk = 100000000
Arch = "X86_64"
OpSys = "LINUX"
HasFileTransfer = true
"""


def scenario_text(slots: int, jobs: int, days: float) -> str:
    """The benchmark's scenario: ``jobs`` arrivals over ``days`` on ``slots`` slots."""
    seconds = days * 86400
    rate = jobs / seconds / USERS  # per user, per second
    mean = LOAD * slots * seconds / jobs  # run time that keeps the pool LOAD busy
    text = f'[simulation]\nduration = {seconds}\nnegotiator_interval = "60s"\n'
    text += 'sample_interval = "1h"\nseed = 1\n'
    text += f'[[machines]]\ncount = {slots}\nname = "n{{n:05d}}"\nad = """{SLOT}"""\n'
    for user in range(USERS):
        text += f'[[jobs]]\nowner = "u{user:02d}"\nrate = {rate}\n'
        text += f'runtime = {{ distribution = "exponential", mean = {mean} }}\n'
        text += 'submit = """\nexecutable = /bin/work\nqueue\n"""\n'
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slots", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=1_000_000)
    parser.add_argument("--days", type=float, default=30.0)
    args = parser.parse_args()
    scenario = parse_scenario(scenario_text(args.slots, args.jobs, args.days), "<benchmark>")
    began = time.perf_counter()
    run = simulate(scenario, progress.show)
    wall = time.perf_counter() - began
    done = sum(1 for r in run.recorder.jobs.values() if r.end is not None)
    print(file=sys.stderr)
    print(f"pool: {args.slots} slots; jobs submitted: {len(run.recorder.jobs)}, completed: {done}")
    print(f"cycles: {run.recorder.cycles} ({run.recorder.cycles_run} negotiated)")
    print(
        f"simulated: {args.days:g} days; wall time: {wall:.1f} s; "
        f"simulated/real: {args.days * 86400 / wall:.1f}x; "
        f"per negotiated cycle: {wall / max(run.recorder.cycles_run, 1):.3f} s"
    )


if __name__ == "__main__":
    main()
