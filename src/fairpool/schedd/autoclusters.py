"""Idle jobs grouped into autoclusters as they come and go: the schedd's resource requests.

HTCondor's schedd does not hand the negotiator every idle job: it groups them into
autoclusters (jobs equal in every attribute the negotiator says is significant) and
sends one request per autocluster with a count. This index keeps that grouping up to
date as jobs become idle and stop being idle, so that a negotiation cycle costs
autoclusters x slots, not a pass over every idle job.

The significant attributes come from the negotiator (it derives them from the slots'
expressions and its own); when they change, every idle job is grouped again. Jobs
become idle often and negotiation comes rarely, so a new idle job is only noted, and
grouped when the requests are next asked for.

Requests are per submitter, in schedd order (JobPrio, then QDate, ClusterId, ProcId) of
each autocluster's first job; each names that first job as its representative. When a
match comes back for a request, ``pick`` gives the job to run: the autocluster's first
idle job, which may not be the representative any more (as the schedd does).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

from ..classad import ClassAd
from ..negotiator.autocluster import Signatures
from ..negotiator.submitters import Request, SubmitterQueue, schedd_order

__all__ = ["AutoclusterIndex"]

_Key = tuple[str, int]  # (submitter, autocluster)


@dataclass(eq=False)
class _Group:
    """One submitter's idle jobs of one autocluster: a heap of (schedd order, job)."""

    heap: list[tuple[tuple, str]]
    members: dict[str, tuple]  # job -> its place in schedd order

    def first(self) -> str:
        heap, members = self.heap, self.members
        while members.get(heap[0][1]) != heap[0][0]:
            heapq.heappop(heap)  # left (or moved) since it was pushed
        return heap[0][1]


class AutoclusterIndex:
    """Idle jobs by (submitter, autocluster), each group in schedd order."""

    def __init__(self, each_job_alone: bool = False) -> None:
        self.each_job_alone = each_job_alone  # NEGOTIATE_ALL_JOBS_IN_CLUSTER
        self.significant: tuple[str, ...] | None = None
        self._signatures: Signatures | None = None
        self._pending: dict[str, tuple[ClassAd, str]] = {}  # idle, not yet grouped
        self._key: dict[str, _Key] = {}  # grouped idle job -> its group
        self._groups: dict[_Key, _Group] = {}
        self._ads: dict[str, ClassAd] = {}

    def __len__(self) -> int:
        return len(self._pending) + len(self._key)

    def add(self, name: str, job: ClassAd, submitter: str) -> None:
        """A job became idle."""
        self._pending[name] = (job, submitter)

    def discard(self, name: str) -> None:
        """A job is no longer idle (started, held, removed, waiting for a slot)."""
        if self._pending.pop(name, None) is not None:
            return
        key = self._key.pop(name, None)
        if key is None:
            return
        self._ads.pop(name)
        group = self._groups[key]
        del group.members[name]
        if not group.members:
            del self._groups[key]

    def autocluster_of(self, name: str) -> int | None:
        """The autocluster of a grouped idle job (None: not idle, or not grouped yet)."""
        key = self._key.get(name)
        return key[1] if key is not None else None

    def requests(self, significant: Sequence[str]) -> dict[str, SubmitterQueue]:
        """One request per autocluster and submitter, with its count of idle jobs, for
        a negotiator whose significant attributes are ``significant``."""
        self._regroup(tuple(significant))
        firsts: dict[str, list[tuple[tuple, int, str]]] = {}
        for (submitter, cluster), group in self._groups.items():
            first = group.first()
            firsts.setdefault(submitter, []).append((group.heap[0][0], cluster, first))
        queues = {}
        for submitter, entries in sorted(firsts.items()):
            queue = SubmitterQueue(submitter)
            for _, cluster, first in sorted(entries):
                count = len(self._groups[(submitter, cluster)].members)
                job = self._ads[first]
                queue.requests.append(Request(cluster, [job], count=count))
                cpus = job.eval("RequestCpus")
                queue.weighted_idle += count * (cpus if type(cpus) in (int, float) else 1)
            queues[submitter] = queue
        return queues

    def pick(self, submitter: str, autocluster: int) -> str | None:
        """The job a match for this autocluster runs: its first idle job (None: none
        is idle any more)."""
        group = self._groups.get((submitter, autocluster))
        return group.first() if group is not None else None

    def _regroup(self, significant: tuple[str, ...]) -> None:
        if significant != self.significant:
            self.significant = significant
            self._signatures = Signatures(significant, self.each_job_alone)
            for name, key in self._key.items():  # group every idle job again
                self._pending[name] = (self._ads[name], key[0])
            self._key.clear()
            self._groups.clear()
            self._ads.clear()
        assert self._signatures is not None
        autocluster = self._signatures.autocluster
        for name, (job, submitter) in self._pending.items():
            key = (submitter, autocluster(job))
            self._key[name] = key
            self._ads[name] = job
            order = schedd_order(job)
            group = self._groups.get(key)
            if group is None:
                self._groups[key] = _Group([(order, name)], {name: order})
            else:
                heapq.heappush(group.heap, (order, name))
                group.members[name] = order
        self._pending.clear()
