"""Metrics: fairpool's default metric set evaluated over 10,000 slot ads (goal: under 1 s).

The slot ads are the OSPool sample's real slot ads (partitionable, dynamic and static;
GPU slots among them; tests/data/ads/ospool), renamed copies spread over machines of
eight slots, plus a collector, a negotiator, a schedd, submitter and accounting ads.
Evaluation is ``fairpool.monitor.evaluate_metrics`` as ``/metrics`` runs it at each
scrape; the exposition (Prometheus text) is timed apart. Times are the best of R runs,
in wall-clock and in CPU seconds.
Run: ``python benchmarks/metrics.py [--slots N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import gzip
import time
from pathlib import Path

from fairpool.classad import ClassAd, parse_ads
from fairpool.monitor import evaluate_metrics, exposition, load_definitions
from fairpool.monitor.evaluation import MetricSettings

SAMPLE = Path(__file__).parent.parent / "tests" / "data" / "ads" / "ospool" / "pool_sample.ads.gz"
GOAL = 1.0


def pool(count: int) -> list[ClassAd]:
    with gzip.open(SAMPLE, "rt") as handle:
        real = [ad for ad in parse_ads(handle) if ad.get("MyType") == "Machine"]
    ads = []
    for n in range(count):
        ad = real[n % len(real)].copy()
        machine = f"node{n // 8:05d}.example"
        ad["Machine"] = machine
        ad["Name"] = f"slot{n % 8 + 1}@{machine}"
        ad["SlotID"] = n % 8 + 1
        ads.append(ad)
    daemons = [
        {"MyType": "Collector", "Name": "cm", "Machine": "cm.example", "UpdatesTotal": 10**6},
        {"MyType": "Negotiator", "Name": "cm", "Machine": "cm.example",
         "LastNegotiationCycleDuration0": 2.5, "LastNegotiationCycleMatches0": 120,
         "LastNegotiationCycleRejections0": 40,
         "LastNegotiationCycleRejectionsNoMatchFound0": 30,
         "LastNegotiationCycleRejectionsSubmitterLimitExceeded0": 10},
        {"MyType": "Scheduler", "Name": "ap1", "Machine": "ap1.example", "TotalIdleJobs": 900,
         "TotalRunningJobs": 8000, "TotalHeldJobs": 12, "JobsSubmitted": 50000,
         "JobsStarted": 48000, "JobsExited": 40000, "JobsCompleted": 39000},
    ]  # fmt: skip
    for user in range(50):
        name = f"user{user}@ap1.example"
        daemons.append({"MyType": "Submitter", "Name": name, "Machine": "ap1.example",
                        "RunningJobs": 160, "IdleJobs": 18, "HeldJobs": 0})  # fmt: skip
        daemons.append({"MyType": "Accounting", "Name": name, "IsAccountingGroup": False,
                        "Priority": 500.0 + user, "PriorityFactor": 1000.0,
                        "WeightedResourcesUsed": 160.0, "WeightedAccumulatedUsage": 1e6,
                        "SubmitterShare": 0.02, "SubmitterLimit": 200.0})  # fmt: skip
    return ads + [ClassAd(d) for d in daemons]


def best(repeat: int, work) -> tuple[float, float, object]:
    """The best wall time and the best CPU time of ``repeat`` runs, and the result (CPU
    time is the steadier figure on a machine other work shares)."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        started, cpu = time.perf_counter(), time.process_time()
        result = work()
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slots", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    definitions = load_definitions(None)
    ads = pool(args.slots)
    settings = MetricSettings(collector_host="cm.example")
    now = time.time()
    wall, cpu, samples = best(
        args.repeat, lambda: evaluate_metrics(definitions, ads, settings, now)
    )
    text_wall, text_cpu, (text, _) = best(args.repeat, lambda: exposition(samples))
    print(f"{len(definitions)} metric definitions, {args.slots} slot ads + {len(ads) - args.slots}"
          f" daemon ads: {len(samples)} samples, {len(text)} bytes of Prometheus text")  # fmt: skip
    print(f"evaluation: {wall:.3f} s wall, {cpu:.3f} s CPU (goal: under {GOAL:.0f} s)")
    print(f"exposition: {text_wall:.3f} s wall, {text_cpu:.3f} s CPU")


if __name__ == "__main__":
    main()
