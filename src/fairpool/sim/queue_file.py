"""An initial queue read from a real schedd: ``[[jobs]] file = "..."``, job ads as
``condor_q -l`` prints them (old syntax; or JSON, ``condor_q -json``; gzip when the name
ends in ``.gz``).

The queue's idle and running jobs are submitted at ``at`` (default 0) as idle jobs, in
the file's order, with their own ads: owner, accounting group, requests, Requirements,
Rank, priorities and anything else they carry. The pool's machines start idle (the slots
a job ran on are not the simulated ones), so a running job is queued again, as after a
schedd restart with no claims kept. Held, completed and removed jobs are left out.
Cluster numbers are given anew (jobs of one cluster stay together); ``QDate`` becomes
the submission time.

A job's run time comes from the attribute ``runtime_attribute`` names (seconds; for
example ``MaxWallTime`` or an attribute the pool's jobs set), and, for jobs without a
positive number there, from ``runtime`` (a duration or a distribution). Without either,
the file is refused, naming the first job without a run time.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ..classad import ClassAd, ClassAdSyntaxError, parse_ads
from ..errors import InputError
from ..schedd.queue import IDLE, RUNNING, SUSPENDED
from .durations import Runtime, parse_runtime
from .table import Table

__all__ = ["QUEUE_KEYS", "QueueSpec", "parse_queue", "queued_jobs"]

QUEUE_KEYS = ("file", "at", "runtime", "runtime_attribute")
_DROPPED = (
    "RemoteHost",
    "RemoteSlotID",
    "ClaimId",
    "PublicClaimId",
    "StartdIpAddr",
    "StartdPrincipal",
    "ShadowBday",
    "JobCurrentStartDate",
    "JobCurrentStartExecutingDate",
    "RemoteWallClockTime",
    "LastJobLeaseRenewal",
    "MachineAttrName0",
)


@dataclass(frozen=True)
class QueueSpec:
    """One ``[[jobs]]`` table that names a queue file: the jobs, read when the scenario
    loads (so a bad file is refused before anything runs)."""

    index: int
    label: str
    at: float
    ads: tuple[ClassAd, ...] = field(repr=False)
    runtime: Runtime | None
    runtime_attribute: str | None


def parse_queue(table: Table, index: int) -> QueueSpec:
    table.allow(QUEUE_KEYS)
    path = table.path("file")
    text = table.read(path, "the job ads")
    try:
        ads = [ad for ad in parse_ads(text, name=str(path)) if _status(ad) in _QUEUED]
    except (ClassAdSyntaxError, InputError) as err:
        raise table.fail("file")(str(err).splitlines()[0]) from None
    if not ads:
        raise table.fail("file")(f"{path}: no idle or running jobs in the file")
    runtime = None
    if table.has("runtime"):
        runtime = parse_runtime(table.get("runtime"), table.fail("runtime"))
    attribute = table.text("runtime_attribute", None)
    if runtime is None and attribute is None:
        raise table.fail("runtime")("expected runtime, runtime_attribute or both")
    if runtime is None:
        for ad in ads:
            if _seconds(ad, attribute) is None:
                name = f"{ad.eval('ClusterId')}.{ad.eval('ProcId')}"
                raise table.fail("runtime_attribute")(
                    f"job {name} has no positive {attribute}; give runtime for such jobs"
                )
    return QueueSpec(index, table.name, table.duration("at", 0.0), tuple(ads), runtime, attribute)


_QUEUED = (IDLE, RUNNING, SUSPENDED)


def _status(ad: ClassAd) -> object:
    return ad.eval("JobStatus") if "JobStatus" in ad else IDLE


def _seconds(ad: ClassAd, attribute: str | None) -> float | None:
    if attribute is None or attribute not in ad:
        return None
    value = ad.eval(attribute)
    if type(value) not in (int, float) or not 0 < value < 1e15:
        return None
    return float(value)


def queued_jobs(
    spec: QueueSpec, first_cluster: int, now: float, rng: random.Random
) -> list[tuple[ClassAd, float]]:
    """The queue's jobs as submitted at ``now`` (clusters numbered from
    ``first_cluster``), each with its run time."""
    clusters: dict[object, int] = {}
    jobs = []
    for ad in spec.ads:
        job = ad.copy()
        cluster = clusters.setdefault(job.eval("ClusterId"), first_cluster + len(clusters))
        for name in _DROPPED:
            job.pop(name, None)
        job.update(
            {
                "ClusterId": cluster,
                "JobStatus": IDLE,
                "QDate": int(now),
                "EnteredCurrentStatus": int(now),
            }
        )
        runtime = _seconds(ad, spec.runtime_attribute)
        if runtime is None:
            assert spec.runtime is not None  # parse_queue refused a job without one
            runtime = spec.runtime.sample(rng)
        jobs.append((job, runtime))
    return jobs
