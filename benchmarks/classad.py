"""ClassAd speed, fairpool beside HTCondor's own library (classad2), measured in one run.

Three figures, each as time per operation for both libraries and their ratio:

1. parsing the OSPool sample (205 real ads in old syntax, 480 KB);
2. evaluating a typical job's Requirements against 20,000 slot ads (the OSPool sample's
   143 slot ads, renamed copies);
3. symmetric matching of 20,000 job/slot pairs (both Requirements, with the OSPool slots'
   real START and WithinResourceLimits expressions).

classad2 is called from Python, as a Python program would use it, in htcondor mode
(HTCondor's configuration loaded), which is how HTCondor's daemons evaluate ClassAds.
Run: ``python benchmarks/classad.py [--pairs N] [--repeat R]``. Times are the best of R
runs; absolute times on a shared machine are noise, the ratios are the figures.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import time
from pathlib import Path

os.environ.setdefault("CONDOR_CONFIG", "/dev/null")
os.environ["TZ"] = "UTC"

import classad2
import htcondor2  # noqa: F401  (switches classad2 to htcondor mode, as daemons run)

from fairpool.classad import ClassAd, parse_ads, requirements_met, symmetric_match
from fairpool.classad.formats import clear_cache

SAMPLE = Path(__file__).parent.parent / "tests" / "data" / "ads" / "ospool" / "pool_sample.ads.gz"
JOB = """
MyType = "Job"
Owner = "alice"
User = "alice@ospool.example"
ProjectName = "Chemistry"
ClusterId = 1
ProcId = 0
RequestCpus = 1
RequestMemory = 2048
RequestDisk = 1048576
JobUniverse = 5
DiskUsage = 1
ImageSize = 1
NumCkpts = 0
Rank = 0.0
Requirements = (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") \
&& (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) \
&& (TARGET.Cpus >= RequestCpus) && (TARGET.HasFileTransfer)
""".replace("\\\n", "")


SAMPLE_TIME = 1_783_286_000  # when the OSPool sample was taken (its LastHeardFrom)
_GLIDEIN_TIMES = re.compile(r"^(GLIDEIN_To(?:Retire|Die) = )(\d+)$", re.MULTILINE)


def best_of(repeat: int, fn) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def sample_text() -> str:
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as handle:
        return handle.read()


def slot_texts(text: str, count: int, now: float) -> list[str]:
    """``count`` slot ads in old syntax: the sample's Machine ads, renamed copies, with the
    glideins' retirement times moved as far past ``now`` as they were past the sample."""
    shift = int(now) - SAMPLE_TIME
    blocks = [b for b in text.split("\n\n") if '\nMyType = "Machine"' in "\n" + b]
    out = []
    for i in range(count):
        block = blocks[i % len(blocks)].replace('\nName = "', f'\nName = "copy{i}.', 1)
        out.append(_GLIDEIN_TIMES.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + shift}", block))
    return out


def report(label: str, ours: float, theirs: float, unit: str) -> None:
    print(
        f"{label:<46} fairpool {ours:10.2f} {unit}   classad2 {theirs:10.2f} {unit}   "
        f"ratio {ours / theirs:5.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    text = sample_text()
    now = time.time()

    ours = best_of(args.repeat, lambda: (clear_cache(), list(parse_ads(text, fmt="old"))))
    theirs = best_of(args.repeat, lambda: list(classad2.parseAds(text, classad2.ParserType.Old)))
    report("parse the OSPool sample (205 ads)", ours * 1e3, theirs * 1e3, "ms ")

    slots_text = slot_texts(text, args.pairs, now)
    our_slots = [next(parse_ads(t, fmt="old")) for t in slots_text]
    their_slots = [classad2.parseOne(t, classad2.ParserType.Old) for t in slots_text]
    our_job = next(parse_ads(JOB, fmt="old"))
    their_job = classad2.parseOne(JOB, classad2.ParserType.Old)
    n = len(our_slots)

    ours = best_of(args.repeat, lambda: [requirements_met(our_job, s, now=now) for s in our_slots])
    theirs = best_of(args.repeat, lambda: [s.matches(their_job) for s in their_slots])
    report(f"job Requirements against {n} slots", ours / n * 1e6, theirs / n * 1e6, "us/ad")

    ours = best_of(args.repeat, lambda: [symmetric_match(our_job, s, now=now) for s in our_slots])
    theirs = best_of(args.repeat, lambda: [their_job.symmetricMatch(s) for s in their_slots])
    report(f"symmetric match of {n} job/slot pairs", ours / n * 1e6, theirs / n * 1e6, "us/pair")

    matched_ours = sum(symmetric_match(our_job, s, now=now) for s in our_slots)
    matched_theirs = sum(their_job.symmetricMatch(s) for s in their_slots)
    print(f"pairs that match: fairpool {matched_ours}, classad2 {matched_theirs}")
    assert isinstance(our_job, ClassAd)


if __name__ == "__main__":
    main()
