"""The startds of driven machines (startd_policy.py), run on the simulator's event heap.

Each driven machine is a ``fairpool.startd.Startd`` on the simulated clock (whole seconds:
a fractional time is taken down to its second). The simulator talks to it as the schedd
and the starter would:

* a match on a free slot: ``request_claim`` and at once ``activate`` with the job (on a
  partitionable slot the startd carves the dynamic slot); a refusal leaves the job idle;
* a match that preempts a running job: a preempting claim. The matched job waits, out
  of the negotiator's sight as the schedd keeps it, while the startd retires the running
  job (``MaxJobRetirementTime``) and evicts it; then it runs. If the preempting claim
  falls through (the slot's START refuses it), the job is idle again;
* a job's end (or condor_rm): its starter exits, and the claim is released, unless the
  scenario has the schedd reuse claims (``claim_reuse``): then the submitter's next job
  is activated on the same claim while the startd keeps it (``CLAIM_WORKLIFE``);
* in between, each startd wakes on the heap at its own next timer or evaluation pass
  (every ``UPDATE_INTERVAL``; every ``POLLING_INTERVAL`` while a slot is claimed).

After every step the simulator settles what the startd decided, at that moment: a slot
in Preempting has its job leave at once (a job takes no time to vacate; its starter
exits then), a job whose claim is gone is idle again, a suspended job stops running (its
end is put off by the time it spends suspended), a slot Claimed/Idle under the waiting
job's claim has it activated, and a claim with no job left is released.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..classad import ClassAd
from ..negotiator.submitters import job_id
from ..runtime.env import Environment, Event
from ..startd import Activity, Startd, State
from ..startd.slot import Slot
from .pool import Pool, Started

__all__ = ["Startds"]


class Startds:
    """Driven machines by host, and what their startds' decisions do to the pool's jobs.

    ``report(started)`` hears of jobs started outside a negotiation cycle (and of any
    eviction, through ``Pool.vacated``); ``suspended(job)``/``resumed(job, run_time)`` of
    jobs stopped and continued by their startd."""

    def __init__(
        self,
        pool: Pool,
        env: Environment,
        report: Callable[[list[Started]], None],
        suspended: Callable[[str], None],
        resumed: Callable[[str, int], None],
    ) -> None:
        self.pool = pool
        pool.startds = self
        self.env = env
        self.report = report
        self.on_suspend = suspended
        self.on_resume = resumed
        self.machines: dict[str, Startd] = {}
        self.host: dict[str, str] = {}  # slot -> its machine
        self.names: dict[str, list[str]] = {}  # machine -> its slots, as the pool has them
        self.waiting: dict[str, tuple[str, str]] = {}  # slot -> (job, submitter) waiting
        self.suspended: set[str] = set()  # slots whose job is suspended
        self.evictions = 0  # runs ended by the policy (not for a preempting claim)
        self._wake: dict[str, Event] = {}

    def now(self) -> int:
        """The startds' clock: the simulated time in whole seconds."""
        return int(self.env.now // 1)

    # -- machines ---------------------------------------------------------------------
    def add(self, host: str, startd: Startd) -> None:
        """A machine joins: its start-up evaluation, its slots into the pool."""
        self.machines[host] = startd
        self.names[host] = []
        startd.advance(self.now())
        self.report(self._settle(host))

    def forget(self, host: str) -> None:
        """A machine goes away (power cut): its jobs are idle again, work lost."""
        names = self.names.pop(host)
        for name in names:
            if name in self.pool.job_on_slot:
                self.pool.evict(name, self.env.now)
            self._unwait(name)
            self.suspended.discard(name)
            del self.host[name]
        self.pool.drop(names)
        del self.machines[host]
        wake = self._wake.pop(host, None)
        if wake is not None:
            wake.cancel()

    def drives(self, slot: str) -> bool:
        """Whether the slot is on a driven machine."""
        return slot in self.host

    # -- the schedd's side ------------------------------------------------------------
    def take(self, slot: str, job: ClassAd, submitter: str) -> list[Started]:
        """A match on a static or dynamic slot: claim it if free, else preempt its claim."""
        target = self.machines[self.host[slot]].slots[slot]
        if target.state is not State.CLAIMED:
            started = self.claim(slot, job, submitter)
            return [] if started is None else [started]
        host = self.host[slot]
        reply = self.machines[host].request_claim(self.now(), job, preempting=True, slot=slot)
        if reply.accepted:  # it replaces any claim that waited there before
            self._unwait(slot)
            self.waiting[slot] = (job_id(job), submitter)
            self.pool.queue.reserve(job_id(job))
        self.report(self._settle(host))
        return []

    def claim(self, slot: str, job: ClassAd, submitter: str) -> Started | None:
        """Claim a free slot for ``job`` and start it (None: the startd refused)."""
        host = self.host[slot]
        reply = self.machines[host].request_claim(self.now(), job, slot=slot)
        started = None
        if reply.accepted and reply.slot is not None:
            started = self._activate(host, reply.slot, job, submitter)
        self.report(self._settle(host))
        return started

    def release(self, slot: str) -> None:
        """The job on ``slot`` is gone (completed or removed): its starter exits."""
        self._starter_exits(slot)
        self.report(self._settle(self.host[slot]))

    def reuse(self, slot: str, job: ClassAd, submitter: str) -> Started | None:
        """The job on ``slot`` completed and the schedd reuses its claim for ``job``: the
        starter exits, and if the claim is still Claimed/Idle (the startd ends it once
        CLAIM_WORKLIFE is over) the job is activated on it."""
        host = self.host[slot]
        self._starter_exits(slot)
        target = self.machines[host].slots.get(slot)
        started = None
        if target is not None and target.pair == (State.CLAIMED, Activity.IDLE):
            started = self._activate(host, slot, job, submitter)
        if started is not None:
            self.pool.reused += 1
        self.report(self._settle(host))
        return started

    def _starter_exits(self, slot: str) -> None:
        startd = self.machines[self.host[slot]]
        self.suspended.discard(slot)
        if startd.slots[slot].job_active:
            startd.starter_exit(self.now(), slot=slot)

    def _activate(self, host: str, slot: str, job: ClassAd, submitter: str) -> Started | None:
        """Start ``job`` under the claim on ``slot`` (None: the startd refused)."""
        if not self.machines[host].activate(self.now(), job, slot=slot).accepted:
            return None
        self._sync(host)
        return self.pool.run(slot, job, submitter, self.env.now)

    def run_time(self, slot: str) -> int | None:
        """Seconds the job on ``slot`` has run (suspensions excluded), with its startd
        brought up to now (the passes before now: an event comes before the pass of its
        second); None when the job is suspended or has left the slot."""
        host = self.host.get(slot)
        if host is None:
            return None
        startd = self.machines[host]
        startd.advance(self.now() - 1)  # an event at t comes before the pass of t
        self.report(self._settle(host))
        claim = startd.slots[slot].claim if slot in startd.slots else None
        if slot in self.suspended or claim is None or claim.job is None:
            return None
        return claim.job_age(self.now())

    # -- settling what the startd decided ----------------------------------------------
    def _tick(self, host: str) -> None:
        self._wake.pop(host, None)
        startd = self.machines.get(host)
        if startd is not None:
            startd.advance(self.now())
            self.report(self._settle(host))

    def _settle(self, host: str) -> list[Started]:
        started: list[Started] = []
        self._sync(host)
        while self._step(host, started):
            self._sync(host)
        self._rearm(host)
        return started

    def _step(self, host: str, started: list[Started]) -> bool:
        """Act on the first thing that needs acting on; whether anything did."""
        startd = self.machines[host]
        for name in self.names[host]:
            slot = startd.slots[name]
            running = self.pool.job_on_slot.get(name)
            if running is not None:
                job = self.pool.queue.jobs[running]
                if slot.claim is None or slot.claim.job is not job:
                    self._evict(name)
                    return True
                if slot.state is State.PREEMPTING:
                    self._evict(name)
                    startd.starter_exit(self.now(), slot=name)
                    return True
                self._watch_suspension(name, running, slot)
            elif name in self.waiting:
                if self._start_waiting(startd, name, started):
                    return True
            elif slot.state is State.CLAIMED and not slot.job_active:
                startd.release(self.now(), slot=name)
                return True
        return False

    def _start_waiting(self, startd: Startd, name: str, started: list[Started]) -> bool:
        """Activate the waiting job once its claim holds the slot; give up when it never
        will. Whether anything changed."""
        slot = startd.slots[name]
        job_name, submitter = self.waiting[name]
        job = self.pool.queue.jobs.get(job_name)
        claim, pre = slot.claim, slot.preemptor
        if job is not None and claim is not None and claim.request is job:
            if slot.pair != (State.CLAIMED, Activity.IDLE):
                return False
            del self.waiting[name]
            begun = self._activate(self.host[name], name, job, submitter)
            if begun is not None:
                started.append(begun)
            return True
        if job is not None and pre is not None and pre.request is job:
            return False  # still waiting for the running job to retire or vacate
        self._unwait(name)
        return True

    def _evict(self, name: str) -> None:
        self.pool.evict(name, self.env.now)
        self.suspended.discard(name)
        if name not in self.waiting:
            self.evictions += 1

    def _unwait(self, name: str) -> None:
        waiting = self.waiting.pop(name, None)
        if waiting is not None:
            self.pool.queue.unreserve(waiting[0])

    def _watch_suspension(self, name: str, job: str, slot: Slot) -> None:
        suspended = slot.activity is Activity.SUSPENDED
        if suspended and name not in self.suspended:
            self.suspended.add(name)
            self.on_suspend(job)
        elif not suspended and name in self.suspended:
            self.suspended.discard(name)
            assert slot.claim is not None  # the caller found the job running under it
            self.on_resume(job, slot.claim.job_age(self.now()))

    def _sync(self, host: str) -> None:
        """The pool's slots of ``host`` made the startd's: carved ones added, deleted ones
        dropped (a job still on one is evicted), the rest marked changed."""
        startd = self.machines[host]
        gone = [n for n in self.names[host] if n not in startd.slots]
        for name in gone:
            if name in self.pool.job_on_slot:
                self._evict(name)
            self._unwait(name)
            del self.host[name]
        self.pool.drop(gone)
        current = list(startd.slots)
        self.pool.add_slots([startd.slots[n].ad for n in current if n not in self.host])
        self.pool.touch([n for n in current if n in self.host])
        for name in current:
            self.host[name] = host
        self.names[host] = current

    def _rearm(self, host: str) -> None:
        """Wake the startd at its next timer or evaluation pass (only then can it change
        by itself)."""
        when = self.machines[host].next_moment()
        old = self._wake.get(host)
        if old is not None:
            if old.time == max(when, self.env.now) and not old.cancelled:
                return
            old.cancel()
        self._wake[host] = self.env.at(when, partial(self._tick, host))
