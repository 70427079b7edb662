"""The LCG trace replayed end to end (examples/lcg_replay.toml): 187,520 jobs over 13 days
on 2,000 one-core slots with the 28 VOs as accounting groups, negotiating every 60 s.

Prints the wall time, the simulated-to-real ratio, the jobs completed and the core-hours
delivered against the core-hours the trace records for those jobs (conservation: each
job's run time is counted once). ``--max-jobs N`` replays only the first N jobs (to measure
a slice); ``--interval`` changes the negotiator interval.
Run: ``nice python benchmarks/lcg_replay.py [--max-jobs N]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import progress

from fairpool.sim.arrivals import trace_jobs
from fairpool.sim.runner import simulate
from fairpool.sim.scenario import load_scenario

SCENARIO = Path(__file__).resolve().parent.parent / "examples" / "lcg_replay.toml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-jobs", type=int, default=None)
    parser.add_argument("--interval", type=float, default=None, help="seconds")
    args = parser.parse_args()
    scenario = load_scenario(SCENARIO)
    trace = dataclasses.replace(scenario.traces[0], max_jobs=args.max_jobs)
    simulation = scenario.simulation
    if args.interval:
        simulation = dataclasses.replace(simulation, negotiator_interval=args.interval)
    scenario = dataclasses.replace(scenario, traces=(trace,), simulation=simulation)
    recorded = {n: j.runtime * j.cpus / 3600 for n, j in enumerate(trace_jobs(trace), 1)}
    began = time.perf_counter()
    run = simulate(scenario, progress.show)
    wall = time.perf_counter() - began
    records = list(run.recorder.jobs.values())
    done = [r for r in records if r.end is not None and not r.removed]
    delivered = sum(r.good_seconds for r in done) / 3600
    expected = sum(recorded[int(r.id.split(".")[0])] for r in done)
    print(file=sys.stderr)
    print(f"jobs submitted: {len(records)}, completed: {len(done)}")
    print(f"core-hours delivered by completed jobs: {delivered:.3f} (trace: {expected:.3f})")
    print(f"cycles: {run.recorder.cycles} ({run.recorder.cycles_run} negotiated)")
    print(
        f"simulated: {simulation.duration / 86400:.1f} days; wall time: {wall:.1f} s; "
        f"simulated/real: {simulation.duration / wall:.0f}x"
    )


if __name__ == "__main__":
    main()
