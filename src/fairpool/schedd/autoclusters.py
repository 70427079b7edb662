"""Idle jobs grouped into autoclusters as they come and go: the schedd's resource requests.

HTCondor's schedd does not hand the negotiator every idle job: it groups them into
autoclusters (jobs equal in every attribute the negotiator says is significant) and
sends one request per autocluster with a count. This index keeps that grouping up to
date as jobs become idle and stop being idle, so that a negotiation cycle costs
autoclusters x slots, not a pass over every idle job. The live schedd and the
simulator's pool (sim/pool.py) both read it.

The significant attributes come from the negotiator (it derives them from the slots'
expressions and its own); when they change, every idle job is grouped again. Jobs
become idle often and negotiation comes rarely, so a new idle job is only noted, and
grouped when the requests are next asked for, or sooner by ``group`` (the live schedd
groups a submission as soon as it is queued, so that the next cycle does not wait for
its thousands of jobs).

Requests are per submitter, in schedd order (JobPrio, then QDate, ClusterId, ProcId) of
each autocluster's first job; each names that first job as its representative, and
keeps its count and weighted demand (the sum of its jobs' RequestCpus) up to date. When
a match comes back for a request, ``pick`` gives the job to run: the autocluster's first
idle job, which may not be the representative any more (as the schedd does). A caller
that runs the matches itself (the simulator) asks for ``members`` too: each request then
reads its jobs in schedd order only as far as matches reach, and every match names the
job it is for.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..classad import ClassAd
from ..negotiator.attribute import attribute
from ..negotiator.autocluster import Signatures
from ..negotiator.submitters import Request, SubmitterQueue, schedd_order

__all__ = ["AutoclusterIndex"]

_Key = tuple[str, int]  # (submitter, autocluster)


@dataclass(eq=False)
class _Group:
    """One submitter's idle jobs of one autocluster, in schedd order: ``front`` the first
    of them already read in order, ``heap`` the rest (with entries left behind by jobs
    that left: each entry's token must still be the job's to count). A job that leaves
    from the head of ``front`` (the one a match just took) takes its entry along; any
    other leaves the front to be checked again (``stale``)."""

    heap: list[tuple[tuple, int, str]] = field(default_factory=list)
    front: list[tuple[tuple, int, str]] = field(default_factory=list)
    members: dict[str, tuple[int, float]] = field(default_factory=dict)  # job -> token, cpus
    weighted: float = 0.0  # the members' RequestCpus
    stale: bool = False  # the front may hold entries of jobs that left

    def leave(self, name: str) -> None:
        token, cpus = self.members.pop(name)
        self.weighted -= cpus
        front = self.front
        if front and front[0][1] == token:
            del front[0]
        else:
            self.stale = True

    def live(self, entry: tuple[tuple, int, str]) -> bool:
        found = self.members.get(entry[2])
        return found is not None and found[0] == entry[1]

    def push(self, entry: tuple[tuple, int, str]) -> None:
        if self.front and entry < self.front[-1]:
            bisect.insort(self.front, entry)  # before jobs already read in order
        else:
            heapq.heappush(self.heap, entry)

    def push_all(self, entries: list[tuple[tuple, int, str]]) -> None:
        """Entries of jobs that became idle: one by one when they are few, else the heap
        made again at once (a submission's thousands)."""
        if self.front or len(entries) * 4 < len(self.heap):
            for entry in entries:
                self.push(entry)
        else:
            self.heap += entries
            heapq.heapify(self.heap)

    def nth(self, k: int) -> str:
        """The k-th member in schedd order (counting from 0), reading the heap as far as
        needed; stable while no job comes or goes."""
        front, heap = self.front, self.heap
        while len(front) <= k:
            entry = heapq.heappop(heap)
            if self.live(entry):
                front.append(entry)
        return front[k][2]

    def prune(self) -> None:
        """Forget entries of jobs that left, at the front and at the top of the heap."""
        if self.stale:
            self.front = [e for e in self.front if self.live(e)]
            self.stale = False
        heap = self.heap
        while heap and not self.live(heap[0]):
            heapq.heappop(heap)
        if len(heap) > 64 and len(heap) > 2 * len(self.members):
            self.heap = [e for e in heap if self.live(e)]  # mostly stale: rebuild
            heapq.heapify(self.heap)


class _Members(Sequence[ClassAd]):
    """A group's jobs in schedd order, read only as far as a cycle's matches reach."""

    def __init__(self, group: _Group, ads: dict[str, ClassAd]) -> None:
        self.group = group
        self.ads = ads
        self.count = len(group.members)

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, k):  # type: ignore[override]
        if not isinstance(k, int) or not 0 <= k < self.count:
            raise IndexError(k)
        return self.ads[self.group.nth(k)]


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
        self._tokens = 0

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
        group.leave(name)
        if not group.members:
            del self._groups[key]

    def autocluster_of(self, name: str) -> int | None:
        """The autocluster of a grouped idle job (None: not idle, or not grouped yet)."""
        key = self._key.get(name)
        return key[1] if key is not None else None

    def requests(
        self, significant: Sequence[str], each_job_alone: bool | None = None, members: bool = False
    ) -> dict[str, SubmitterQueue]:
        """One request per autocluster and submitter, with its count of idle jobs, for
        a negotiator whose significant attributes are ``significant`` (and
        NEGOTIATE_ALL_JOBS_IN_CLUSTER, when given). ``members``: each request reads its
        jobs in schedd order (``Request.members``), so that matches name them."""
        if each_job_alone is not None and each_job_alone != self.each_job_alone:
            self.each_job_alone = each_job_alone
            self.significant = None  # group every idle job again
        for group in self._groups.values():
            group.prune()
        self._regroup(tuple(significant))
        firsts: dict[str, list[tuple[tuple, int, str]]] = {}
        for (submitter, cluster), group in self._groups.items():
            first = group.nth(0)
            firsts.setdefault(submitter, []).append((group.front[0][0], cluster, first))
        queues = {}
        for submitter, entries in sorted(firsts.items()):
            queue = SubmitterQueue(submitter)
            for _, cluster, first in sorted(entries):
                group = self._groups[(submitter, cluster)]
                job = self._ads[first]
                if members:
                    request = Request(cluster, [job], members=_Members(group, self._ads))
                else:
                    request = Request(cluster, [job], count=len(group.members))
                queue.requests.append(request)
                queue.weighted_idle += group.weighted
            queues[submitter] = queue
        return queues

    def group(self, significant: Sequence[str]) -> None:
        """Group the jobs that became idle since the last requests, by ``significant``
        (the whole queue again if it differs from the last list)."""
        self._regroup(tuple(significant))

    def pick(self, submitter: str, autocluster: int) -> str | None:
        """The job a match for this autocluster runs: its first idle job (None: none
        is idle any more)."""
        group = self._groups.get((submitter, autocluster))
        if group is None:
            return None
        group.prune()
        return group.nth(0)

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
        joining: dict[_Key, list[tuple[tuple, int, str]]] = {}
        for name, (job, submitter) in self._pending.items():
            key = (submitter, autocluster(job))
            self._key[name] = key
            self._ads[name] = job
            self._tokens += 1
            cpus = attribute(job, "RequestCpus")
            cpus = cpus if type(cpus) in (int, float) else 1
            group = self._groups.get(key)
            if group is None:
                group = self._groups[key] = _Group()
            group.members[name] = (self._tokens, cpus)
            group.weighted += cpus
            joining.setdefault(key, []).append((schedd_order(job), self._tokens, name))
        for key, entries in joining.items():
            self._groups[key].push_all(entries)
        self._pending.clear()
