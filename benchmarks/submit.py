"""Building job ads from a submit file: one submission of 100,000 jobs, the live pool's
``fairpool submit``. Goal: 100,000 ads in under 1.5 s, so that the whole submission (ads,
schedd, store) stays under 10 s.

Three submit files, each queueing ``--jobs`` jobs in one cluster: the headline (``arguments
= $(Process)``, ``output = out.$(Process)``), $(Process) in four commands, and a ``queue
... from`` list of items (a file written to a temporary directory). A +attribute that
differs per job costs a ClassAd parse per job on top (not measured here).

For each: the time of ``SubmitDescription.job_ads`` (the median of ``--repeat`` runs) and
ads per second, beside the per-job reference path (``job_ads(reference=True)``, one run)
measured in the same run, and a check that both give the same ads (one in 997 compared).
Times are wall clock; on a shared machine compare the ratio. Run: ``python
benchmarks/submit.py [--jobs N --repeat R]``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from fairpool.classad import write_new
from fairpool.submit import parse_submit

GOAL = 1.5  # seconds for 100,000 ads
HEADLINE = """\
executable = /bin/true
arguments = $(Process)
output = out.$(Process)
request_cpus = 1
queue {jobs}
"""
SEVERAL = """\
executable = /bin/true
arguments = -n $(Process) --cluster $(Cluster)
output = out.$(Cluster).$(Process)
error = err.$(Cluster).$(Process)
transfer_input_files = in/$(Process).dat
log = job.$(Cluster).log
request_cpus = 1
queue {jobs}
"""
ITEMS = """\
executable = /bin/true
arguments = $(file) $(n)
output = out.$(Process)
request_cpus = 1
queue file, n from {items}
"""


def timed(build) -> tuple[float, list]:
    began = time.perf_counter()
    ads = build()
    return time.perf_counter() - began, ads


def measure(label: str, text: str, jobs: int, repeat: int) -> tuple[float, float]:
    """Print one line for ``text``; return the bulk path's median time and the
    reference path's time."""
    description = parse_submit(text, f"<{label}>")
    build = {"owner": "alice", "cluster_id": 1, "qdate": 1_700_000_000}
    times = []
    for _ in range(repeat):
        seconds, ads = timed(lambda: description.job_ads(**build))
        times.append(seconds)
        del ads
    fast = statistics.median(times)
    _, ads = timed(lambda: description.job_ads(**build))
    reference, expected = timed(lambda: description.job_ads(**build, reference=True))
    assert len(ads) == len(expected) == jobs
    for ad, want in zip(ads[::997], expected[::997], strict=True):
        assert write_new(ad) == write_new(want), "the bulk and reference ads differ"
    del ads, expected
    print(
        f"{label:<28} {fast:7.2f} s ({jobs / fast:9,.0f} ads/s)   "
        f"reference {reference:7.2f} s ({jobs / reference:7,.0f} ads/s)   "
        f"{reference / fast:5.1f}x"
    )
    return fast, reference


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    jobs = args.jobs
    with tempfile.TemporaryDirectory() as scratch:
        items = Path(scratch) / "items.txt"
        items.write_text("".join(f"input{i}.dat {i % 7}\n" for i in range(jobs)))
        cases = [
            ("queue N, $(Process)", HEADLINE.format(jobs=jobs)),
            ("$(Process) in several keys", SEVERAL.format(jobs=jobs)),
            ("queue ... from a list", ITEMS.format(items=items)),
        ]
        figures = [measure(label, text, jobs, args.repeat) for label, text in cases]
    fast, reference = figures[0]
    goal = GOAL * jobs / 100_000
    print(
        f"{jobs:,} job ads in {fast:.2f} s (goal {goal:.2f} s; reference path {reference:.2f} s"
        f" in this run): {jobs / fast:,.0f} ads/s"
    )


if __name__ == "__main__":
    main()
