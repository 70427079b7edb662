"""When jobs arrive and what their ads say: the submissions of ``[[jobs]]`` sources and
the jobs of ``[[traces]]``, as job ads with the run time the simulator will give them.

Clusters are numbered in the order submissions happen (the clusters of one submission, one
per trace job), as successive condor_submit calls would. A ``[[jobs]]`` description whose
ads depend on nothing but the cluster number and the submission time is expanded once: its
later submissions are copies with those changed (checked against a second expansion), and
the copies share their expressions (equal ones across descriptions, too), which the
vector evaluator reuses between jobs.

Random draws come from named streams (``random.Random(f"{seed}:arrivals:{source}")`` and
``...:runtime:...``), so adding a source never changes another source's draws.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from ..classad import ClassAd, Expr
from ..classad.scope import NOT_CONST
from ..submit import parse_submit
from .queue_file import QueueSpec, queued_jobs
from .traces import TraceJob, read_htcondor, read_swf
from .workload import JobSpec, TraceSpec

__all__ = ["JobFactory", "NewJob", "read_trace_jobs", "submission_times", "trace_jobs"]

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
        self._copies: dict[int, list[ClassAd] | None] = {}  # [[jobs]] index -> template
        self._shared: dict[Expr, Expr] = {}  # one object per expression text

    def rng(self, stream: str) -> random.Random:
        if stream not in self._rngs:
            self._rngs[stream] = random.Random(f"{self.seed}:{stream}")
        return self._rngs[stream]

    def first_submission(self, spec: JobSpec) -> list[ClassAd]:
        """The ads one submission of the description gives (clusters from 1, time 0),
        without submitting them: what sim/unmatchable.py checks before the run."""
        template = self._template_of(spec)
        return template if template is not None else self._expand(spec, 1, 0)

    def _template_of(self, spec: JobSpec) -> list[ClassAd] | None:
        if spec.index not in self._copies:
            self._copies[spec.index] = self._copyable(spec)
        return self._copies[spec.index]

    def submit(self, spec: JobSpec, now: float) -> list[NewJob]:
        """One submission of a ``[[jobs]]`` description at ``now``."""
        template = self._template_of(spec)
        if template is None:
            ads = self._expand(spec, self.next_cluster, int(now))
        else:
            ads = [_moved(ad, self.next_cluster, int(now)) for ad in template]
        self.next_cluster = max(_cluster_of(ad) for ad in ads) + 1 if ads else self.next_cluster
        draws = self.rng(f"runtime:{spec.index}")
        return [NewJob(ad, spec.runtime.sample(draws), spec.label) for ad in ads]

    def queue(self, spec: QueueSpec, now: float) -> list[NewJob]:
        """A queue file's jobs, submitted at ``now`` (sim/queue_file.py)."""
        rng = self.rng(f"runtime:queue{spec.index}")
        jobs = queued_jobs(spec, self.next_cluster, now, rng)
        self.next_cluster = max((_cluster_of(ad) for ad, _ in jobs), default=0) + 1
        return [NewJob(ad, runtime, spec.label) for ad, runtime in jobs]

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

    def _expand(self, spec: JobSpec, cluster: int, qdate: int) -> list[ClassAd]:
        return spec.description.job_ads(
            owner=spec.owner, cluster_id=cluster, qdate=qdate, uid_domain=self.domain
        )

    def _copyable(self, spec: JobSpec) -> list[ClassAd] | None:
        """The description's ads at cluster 1 and time 0, if copies of them are what it
        gives at another cluster and time (else None: each submission is expanded)."""
        template = self._expand(spec, 1, 0)
        probe = self._expand(spec, 4099, 1_700_000_000)
        copies = [_moved(ad, 4099, 1_700_000_000) for ad in template]
        same = _Same()
        if len(copies) != len(probe) or not all(map(same.ads, copies, probe)):
            return None
        shared: dict[int, Expr] = {}  # a cluster's jobs share most expressions: hash each once
        for ad in template:
            for name in ad:
                expr = ad.lookup(name)
                if expr.const is NOT_CONST:
                    found = shared.get(id(expr))
                    if found is None:
                        found = shared[id(expr)] = self._shared.setdefault(expr, expr)
                    ad.insert_expr(name, found)
        return template

    def _cluster(self) -> int:
        cluster = self.next_cluster
        self.next_cluster += 1
        return cluster


def _moved(template: ClassAd, first_cluster: int, qdate: int) -> ClassAd:
    """A copy of a template ad (clusters from 1, time 0) for clusters from
    ``first_cluster`` submitted at ``qdate``."""
    ad = template.copy()
    ad.update(
        {
            "ClusterId": first_cluster - 1 + _cluster_of(template),
            "QDate": qdate,
            "EnteredCurrentStatus": qdate,
        }
    )
    return ad


class _Same:
    """Whether two ads print alike (``str``), comparing expression by expression: the
    jobs of one expansion share their expression objects, so most are the same object
    and only the others are printed."""

    def __init__(self) -> None:
        self.known: dict[tuple[int, int], bool] = {}
        self.keep: list[Expr] = []  # keep ids valid while known

    def ads(self, a: ClassAd, b: ClassAd) -> bool:
        names = list(a)
        return names == list(b) and all(self.exprs(a.lookup(n), b.lookup(n)) for n in names)

    def exprs(self, a: Expr, b: Expr) -> bool:
        if a is b:
            return True
        if a.const is not NOT_CONST or b.const is not NOT_CONST:
            return type(a.const) is type(b.const) and repr(a.const) == repr(b.const)
        key = (id(a), id(b))
        found = self.known.get(key)
        if found is None:
            found = self.known[key] = str(a) == str(b)
            self.keep += (a, b)
        return found


def _cluster_of(ad: ClassAd) -> int:
    cluster = ad.eval("ClusterId")
    return cluster if type(cluster) is int else 0


def submission_times(spec: JobSpec, rng: random.Random, horizon: float) -> Iterator[float]:
    """Offsets from the start (seconds) of each submission of a count or rate source."""
    made, when = 0, spec.at
    while (spec.count is None or made < spec.count) and when <= horizon:
        yield when
        made += 1
        if spec.rate is not None:
            when += rng.expovariate(spec.rate)


def trace_jobs(spec: TraceSpec) -> list[TraceJob]:
    """The trace's jobs in submission order (stable: file order breaks ties), as read when
    the scenario was loaded (``read_trace_jobs``)."""
    return list(spec.jobs) if spec.jobs is not None else read_trace_jobs(spec)


def read_trace_jobs(spec: TraceSpec) -> list[TraceJob]:
    """The trace file's jobs in submission order; a bad line is an ``InputError``."""
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
