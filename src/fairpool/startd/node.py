"""An execute node: one machine's startd policy engine and the starter that carries it out.

The simulator's machines (sim/startds.py) and the live startd daemon (daemons/startd.py)
each run their machine through an ``ExecuteNode``, so a slot's life is written once: the
node takes the schedd's requests (claim, activate, release) and the starter's news (the
job's process exited) into the policy engine (``Startd``), carries out what the engine
decided through a ``Starter`` (its actions: suspend, continue, soft kill, hard kill), and
says what the job's schedd must hear, as ``NodeEvent`` s:

* ``suspended`` / ``resumed``: the engine suspended or continued the job;
* ``vacated``: the job's process is gone because the engine evicted it (or its claim
  or slot went away), so the job goes back to idle;
* ``exited``: the job's process ended by itself (``exited`` is the caller's own call; the
  event tells which of the two it was);
* ``claim ready``: a preempting claim now holds its slot, Claimed/Idle, and waits for
  its job to be activated; ``claim lost``: a preempting claim fell through.

A starter either really runs the job (the live pool: a vacate sends a signal and the
process exits later, reported through ``exited``) or stands for one (the simulator:
the job leaves the moment it is told to, ``Starter.signal`` says so by returning True).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..classad import ClassAd
from ..errors import FairpoolError
from .events import Change, Reply
from .startd import Startd
from .states import Activity, State

__all__ = [
    "CLAIM_LOST",
    "CLAIM_READY",
    "EXITED",
    "RESUMED",
    "SUSPENDED",
    "VACATED",
    "ExecuteNode",
    "NodeEvent",
    "Starter",
]

SUSPENDED, RESUMED, VACATED, EXITED = "suspended", "resumed", "vacated", "exited"
CLAIM_READY, CLAIM_LOST = "claim ready", "claim lost"
_KILLS = ("soft kill", "hard kill", "SIGKILL")


@dataclass(frozen=True)
class NodeEvent:
    """What the schedd of ``job`` must hear about ``slot``; ``run_time``: seconds the
    job has run under its claim, suspensions excluded (for ``resumed``)."""

    kind: str
    slot: str
    job: ClassAd
    run_time: int = 0


class Starter(Protocol):
    """Runs jobs on a node's slots."""

    def start(self, slot: str, job: ClassAd) -> None:
        """Start ``job`` on ``slot``; a ``FairpoolError`` says why it cannot run."""

    def signal(self, slot: str, action: str) -> bool:
        """Carry out a startd action (``suspend``, ``continue``, ``soft kill``, ``hard
        kill``, ``SIGKILL``) on the job of ``slot``; True when the job is gone at once."""


class ExecuteNode:
    """A machine's startd and starter, and the jobs its starter runs."""

    def __init__(
        self, startd: Startd, starter: Starter, log: Callable[[Change], None] | None = None
    ) -> None:
        self.startd = startd
        self.starter = starter
        self.log = log  # hears every state change, for the startd's log
        self.running: dict[str, ClassAd] = {}  # slot -> the job its starter runs
        self.suspended: set[str] = set()
        self.waiting: dict[str, ClassAd] = {}  # slot -> a preempting claim's request
        self.events: list[NodeEvent] = []  # for the caller to take

    @property
    def slots(self) -> dict:
        return self.startd.slots

    def take_events(self) -> list[NodeEvent]:
        events, self.events = self.events, []
        return events

    # -- the schedd's requests ----------------------------------------------------------
    def claim(self, t: int, slot: str, request: ClassAd, preempting: bool = False) -> Reply:
        """A schedd's claim for ``request`` (``preempting``: on a Claimed slot, to run
        once the current job has retired or vacated; reported by ``claim ready``)."""
        reply = self.startd.request_claim(t, request, preempting=preempting, slot=slot)
        if preempting and reply.accepted:
            self._forget_waiting(slot)  # it replaces any claim that waited there before
            self.waiting[slot] = request
        self.settle(t)
        return reply

    def activate(self, t: int, slot: str, job: ClassAd) -> Reply:
        """Start ``job`` under the claim on ``slot``. A job the starter cannot start is
        refused with the starter's reason (its process never ran)."""
        reply = self.startd.activate(t, job, slot=slot)
        if reply.accepted:
            try:
                self.starter.start(slot, job)
            except FairpoolError as err:
                self.startd.starter_exit(t, slot=slot)
                reply = Reply(False, slot, str(err))
            else:
                self.running[slot] = job
        self.settle(t)
        return reply

    def refused(self, t: int, slot: str) -> None:
        """The starter could not start the job ``activate`` gave it on ``slot`` after all
        (a starter that answers later than ``activate`` returns): as if refused there."""
        if self.running.pop(slot, None) is None:
            return
        self.suspended.discard(slot)
        target = self.startd.slots.get(slot)
        if target is not None and target.job_active:
            self.startd.starter_exit(t, slot=slot)
        self.settle(t)

    def lost(self, t: int, slot: str) -> None:
        """The job's process on ``slot`` was lost with its starter (and killed): vacated,
        whatever the startd was doing with it, and its claim ended with it (the schedd
        forgets a claim whose job was vacated)."""
        if slot in self.running:
            self._gone(t, slot)
            self.startd.release(t, slot=slot)
            self.settle(t)

    def exited(self, t: int, slot: str) -> str | None:
        """The starter's process on ``slot`` ended: ``vacated`` when the startd was
        evicting the job, ``exited`` when it ended by itself (None: no job ran there)."""
        job = self.running.pop(slot, None)
        if job is None:
            return None
        target = self.startd.slots.get(slot)
        evicted = target is None or target.state is State.PREEMPTING or target.claim is None
        self.suspended.discard(slot)
        if target is not None and target.job_active:
            self.startd.starter_exit(t, slot=slot)
        kind = VACATED if evicted else EXITED
        self.events.append(NodeEvent(kind, slot, job))
        self.settle(t)
        return kind

    def release(self, t: int, slot: str) -> Reply:
        """The schedd gives up its claim on ``slot`` (no job runs under it any more)."""
        reply = self.startd.release(t, slot=slot)
        self.settle(t)
        return reply

    def advance(self, t: int) -> None:
        """Run the startd's timers and evaluation passes up to ``t``."""
        self.startd.advance(t)
        self.settle(t)

    # -- carrying out what the startd decided --------------------------------------------
    def settle(self, t: int) -> None:
        """Carry out the startd's actions and report what they did to the jobs, until
        nothing more follows. Without a change of state or an action since the last
        settle there is nothing to do (the jobs' and claims' fates follow the states)."""
        startd = self.startd
        if not startd.changes and not startd.actions:
            return
        while self._carry_out(t) or self._check_jobs(t) or self._check_waiting():
            pass

    def _carry_out(self, t: int) -> bool:
        startd = self.startd
        if self.log is not None:
            for change in startd.changes:
                self.log(change)
        startd.changes.clear()
        actions, startd.actions = startd.actions, []
        acted = False
        for action in actions:
            job = self.running.get(action.slot)
            if job is None:
                continue
            if action.kind == "suspend":
                self.starter.signal(action.slot, action.kind)
                self.suspended.add(action.slot)
                self.events.append(NodeEvent(SUSPENDED, action.slot, job))
            elif action.kind == "continue":
                self.starter.signal(action.slot, action.kind)
                self.suspended.discard(action.slot)
                claim = startd.slots[action.slot].claim
                run = claim.job_age(t) if claim is not None else 0
                self.events.append(NodeEvent(RESUMED, action.slot, job, run))
            elif action.kind in _KILLS and self.starter.signal(action.slot, action.kind):
                self._gone(t, action.slot)
                acted = True
        return acted

    def _check_jobs(self, t: int) -> bool:
        """A job whose slot or claim went away without a kill: its starter is stopped (the
        first such, in the order the jobs started; the caller looks again after)."""
        slots = self.startd.slots
        for slot, job in self.running.items():
            target = slots.get(slot)
            if target is None or target.claim is None or target.claim.job is not job:
                break
        else:
            return False
        self.starter.signal(slot, "hard kill")
        self._gone(t, slot)
        return True

    def _gone(self, t: int, slot: str) -> None:
        """The job left ``slot`` on the startd's word: vacated."""
        job = self.running.pop(slot)
        self.suspended.discard(slot)
        target = self.startd.slots.get(slot)
        if target is not None and target.job_active:
            self.startd.starter_exit(t, slot=slot)
        self.events.append(NodeEvent(VACATED, slot, job))

    def _check_waiting(self) -> bool:
        """Preempting claims that now hold their slot, or never will."""
        for slot, request in list(self.waiting.items()):
            target = self.startd.slots.get(slot)
            claim = target.claim if target is not None else None
            if claim is not None and claim.request is request:
                if target.pair != (State.CLAIMED, Activity.IDLE):
                    continue
                del self.waiting[slot]
                self.events.append(NodeEvent(CLAIM_READY, slot, request))
                return True
            preemptor = target.preemptor if target is not None else None
            if preemptor is not None and preemptor.request is request:
                continue  # still waiting for the running job to retire or vacate
            self._forget_waiting(slot)
            return True
        return False

    def _forget_waiting(self, slot: str) -> None:
        request = self.waiting.pop(slot, None)
        if request is not None:
            self.events.append(NodeEvent(CLAIM_LOST, slot, request))
