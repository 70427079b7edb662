"""When jobs arrive and what their ads say: the submissions of ``[[jobs]]`` sources and
the jobs of ``[[traces]]``, as job ads with the run time the simulator will give them.

Clusters are numbered in the order submissions happen (one cluster per submission, one per
trace job), as successive condor_submit calls would. Random draws come from named streams
(``random.Random(f"{seed}:arrivals:{source}")`` and ``...:runtime:...``), so adding a
source never changes another source's draws.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from ..classad import ClassAd
from ..submit import parse_submit
from .traces import TraceJob, read_htcondor, read_swf
from .workload import JobSpec, TraceSpec

__all__ = ["JobFactory", "NewJob", "submission_times", "trace_jobs"]

_TRACE_TEMPLATE = "executable = trace\nqueue\n"


@dataclass(frozen=True)
class NewJob:
    """A job ad entering the queue, how long it will run, and the source it came from."""

    ad: ClassAd
    runtime: float
    source: str


class JobFactory:
    """Builds job ads, numbering clusters in submission order."""

    def __init__(self, domain: str, seed: int) -> None:
        self.domain = domain
        self.seed = seed
        self.next_cluster = 1
        self._rngs: dict[str, random.Random] = {}
        self._template = parse_submit(_TRACE_TEMPLATE, "<trace>").job_ads(
            owner="trace", cluster_id=0, qdate=0, uid_domain=domain
        )[0]

    def rng(self, stream: str) -> random.Random:
        if stream not in self._rngs:
            self._rngs[stream] = random.Random(f"{self.seed}:{stream}")
        return self._rngs[stream]

    def submit(self, spec: JobSpec, now: float) -> list[NewJob]:
        """One submission of a ``[[jobs]]`` description at ``now``."""
        cluster = self._cluster()
        ads = spec.description.job_ads(
            owner=spec.owner, cluster_id=cluster, qdate=int(now), uid_domain=self.domain
        )
        draws = self.rng(f"runtime:{spec.index}")
        return [NewJob(ad, spec.runtime.sample(draws), spec.label) for ad in ads]

    def trace_job(self, spec: TraceSpec, job: TraceJob, now: float) -> NewJob:
        """A trace job as a job ad: its user, group and cores."""
        ad = self._template.copy()
        ad.update(
            {
                "ClusterId": self._cluster(),
                "QDate": int(now),
                "EnteredCurrentStatus": int(now),
                "Owner": job.user,
                "User": f"{job.user}@{self.domain}",
                "RequestCpus": job.cpus,
            }
        )
        if job.group:
            ad.update(
                {
                    "AccountingGroup": f"{job.group}.{job.user}",
                    "AcctGroup": job.group,
                    "AcctGroupUser": job.user,
                }
            )
        return NewJob(ad, job.runtime, spec.label)

    def _cluster(self) -> int:
        cluster = self.next_cluster
        self.next_cluster += 1
        return cluster


def submission_times(spec: JobSpec, rng: random.Random, horizon: float) -> Iterator[float]:
    """Offsets from the start (seconds) of each submission of a count or rate source."""
    made, when = 0, spec.at
    while (spec.count is None or made < spec.count) and when <= horizon:
        yield when
        made += 1
        if spec.rate is not None:
            when += rng.expovariate(spec.rate)


def trace_jobs(spec: TraceSpec) -> list[TraceJob]:
    """The trace's jobs in submission order (stable: file order breaks ties)."""
    if spec.format == "swf":
        jobs = read_swf(
            spec.file,
            user=lambda uid: spec.users.get(uid) or spec.user.format(uid=uid),
            group=lambda gid: _group(spec, gid),
            time_scale=spec.time_scale,
        )
    else:
        jobs = (_scaled(job, spec.time_scale) for job in read_htcondor(spec.file))
    ordered = sorted(jobs, key=lambda job: job.submit)
    return ordered[: spec.max_jobs] if spec.max_jobs else ordered


def _group(spec: TraceSpec, gid: int) -> str | None:
    if gid in spec.groups:
        return spec.groups[gid]
    return spec.group.format(gid=gid) if spec.group and gid > 0 else None


def _scaled(job: TraceJob, scale: float) -> TraceJob:
    """A job ad's times scaled; its ``AccountingGroup`` (``group.user``) split back into
    the group, as trace_job puts the user back on."""
    group = job.group
    if group and group.endswith(f".{job.user}"):
        group = group[: -len(job.user) - 1]
    return TraceJob(job.number, job.submit * scale, job.runtime * scale, job.cpus, job.user, group)
