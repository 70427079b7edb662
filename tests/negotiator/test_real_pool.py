"""Negotiation over the real OSPool sample: partitionable, dynamic and static slots with
the pool's own START, Requirements and Rank expressions, at the time it was sampled."""

import gzip
from collections import Counter
from pathlib import Path

import pytest

from builders import make_job
from cycles import PARAMS, cycle
from fairpool.classad import parse_ads, requirements_met
from fairpool.sim.dryrun import pool_time

SAMPLE = Path(__file__).parent.parent / "data" / "ads" / "ospool" / "pool_sample.ads.gz"


@pytest.fixture(scope="module")
def pool():
    with gzip.open(SAMPLE, "rt") as handle:
        ads = list(parse_ads(handle))
    slots = [ad for ad in ads if ad.eval("MyType") == "Machine"]
    return slots, pool_time(slots)


def _jobs():
    """Four users, several job shapes, the Requirements condor_submit would write."""
    base = (
        '(TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Disk >= RequestDisk)'
        " && (TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= RequestCpus)"
        " && (TARGET.HasFileTransfer)"
    )
    jobs = []
    shapes = {
        "alice": dict(RequestCpus=1, RequestMemory=2048, RequestDisk=1_000_000),
        "bob": dict(RequestCpus=4, RequestMemory=8192, RequestDisk=4_000_000),
        "carol": dict(RequestCpus=1, RequestMemory=1024, RequestDisk=500_000, RequestGPUs=1),
        "dan": dict(RequestCpus=1, RequestMemory=900_000, RequestDisk=100),
    }
    for cluster, (owner, shape) in enumerate(sorted(shapes.items()), 1):
        for proc in range(40):
            jobs.append(
                make_job(owner, cluster, proc)
                .set(ProjectName="Chemistry", **shape)
                .requirements(
                    base + (" && TARGET.GPUs >= RequestGPUs" if "RequestGPUs" in shape else "")
                )
                .build()
            )
    return jobs


def test_every_match_satisfies_both_requirements(pool):
    slots, now = pool
    jobs = _jobs()
    counts, result = cycle(slots, jobs, params=PARAMS, now=now)
    by_name = {s.eval("Name"): s for s in slots}
    by_job = {f"{j.eval('ClusterId')}.{j.eval('ProcId')}": j for j in jobs}
    assert result.matches, "the sample has free resources that plain jobs fit"
    for match in result.matches:
        slot, job = by_name[match.slot], by_job[match.job]
        assert requirements_met(job, slot, now=now), match
        assert requirements_met(slot, job, now=now), match
    assert max(Counter(m.slot for m in result.matches).values()) == 1  # no slot twice
    assert "dan" not in counts  # 900 GB of memory fits nowhere
    assert {r.reason for r in result.rejections if r.submitter.startswith("dan")} == {
        "no match found"
    }
    assert result.stats.total_slots == len(slots) == 143
