"""Who submits what: submitter names, and each submitter's idle jobs as requests.

A submitter is ``<AccountingGroup or owner>@<domain>`` (seed "Group Accounting"):
``accounting_group_user`` overrides the owner, ``accounting_group`` prefixes it, and a nice
user's jobs go under ``nice-user.<owner>``. Its jobs come in schedd order (job priority
first, then submission time, then cluster and proc); consecutive jobs of the same
autocluster form one request, and a request that finds no slot makes the negotiator skip
the rest of that autocluster for the rest of this submitter's turn (the seed's
cluster-skipping rule, per autocluster as in HTCondor).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter

from ..classad import ClassAd, Expr
from ..classad.match import evaluate, satisfied
from .attribute import attribute
from .autocluster import Signatures

__all__ = [
    "Request",
    "SubmitterQueue",
    "job_id",
    "queues",
    "schedd_order",
    "served",
    "submitter_of",
]

# schedd_order's quick reading of a job's four literals
_ORDER = ("jobprio", "qdate", "clusterid", "procid")
_NUMBERS = frozenset((int, float))
_CONST = attrgetter("const")
_UNDEFINED = Expr("undefined")

IDLE = 1


def submitter_of(job: ClassAd, domain: str) -> str:
    """The accounting name a job is charged to."""
    group = attribute(job, "AccountingGroup") if "AccountingGroup" in job else None
    user = attribute(job, "User") if "User" in job else None
    owner = attribute(job, "Owner") if "Owner" in job else None
    if isinstance(user, str) and "@" in user:
        domain = user.rpartition("@")[2]
        owner = owner if isinstance(owner, str) else user.rpartition("@")[0]
    if isinstance(group, str) and group:
        return f"{group}@{domain}"
    if attribute(job, "NiceUser") is True and isinstance(owner, str):
        return f"nice-user.{owner}@{domain}"
    return f"{owner}@{domain}" if isinstance(owner, str) else f"nobody@{domain}"


def served(ad: ClassAd, constraint: Expr | None, now: float) -> bool:
    """Whether a negotiator with NEGOTIATOR_SUBMITTER_CONSTRAINT ``constraint`` serves the
    submitter of this Submitter ad (several negotiators sharding a pool by submitter)."""
    return constraint is None or satisfied(evaluate(constraint, ad, now=now))


def job_id(job: ClassAd) -> str:
    exprs = job._exprs
    cluster, proc = exprs.get("clusterid"), exprs.get("procid")
    plain = cluster is not None and proc is not None  # the usual literals, read directly
    if plain and type(cluster.const) is int and type(proc.const) is int:
        return f"{cluster.const}.{proc.const}"
    return f"{attribute(job, 'ClusterId')}.{attribute(job, 'ProcId')}"


@dataclass(eq=False)
class Request:
    """Consecutive idle jobs of one autocluster; ``next`` is the first not yet matched.

    A schedd's resource request (schedd/autoclusters.py) gives one job that stands for
    ``count`` jobs of its autocluster, as HTCondor's schedd sends them; ``schedd``
    names the schedd it came from when several do. A request from a queue read in
    place (the simulator's) has ``jobs`` its first job only and ``members`` all of them
    in schedd order, read as far as matches reach, so each match names its own job."""

    autocluster: int
    jobs: list[ClassAd]
    next: int = 0
    count: int | None = None
    schedd: str | None = None
    members: Sequence[ClassAd] | None = None

    @property
    def remaining(self) -> int:
        if self.members is not None:
            return len(self.members) - self.next
        return (len(self.jobs) if self.count is None else self.count) - self.next

    def job(self) -> ClassAd:
        """The job the next match is for."""
        if self.members is not None:
            return self.members[self.next]
        return self.jobs[self.next] if self.count is None else self.jobs[0]


@dataclass(eq=False)
class SubmitterQueue:
    """One submitter's requests, in schedd order, and its demand."""

    name: str
    requests: list[Request] = field(default_factory=list)
    weighted_idle: float = 0.0

    @property
    def idle_jobs(self) -> int:
        return sum(r.remaining for r in self.requests)

    def pending(self) -> Iterable[Request]:
        return (r for r in self.requests if r.remaining)


def schedd_order(job: ClassAd) -> tuple:
    """The schedd's order of idle jobs: JobPrio first, then QDate, ClusterId, ProcId."""
    literals = tuple(map(_CONST, map(job._exprs.get, _ORDER, repeat(_UNDEFINED))))
    if _NUMBERS.issuperset(map(type, literals)):  # a job as submitted: four numbers
        prio, qdate, cluster, proc = literals
        return (-prio, qdate, cluster, proc)
    prio = attribute(job, "JobPrio")
    qdate = attribute(job, "QDate")
    return (
        -(prio if type(prio) in (int, float) else 0),
        qdate if type(qdate) in (int, float) else 0,
        _number(attribute(job, "ClusterId")),
        _number(attribute(job, "ProcId")),
    )


def _number(value: object) -> float:
    return value if type(value) in (int, float) else 0  # type: ignore[return-value]


def queues(
    jobs: Iterable[ClassAd], domain: str, signatures: Signatures
) -> dict[str, SubmitterQueue]:
    """Idle jobs grouped by submitter, each submitter's jobs cut into requests."""
    by_submitter: dict[str, list[ClassAd]] = {}
    for job in jobs:
        if attribute(job, "JobStatus") == IDLE:
            by_submitter.setdefault(submitter_of(job, domain), []).append(job)
    result = {}
    for name, own in by_submitter.items():
        own.sort(key=schedd_order)
        queue = SubmitterQueue(name)
        for job in own:
            cluster = signatures.autocluster(job)
            if queue.requests and queue.requests[-1].autocluster == cluster:
                queue.requests[-1].jobs.append(job)
            else:
                queue.requests.append(Request(cluster, [job]))
            cpus = attribute(job, "RequestCpus")
            queue.weighted_idle += cpus if type(cpus) in (int, float) else 1
        result[name] = queue
    return result
