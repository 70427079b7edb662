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

Each machine is an ``ExecuteNode`` (startd/node.py, which the live startd runs too) with
a starter that stands for the jobs: told to vacate, a job leaves at once (it takes no
time to vacate). After every step the simulator takes what the node reports, at that
moment: a vacated job is idle again, a suspended job stops running (its end is put off
by the time it spends suspended), a preempting claim that holds its slot has its job
activated, and, as the schedd does, a claim with no job left is released.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..classad import ClassAd
from ..negotiator.submitters import job_id
from ..runtime.env import Environment, Event
from ..startd import Activity, Startd, State
from ..startd.node import (
    CLAIM_LOST,
    CLAIM_READY,
    RESUMED,
    SUSPENDED,
    VACATED,
    ExecuteNode,
    NodeEvent,
)
from .pool import Pool, Started

__all__ = ["Startds"]

_KILLS = frozenset({"soft kill", "hard kill", "SIGKILL"})


class _Instant:
    """The simulator's starter: jobs run on the pool's clock, and leave at once when the
    startd vacates or kills them."""

    def start(self, slot: str, job: ClassAd) -> None:
        return None

    def signal(self, slot: str, action: str) -> bool:
        return action in _KILLS


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
        self.machines: dict[str, ExecuteNode] = {}
        self.host: dict[str, str] = {}  # slot -> its machine
        self.names: dict[str, list[str]] = {}  # machine -> its slots, as the pool has them
        self.waiting: dict[str, str] = {}  # slot -> submitter of the job its claim waits for
        self.evictions = 0  # runs ended by the policy (not for a preempting claim)
        self._wake: dict[str, Event] = {}

    def now(self) -> int:
        """The startds' clock: the simulated time in whole seconds."""
        return int(self.env.now // 1)

    # -- machines ---------------------------------------------------------------------
    def add(self, host: str, startd: Startd) -> None:
        """A machine joins: its start-up evaluation, its slots into the pool."""
        node = self.machines[host] = ExecuteNode(startd, _Instant())
        self.names[host] = []
        node.advance(self.now())
        self.report(self._settle(host))

    def forget(self, host: str) -> None:
        """A machine goes away (power cut): its jobs are idle again, work lost."""
        names = self.names.pop(host)
        node = self.machines.pop(host)
        for name in names:
            if name in self.pool.job_on_slot:
                self.pool.evict(name, self.env.now)
            request = node.waiting.get(name)
            if request is not None:
                self.pool.queue.unreserve(job_id(request))
            self.waiting.pop(name, None)
            del self.host[name]
        self.pool.drop(names)
        wake = self._wake.pop(host, None)
        if wake is not None:
            wake.cancel()

    def changed(self, host: str) -> None:
        """The machine's startd was told something outside the schedd's calls (a drain
        from the defrag daemon): what it did reaches the pool."""
        self.report(self._settle(host))

    def drives(self, slot: str) -> bool:
        """Whether the slot is on a driven machine."""
        return slot in self.host

    # -- the schedd's side ------------------------------------------------------------
    def take(self, slot: str, job: ClassAd, submitter: str) -> list[Started]:
        """A match on a static or dynamic slot: claim it if free, else preempt its claim."""
        host = self.host[slot]
        node = self.machines[host]
        if node.slots[slot].state is not State.CLAIMED:
            started = self.claim(slot, job, submitter)
            return [] if started is None else [started]
        if node.claim(self.now(), slot, job, preempting=True).accepted:
            self.waiting[slot] = submitter
            self.pool.queue.reserve(job_id(job))
        self.report(self._settle(host))
        return []

    def claim(self, slot: str, job: ClassAd, submitter: str) -> Started | None:
        """Claim a free slot for ``job`` and start it (None: the startd refused)."""
        host = self.host[slot]
        reply = self.machines[host].claim(self.now(), slot, job)
        started = None
        if reply.accepted and reply.slot is not None:
            started = self._activate(host, reply.slot, job, submitter)
        self.report(self._settle(host))
        return started

    def release(self, slot: str) -> None:
        """The job on ``slot`` is gone (completed or removed): its starter exits."""
        self.machines[self.host[slot]].exited(self.now(), slot)
        self.report(self._settle(self.host[slot]))

    def reuse(self, slot: str, job: ClassAd, submitter: str) -> Started | None:
        """The job on ``slot`` completed and the schedd reuses its claim for ``job``: the
        starter exits, and if the claim is still Claimed/Idle (the startd ends it once
        CLAIM_WORKLIFE is over) the job is activated on it."""
        host = self.host[slot]
        node = self.machines[host]
        node.exited(self.now(), slot)
        target = node.slots.get(slot)
        started = None
        if target is not None and target.pair == (State.CLAIMED, Activity.IDLE):
            started = self._activate(host, slot, job, submitter)
        if started is not None:
            self.pool.reused += 1
        self.report(self._settle(host))
        return started

    def _activate(self, host: str, slot: str, job: ClassAd, submitter: str) -> Started | None:
        """Start ``job`` under the claim on ``slot`` (None: the startd refused)."""
        if not self.machines[host].activate(self.now(), slot, job).accepted:
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
        node = self.machines[host]
        node.advance(self.now() - 1)  # an event at t comes before the pass of t
        self.report(self._settle(host))
        target = node.slots.get(slot)
        claim = target.claim if target is not None else None
        if slot in node.suspended or claim is None or claim.job is None:
            return None
        return claim.job_age(self.now())

    # -- what the nodes report ----------------------------------------------------------
    def _tick(self, host: str) -> None:
        self._wake.pop(host, None)
        node = self.machines.get(host)
        if node is not None:
            node.advance(self.now())
            self.report(self._settle(host))

    def _settle(self, host: str) -> list[Started]:
        started: list[Started] = []
        node = self.machines[host]
        while True:
            events = node.take_events()
            for event in events:
                self._heard(host, event, started)
            released = self._release_idle_claims(node)
            self._sync(host)
            if not events and not released:
                break
        self._rearm(host)
        return started

    def _heard(self, host: str, event: NodeEvent, started: list[Started]) -> None:
        name = job_id(event.job)
        if event.kind == VACATED:
            if event.slot in self.pool.job_on_slot:
                self.pool.evict(event.slot, self.env.now)
                if event.slot not in self.waiting:
                    self.evictions += 1
        elif event.kind == SUSPENDED:
            self.on_suspend(name)
        elif event.kind == RESUMED:
            self.on_resume(name, event.run_time)
        elif event.kind == CLAIM_READY:
            submitter = self.waiting.pop(event.slot)
            if self.pool.queue.jobs.get(name) is event.job:
                begun = self._activate(host, event.slot, event.job, submitter)
                if begun is not None:
                    started.append(begun)
        elif event.kind == CLAIM_LOST:
            self.waiting.pop(event.slot, None)
            self.pool.queue.unreserve(name)

    def _release_idle_claims(self, node: ExecuteNode) -> bool:
        """The schedd releases a claim it has no job for (reuse happens in ``reuse``)."""
        idle = [
            slot.name
            for slot in node.slots.values()
            if slot.state is State.CLAIMED and not slot.job_active and slot.name not in node.waiting
        ]
        for name in idle:
            node.release(self.now(), name)
        return bool(idle)

    def _sync(self, host: str) -> None:
        """The pool's slots of ``host`` made the startd's: carved ones added, deleted ones
        dropped, the rest marked changed."""
        node = self.machines[host]
        gone = [n for n in self.names[host] if n not in node.slots]
        for name in gone:
            del self.host[name]
        self.pool.drop(gone)
        current = list(node.slots)
        self.pool.add_slots([node.slots[n].ad for n in current if n not in self.host])
        self.pool.touch([n for n in current if n in self.host])
        for name in current:
            self.host[name] = host
        self.names[host] = current

    def _rearm(self, host: str) -> None:
        """Wake the startd at its next timer or evaluation pass (only then can it change
        by itself)."""
        when = self.machines[host].startd.next_moment()
        old = self._wake.get(host)
        if old is not None:
            if old.time == max(when, self.env.now) and not old.cancelled:
                return
            old.cancel()
        self._wake[host] = self.env.at(when, partial(self._tick, host))
