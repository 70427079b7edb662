"""A pool held in memory: slot ads and job ads that negotiation cycles act on.

``apply`` carries out a cycle's decisions the way the schedd and the startds would:

* a matched job starts on its slot (the slot becomes Claimed/Busy by the job's submitter);
* a job matched to a partitionable slot gets a dynamic slot carved for it (numbered with
  the lowest ``DSlotId`` free on that slot, as the startd numbers them), and, with
  ``CLAIM_PARTITIONABLE_LEFTOVERS`` (on by default), its submitter's other idle jobs that
  still fit are started on the leftovers at once, as far as their concurrency limits allow
  (HTCondor's schedd does not fill leftovers for limited jobs, which then start one per
  cycle); not on slots with a consumption policy, where the negotiator matched each job;
* a job whose slot is taken by a preempting match goes back to idle;
* with ``claim_reuse``, a completed job's claim runs the submitter's next matching idle
  job at once, as the schedd reuses claims, until ``CLAIM_WORKLIFE`` is over
  (``complete``).

The simulator also finishes jobs (their slot is released: a static slot goes back to
Unclaimed/Idle, a dynamic slot gives its resources back to its partitionable slot and
disappears), removes jobs, and adds and removes machines. Slots and jobs are kept in
dictionaries in insertion order, which is the collector's and the queue's order.

Every change to a slot ad is logged by name (``changes``), which is what lets the
simulator keep slots from one cycle to the next (``kept_snapshot``: the negotiator's
``SlotLedger`` and the vector evaluator's columns re-read only what changed); the idle
jobs and the submitters of running jobs are kept as they change, too.

A machine whose startd policy runs (``startds``, sim/startds.py) is claimed, activated
and released through its ``Startd``, which carves its own dynamic slots; the pool then
only shows the slots as the startd publishes them and keeps the queue's side.

The dry run (``fairpool negotiate --cycles``) and the simulator share it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from ..classad import ClassAd, Expr
from ..classad.match import rank
from ..classad.vector import SlotColumns
from ..negotiator.autocluster import significant_attributes
from ..negotiator.concurrency import LimitConfig, LimitCounter, job_limits
from ..negotiator.consumption import consumption_of
from ..negotiator.cycle import PoolSnapshot, significant_of
from ..negotiator.ledger import SlotLedger
from ..negotiator.params import NegotiatorParams
from ..negotiator.results import CycleResult, Match
from ..negotiator.slot_shapes import Move
from ..negotiator.submitters import SubmitterQueue, job_id
from ..schedd.autoclusters import AutoclusterIndex
from ..schedd.claims import leftover_jobs, next_job
from ..schedd.queue import IDLE, JobQueue
from ..startd.partition import carve, release

if TYPE_CHECKING:
    from .startds import Startds

__all__ = ["Pool", "Started"]


class Started(NamedTuple):
    """A job that began running on a slot, and the job it displaced (if any); a tuple,
    made at every job start."""

    job: str
    slot: str
    preempted: str | None = None


class Pool:
    """Slots and jobs, indexed by slot name and job id."""

    def __init__(
        self,
        slots: Iterable[ClassAd],
        jobs: Iterable[ClassAd],
        domain: str,
        limits: LimitConfig | None = None,
        claim_leftovers: bool = True,
    ) -> None:
        self.limits = limits or LimitConfig()
        self.claim_leftovers = claim_leftovers  # CLAIM_PARTITIONABLE_LEFTOVERS
        self.claim_reuse = False  # a finished job's claim runs the submitter's next job
        self.worklife: dict[str, int | None] = {}  # machine -> CLAIM_WORKLIFE (dedicated)
        self.claimed_at: dict[str, float] = {}  # slot -> when its claim began (dedicated)
        self.reused = 0  # jobs started on a reused claim
        self.domain = domain
        self.slot_by_name: dict[str, ClassAd] = {}
        self.sequence: dict[str, int] = {}  # slot -> its place in collector order
        # slots changed, added or removed until the ledger reads them, each with the one
        # move that changed it (slot_shapes.py; None: any other change, or more than one)
        self.changes: dict[str, Move | None] = {}
        self.queue = JobQueue(domain, AutoclusterIndex())  # the schedd's side
        self.job_on_slot: dict[str, str] = {}
        self.preemptions: dict[str, int] = {}
        self.vacated: list[tuple[str, float]] = []  # (job, when it had started), to drain
        self._dslot_ids: dict[str, set[int]] = {}  # p-slot -> DSlotIds of its dynamic slots
        self.startds: Startds | None = None  # the startds of driven machines, if any
        self.columns = SlotColumns([])  # the vector evaluator's columns, kept across cycles
        self.columns.track()
        self.ledger = SlotLedger()
        self._sequence = 0
        for slot in slots:
            self._insert(slot)
        self.queue.add(jobs)

    @property
    def slots(self) -> list[ClassAd]:
        return list(self.slot_by_name.values())

    @property
    def jobs(self) -> list[ClassAd]:
        return list(self.queue.jobs.values())

    def snapshot(
        self, now: float | None = None, params: NegotiatorParams | None = None
    ) -> PoolSnapshot:
        """Every slot and job (the running jobs' run time brought up to ``now``, if given);
        with ``params``, the idle jobs' requests from the queue's autoclusters too (else
        the cycle groups the jobs itself, as it does for jobs read from a file)."""
        if now is not None:
            self.advance(now, list(self.job_on_slot))
        slots = self.slots
        if params is None or now is None:
            return PoolSnapshot(slots, self.jobs)
        significant = significant_of(slots, params, now)
        return PoolSnapshot(slots, self.jobs, queues=self._requests(significant, params))

    def kept_snapshot(self, params: NegotiatorParams, now: float) -> PoolSnapshot:
        """What ``snapshot`` gives a cycle, from the ledger: the slots a cycle can match
        (with run times brought up to ``now``), the totals of those it cannot, the
        requests of the idle jobs and the running jobs' submitters. Nothing here reads
        every idle job: the queue keeps them grouped (schedd/autoclusters.py)."""
        self.keep_ledger(params, now)
        running = self.ledger.active.keys() & self.job_on_slot.keys()  # often none at all
        self.advance(now, [n for n in self.ledger.active if n in running] if running else [])
        ledger = self.keep_ledger(params, now)
        requests = self._requests(significant_attributes(ledger.mention_sets(), params), params)
        standing = ledger.standing(now, requests)
        return PoolSnapshot([], [], standing, frozenset(self.queue.running), requests)

    def _requests(
        self, significant: tuple[str, ...], params: NegotiatorParams
    ) -> dict[str, SubmitterQueue]:
        """The idle jobs' requests; each match names the job it is for, as ``apply``
        needs."""
        index = self.queue.index
        assert index is not None
        return index.requests(significant, params.negotiate_all_jobs_in_cluster, members=True)

    def keep_ledger(self, params: NegotiatorParams, now: float) -> SlotLedger:
        """The ledger, told of every slot changed since it was last told."""
        changes, self.changes = self.changes, {}
        self.ledger.update(self.slot_by_name, self.sequence, changes, params, now, changes)
        return self.ledger

    def add_slots(self, slots: Iterable[ClassAd]) -> None:
        for slot in slots:
            self._insert(slot)

    def _insert(self, slot: ClassAd) -> None:
        name = slot.eval("Name")
        if name not in self.slot_by_name:  # a name given again keeps its place, as in a dict
            self._sequence += 1
            self.sequence[name] = self._sequence
        self.slot_by_name[name] = slot
        self._changed(name)

    def _changed(self, name: str, move: Move | None = None) -> None:
        changes = self.changes
        changes[name] = None if name in changes else move
        self.columns.mark((name,))

    def finish(self, name: str) -> None:
        """A job completes (or is removed): it leaves the queue and frees its slot."""
        job = self.queue.leave(name)
        slot_name = job.eval("RemoteHost")
        if isinstance(slot_name, str) and self.job_on_slot.get(slot_name) == name:
            self._release(slot_name)

    def complete(self, name: str, now: float) -> Started | None:
        """A job completes. With ``claim_reuse`` (the schedd's), its claim goes on to the
        same submitter's next idle job that matches the slot and holds the same
        concurrency limits, while the claim may still take jobs (``CLAIM_WORKLIFE``);
        otherwise the slot is freed. Returns the job started on the claim, if any."""
        job = self.queue.jobs[name]
        slot_name = job.eval("RemoteHost")
        following = self._reusable(slot_name, job, now) if self.claim_reuse else None
        if following is None:
            self.finish(name)
            return None
        submitter = self.queue.submitter[name]
        del self.job_on_slot[slot_name]  # the claim stays: finish() leaves the slot alone
        self.finish(name)
        if self.driven(slot_name):
            return self.startds.reuse(slot_name, following, submitter)
        self.reused += 1
        return self._start(self.slot_by_name[slot_name], following, submitter, now, False)

    def _reusable(self, slot_name: object, job: ClassAd, now: float) -> ClassAd | None:
        """The job a finished job's claim would run next, if any (see ``complete``)."""
        if not isinstance(slot_name, str) or self.job_on_slot.get(slot_name) != job_id(job):
            return None
        slot = self.slot_by_name[slot_name]
        if not self.driven(slot_name):  # a driven machine's startd judges its worklife
            limit = self.worklife.get(slot.eval("Machine"))
            if limit is not None and now - self.claimed_at[slot_name] > limit:
                return None
        return next_job(self.queue, self.queue.submitter[job_id(job)], slot, job, now)

    def remove_slots(self, names: Iterable[str], now: float) -> list[str]:
        """Machines go away (a power failure): their jobs go back to idle, lost work and
        all; the jobs that were running on them are returned."""
        displaced = []
        for name in names:
            running = self.job_on_slot.get(name)
            if running is not None:
                self._vacate(running, now)
                displaced.append(running)
                self._release(name)
            for child in [n for n, s in self.slot_by_name.items() if _parent_is(s, name)]:
                displaced.extend(self.remove_slots([child], now))
            self.drop([name])
        return displaced

    def _release(self, slot_name: str) -> None:
        del self.job_on_slot[slot_name]
        if self.driven(slot_name):
            self.slot_by_name[slot_name].pop("TotalJobRunTime", None)
            self.startds.release(slot_name)  # the job is gone: its starter exits
            return
        slot = self.slot_by_name[slot_name]
        if slot.eval("DynamicSlot") is True:
            self.drop([slot_name])
            self._dslot_ids.get(_parent_name(slot_name), set()).discard(slot.eval("DSlotId"))
            parent = self.slot_by_name.get(_parent_name(slot_name))
            if parent is not None:
                release(parent, slot)
                self._changed(parent.eval("Name"))
            return
        slot.discard(_CLAIM_ATTRIBUTES)
        slot.update({"State": "Unclaimed", "Activity": "Idle", "CurrentRank": -1.0})
        self._changed(slot_name, _moved(_RELEASE, slot))

    def advance(self, now: float, names: Iterable[str]) -> None:
        """Bring the run time of the jobs on slots ``names`` up to ``now``."""
        for name in names:
            slot = self.slot_by_name[name]
            start = slot.eval("JobStart")
            if type(start) in (int, float) and slot.eval("TotalJobRunTime") != int(now - start):
                slot["TotalJobRunTime"] = int(now - start)
                self._changed(name)

    def apply(self, result: CycleResult, now: float) -> list[Started]:
        started: list[Started] = []
        for match in result.matches:
            job = self.queue.jobs.get(match.job)
            slot = self.slot_by_name.get(match.slot)
            if job is None or slot is None or job.eval("JobStatus") != IDLE:
                continue
            if slot.eval("PartitionableSlot") is True:
                started.extend(self._partition(slot, job, match, now))
            elif self.driven(match.slot):
                started.extend(self.startds.take(match.slot, job, match.submitter))
            else:
                started.append(self._start(slot, job, match.submitter, now))
        return started

    def driven(self, slot_name: str) -> bool:
        """Whether the slot's machine runs its startd policy (sim/startds.py)."""
        return self.startds is not None and self.startds.drives(slot_name)

    def _partition(self, pslot: ClassAd, job: ClassAd, match: Match, now: float) -> list[Started]:
        started = []
        driven = self.driven(match.slot)  # machines with a consumption policy never are
        consumed = None if driven else consumption_of(pslot, job, now)  # None: no policy
        first = self._carve_and_start(pslot, job, match.submitter, now, _requests(consumed))
        if first is None:
            return started
        started.append(first)
        if not self.claim_leftovers or consumed is not None:
            return started  # the negotiator matched each job itself (consumption policy)
        in_use = LimitCounter.from_slots(self.limits, self.slots)
        for other in leftover_jobs(self.queue, match.submitter, pslot, in_use, now):
            more = self._carve_and_start(pslot, other, match.submitter, now)
            if more is not None:
                started.append(more)
                in_use.add(job_limits(other, pslot, now) or [])
        return started

    def _carve_and_start(
        self,
        pslot: ClassAd,
        job: ClassAd,
        submitter: str,
        now: float,
        requests: dict[str, Expr] | None = None,
    ) -> Started | None:
        name = pslot.eval("Name")
        if self.driven(name):
            return self.startds.claim(name, job, submitter)
        used = self._dslot_ids.setdefault(name, set())
        number = next(n for n in range(1, len(used) + 2) if n not in used)  # as a startd
        dslot = carve(pslot, job, now, number, requests)
        if dslot is None:
            return None
        used.add(number)
        self._changed(name)
        self._insert(dslot)
        return self._start(dslot, job, submitter, now)

    def _start(
        self, slot: ClassAd, job: ClassAd, submitter: str, now: float, new_claim: bool = True
    ) -> Started:
        slot_name = slot.eval("Name")
        displaced = self.job_on_slot.get(slot_name)
        if displaced is not None:
            self._vacate(displaced, now)
        name = job_id(job)
        started = {
            "State": "Claimed",
            "Activity": "Busy",
            "JobId": name,
            "JobStart": int(now),
            "TotalJobRunTime": 0,
        }
        if new_claim:
            started["EnteredCurrentState"] = int(now)
            self.claimed_at[slot_name] = now
        self._show_holder(slot, job, submitter, now, started)
        slot["CurrentRank"] = rank(slot, job, now=now)
        self._begin(slot_name, name, now, _moved(_START[new_claim], slot))
        return Started(name, slot_name, displaced)

    def run(self, slot_name: str, job: ClassAd, submitter: str, now: float) -> Started:
        """The job runs on the slot its startd claimed and activated for it."""
        slot = self.slot_by_name[slot_name]
        # TotalJobRunTime: the schedd's figure, not the startd's
        self._show_holder(slot, job, submitter, now, {"TotalJobRunTime": 0})
        name = job_id(job)
        self._begin(slot_name, name, now)
        return Started(name, slot_name)

    def _show_holder(
        self, slot: ClassAd, job: ClassAd, submitter: str, now: float, first: dict
    ) -> None:
        """Who holds the slot and the limits the job holds there, as the collector shows;
        set in one update after the attributes ``first`` (the start's own)."""
        owner = job.eval("Owner")
        user = f"{owner}@{self.domain}" if isinstance(owner, str) else submitter
        slot.update({**first, "RemoteUser": user, "RemoteOwner": user})
        if submitter != user:
            slot["AccountingGroup"] = submitter
        elif "AccountingGroup" in slot:
            del slot["AccountingGroup"]
        limits = job_limits(job, slot, now) or []
        if limits:
            slot["ConcurrencyLimits"] = ",".join(f"{n}:{a:g}" for n, a in limits)
        elif "ConcurrencyLimits" in slot:
            del slot["ConcurrencyLimits"]

    def _begin(self, slot_name: str, name: str, now: float, move: Move | None = None) -> None:
        """The queue has job ``name`` running on the slot (which ``move`` changed, if
        known)."""
        self.queue.begin(name, slot_name, now)
        self.job_on_slot[slot_name] = name
        self._changed(slot_name, move)

    def evict(self, slot_name: str, now: float) -> None:
        """The job on the slot stops (its startd evicted it) and goes back to idle."""
        self._vacate(self.job_on_slot.pop(slot_name), now)
        slot = self.slot_by_name.get(slot_name)  # gone when its startd deleted it
        if slot is not None:
            slot.pop("TotalJobRunTime", None)
        self._changed(slot_name)

    def drop(self, names: Iterable[str]) -> None:
        """Slots gone: deleted by their startd, released dynamic slots, removed machines."""
        for name in names:
            self.slot_by_name.pop(name, None)
            self.sequence.pop(name, None)
            self._dslot_ids.pop(name, None)
            self._changed(name)

    def touch(self, names: Iterable[str]) -> None:
        """Slots a startd changed in place."""
        for name in names:
            self._changed(name)

    def _vacate(self, name: str, now: float) -> None:
        self.vacated.append((name, self.queue.vacate(name, now)))
        self.preemptions[name] = self.preemptions.get(name, 0) + 1


_CLAIM_ATTRIBUTES = (
    "RemoteUser",
    "RemoteOwner",
    "JobId",
    "JobStart",
    "TotalJobRunTime",
    "AccountingGroup",
    "ConcurrencyLimits",
)


# The pool's moves (slot_shapes.py): a job starts on a static slot (a new claim also sets
# EnteredCurrentState), or its job ends; each with what it set that is not volatile.
_SHOWN = (
    "state",
    "activity",
    "remoteuser",
    "remoteowner",
    "accountinggroup",
    "concurrencylimits",
    "currentrank",
)
_START = {new_claim: (("start", new_claim), _SHOWN) for new_claim in (False, True)}
_RELEASE = ("release", ("state", "activity", "currentrank"))


def _moved(way: tuple[object, tuple[str, ...]], slot: ClassAd) -> Move:
    """The move ``way`` made, with the expressions it set in ``slot``."""
    return way[0], tuple(map(slot._exprs.get, way[1]))


def _parent_name(dslot_name: str) -> str:
    """``slot1_3@host`` -> ``slot1@host``."""
    slot_part, _, host = dslot_name.partition("@")
    return f"{slot_part.rpartition('_')[0]}@{host}"


def _parent_is(slot: ClassAd, name: str) -> bool:
    return slot.eval("DynamicSlot") is True and _parent_name(slot.eval("Name")) == name


def _requests(consumed: dict[str, float] | None) -> dict[str, Expr] | None:
    """A consumption-policy slot gives a job what its policy says the job consumes (the
    negotiator charged exactly that); other p-slots round the request as usual (None)."""
    if not consumed:
        return None
    return {f"Request{r}": Expr(repr(a)) for r, a in consumed.items() if r != "GPUs"}
