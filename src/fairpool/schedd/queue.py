"""The schedd's job queue: every job by id in queue order, and its life in the queue.

One implementation of a job's life serves the live schedd and the simulator: a job is
added (idle, or held when submitted on hold), starts on a slot, may be vacated (back to
idle, its run lost), suspended and resumed, held and released, and leaves the queue
when it completes or is removed (the caller keeps its record in the history). Each
transition sets the attributes condor_q shows for it (JobStatus, EnteredCurrentStatus,
RemoteHost, JobCurrentStartDate, NumJobStarts, HoldReason...).

The queue also keeps what negotiation reads without walking every job: the idle jobs (in
the order they became idle), the number of running jobs per submitter, each job's
submitter, and, when an ``AutoclusterIndex`` is attached, the idle jobs grouped into
autoclusters (autoclusters.py). A job that won a preempting claim waits for its slot out
of the negotiator's sight (``reserve``), as the schedd keeps it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from ..classad import ClassAd
from ..classad.scope import NOT_CONST
from ..negotiator.submitters import job_id, submitter_of
from .idle_order import IdleOrder

if TYPE_CHECKING:
    from .autoclusters import AutoclusterIndex

__all__ = [
    "COMPLETED",
    "HELD",
    "IDLE",
    "REMOVED",
    "RUNNING",
    "STATUS_LETTERS",
    "STATUS_NAMES",
    "SUSPENDED",
    "TRANSFERRING_OUTPUT",
    "JobQueue",
]

# JobStatus values (HTCondor's job ClassAd attributes)
IDLE, RUNNING, REMOVED, COMPLETED, HELD, TRANSFERRING_OUTPUT, SUSPENDED = range(1, 8)
STATUS_LETTERS = {
    IDLE: "I",
    RUNNING: "R",
    REMOVED: "X",
    COMPLETED: "C",
    HELD: "H",
    TRANSFERRING_OUTPUT: ">",
    SUSPENDED: "S",
}
# as HTCondor's tools name them (condor_adstash's JobStatus text, the dashboard)
STATUS_NAMES = {
    IDLE: "Idle",
    RUNNING: "Running",
    REMOVED: "Removed",
    COMPLETED: "Completed",
    HELD: "Held",
    TRANSFERRING_OUTPUT: "Transferring Output",
    SUSPENDED: "Suspended",
}
_ACTIVE = (RUNNING, SUSPENDED, TRANSFERRING_OUTPUT)
# what submitter_of reads (negotiator/submitters.py)
_SUBMITTER_ATTRIBUTES = ("accountinggroup", "user", "owner", "niceuser")


class JobQueue:
    """Jobs by id (``"cluster.proc"``), in the order they were queued."""

    def __init__(self, domain: str, index: AutoclusterIndex | None = None) -> None:
        self.domain = domain  # the submitters' domain (UID_DOMAIN)
        self.index = index
        self.jobs: dict[str, ClassAd] = {}
        self.idle: dict[str, ClassAd] = {}  # idle jobs, in the order they became idle
        self.running: Counter[str] = Counter()  # submitter -> jobs running or suspended
        self.submitter: dict[str, str] = {}  # job -> the submitter it is charged to
        self.place: dict[str, int] = {}  # job -> its place in the queue
        self._count = 0
        self._submitters: dict[tuple, tuple[str, list]] = {}
        self._order = IdleOrder()  # the idle jobs of each submitter, in queue order

    def __len__(self) -> int:
        return len(self.jobs)

    def __contains__(self, name: object) -> bool:
        return name in self.jobs

    def add(self, jobs: Iterable[ClassAd]) -> None:
        """Jobs join the queue as their ads say (idle, held, or running when a pool is
        read as it stands)."""
        for job in jobs:
            name = job_id(job)
            self.jobs[name] = job
            self._count += 1
            self.place.setdefault(name, self._count)
            self.submitter[name] = self._submitter_of(job)
            status = job.eval("JobStatus")
            if status == IDLE:
                self._idle(name, job)
            elif status in _ACTIVE:
                self.running[self.submitter[name]] += 1

    def _submitter_of(self, job: ClassAd) -> str:
        """submitter_of, once per set of literal values it reads: a cluster's jobs share
        them (the cache keeps the expressions, so their ids are not reused)."""
        exprs = tuple(map(job._exprs.get, _SUBMITTER_ATTRIBUTES))
        for e in exprs:
            if e is not None and e.const is NOT_CONST:
                return submitter_of(job, self.domain)  # an expression: it may read anything
        key = tuple(map(id, exprs))
        found = self._submitters.get(key)
        if found is None:
            if len(self._submitters) >= 10_000:
                self._submitters.clear()
            found = self._submitters[key] = (submitter_of(job, self.domain), exprs)
        return found[0]

    def status(self, name: str) -> object:
        return self.jobs[name].eval("JobStatus")

    # -- running ------------------------------------------------------------------------
    def begin(self, name: str, slot: str, now: float) -> ClassAd:
        """The job starts on ``slot``: Running, its run counted."""
        job = self.jobs[name]
        starts = job.eval("NumJobStarts")
        job.update(
            {
                "JobStatus": RUNNING,
                "RemoteHost": slot,
                "JobCurrentStartDate": int(now),
                "NumJobStarts": (starts if type(starts) is int else 0) + 1,
                "EnteredCurrentStatus": int(now),
            }
        )
        self._not_idle(name)
        self.running[self.submitter[name]] += 1
        return job

    def vacate(self, name: str, now: float) -> float:
        """The job stops running and is idle again, its run lost; when that run began."""
        job = self.jobs[name]
        started = job.eval("JobCurrentStartDate")
        _less(self.running, self.submitter[name])
        self._set_status(job, IDLE, now)
        if "RemoteHost" in job:
            del job["RemoteHost"]
        self._idle(name, job)
        return float(started) if type(started) is int else 0.0

    def suspend(self, name: str, now: float) -> None:
        """The job's slot suspended it (still counted as running)."""
        self._set_status(self.jobs[name], SUSPENDED, now)

    def resume(self, name: str, now: float) -> None:
        self._set_status(self.jobs[name], RUNNING, now)

    def leave(self, name: str) -> ClassAd:
        """The job leaves the queue (completed or removed); its ad, for the history."""
        job = self.jobs.pop(name)
        self.place.pop(name, None)
        if name in self.idle:
            self._not_idle(name)
        elif job.eval("JobStatus") in _ACTIVE:
            _less(self.running, self.submitter[name])
        del self.submitter[name]
        return job

    # -- held jobs and jobs waiting for a preempted slot --------------------------------
    def hold(self, name: str, reason: str, code: int, subcode: int, now: float) -> None:
        """The job is held (an idle job; a running one is vacated by the caller first)."""
        job = self.jobs[name]
        self._not_idle(name)
        job.update({"HoldReason": reason, "HoldReasonCode": code, "HoldReasonSubCode": subcode})
        self._set_status(job, HELD, now)

    def release(self, name: str, now: float) -> None:
        """A held job is idle again."""
        job = self.jobs[name]
        for attribute in ("HoldReason", "HoldReasonCode", "HoldReasonSubCode"):
            job.pop(attribute, None)
        self._set_status(job, IDLE, now)
        self._idle(name, job)

    def reserve(self, name: str) -> None:
        """A matched job waits for its slot (a preempting claim): not idle for the
        negotiator meanwhile, as the schedd does not ask for it again."""
        self._not_idle(name)

    def unreserve(self, name: str) -> None:
        """The wait is over without the slot (the preempting claim fell through)."""
        job = self.jobs.get(name)
        if job is not None and job.eval("JobStatus") == IDLE and name not in self.idle:
            self._idle(name, job)

    def edited(self, name: str) -> None:
        """A job's attributes changed (condor_qedit): its submitter and, while idle, its
        autocluster may too."""
        job = self.jobs[name]
        before, after = self.submitter[name], self._submitter_of(job)
        if after != before:
            self.submitter[name] = after
            if job.eval("JobStatus") in _ACTIVE:
                _less(self.running, before)
                self.running[after] += 1
            if name in self.idle:
                self._order.remove(before)
                self._order.add(after, self.place[name], name)
        if name in self.idle and self.index is not None:
            self.index.discard(name)
            self.index.add(name, job, after)

    # -- reading ------------------------------------------------------------------------
    def idle_of(self, submitter: str) -> Iterator[ClassAd]:
        """The submitter's idle jobs in queue order, read as far as the caller goes."""
        return self._order.read(submitter, self._idle_entry)

    def _idle_entry(self, submitter: str, place: int, name: str) -> ClassAd | None:
        """The job an entry of IdleOrder stands for, while it is idle for ``submitter``."""
        job = self.idle.get(name)
        if job is None or self.submitter[name] != submitter or self.place[name] != place:
            return None
        return job

    # -- bookkeeping --------------------------------------------------------------------
    def _idle(self, name: str, job: ClassAd) -> None:
        self.idle[name] = job
        self._order.add(self.submitter[name], self.place[name], name)
        if self.index is not None:
            self.index.add(name, job, self.submitter[name])

    def _not_idle(self, name: str) -> None:
        if self.idle.pop(name, None) is None:
            return
        self._order.remove(self.submitter[name])
        if self.index is not None:
            self.index.discard(name)

    @staticmethod
    def _set_status(job: ClassAd, status: int, now: float) -> None:
        job["JobStatus"] = status
        job["EnteredCurrentStatus"] = int(now)


def _less(counter: Counter[str], key: str) -> None:
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]
