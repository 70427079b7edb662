"""What running the startd policy costs the simulator: one pool and workload (simulate.py's
scenario, sized for 30-minute jobs), run with dedicated machines (the default for a policy
that cannot act) and with every machine's startd running (``[simulation] startd =
"always"``), side by side. The two runs give the same results
(tests/sim/test_startd_policy.py); the ratio is the price of the state machine, which
evaluates every claimed slot every POLLING_INTERVAL (5 s).

Prints both wall times, their ratio, and the evaluation passes (estimated from the load)
with the cost of one. Run: ``python benchmarks/startd_policy.py [--machines M --hours H]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from simulate import LOAD, month

from fairpool.sim.runner import simulate
from fairpool.sim.scenario import parse_scenario

MEAN_RUN = 1800  # seconds: the jobs' mean run time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machines", type=int, default=100)
    parser.add_argument("--hours", type=float, default=24.0)
    args = parser.parse_args()
    seconds = args.hours * 3600
    jobs = round(LOAD * args.machines * seconds / MEAN_RUN)  # simulate.py's workload
    text = month(args.hours / 24, args.machines, jobs)
    scenario = parse_scenario(text, "<benchmark>")
    always = dataclasses.replace(
        scenario, simulation=dataclasses.replace(scenario.simulation, startd="always")
    )
    walls = {}
    for name, variant in (("dedicated", scenario), ("startd", always)):
        began = time.perf_counter()
        run = simulate(variant)
        walls[name] = time.perf_counter() - began
        completed = sum(1 for r in run.recorder.jobs.values() if r.end is not None)
        print(f"{name:>9}: {walls[name]:7.1f} s wall, {completed} jobs completed")
    passes = LOAD * args.machines * seconds / 5  # claimed slots are polled every 5 s
    extra = walls["startd"] - walls["dedicated"]
    ratio = walls["startd"] / walls["dedicated"]
    print(f"{args.machines} machines, {args.hours:g} h: startd/dedicated = {ratio:.1f}x")
    print(f"about {passes:,.0f} evaluation passes, {extra / passes * 1e6:.0f} µs each")


if __name__ == "__main__":
    main()
