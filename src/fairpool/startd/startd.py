"""A condor_startd's policy, driven by time and protocol events (spec startd.md §2.1, §4).

``Startd`` is pure: the caller passes every time ``t`` in (integer seconds, never going
backwards) and a function ``inputs(t)`` giving the machine's measurements then
(KeyboardIdle, LoadAvg, CondorLoadAvg, ClockMin, ...). Time moves as in the startd:

* an evaluation pass runs at start-up, every ``UPDATE_INTERVAL`` (on its grid) and, while
  polling is on, every ``POLLING_INTERVAL``; polling turns on when a job starts and stays
  on while a slot is Claimed or Preempting or ``CondorLoadAvg > 0`` (checked after each
  pass);
* timers (MATCH_TIMEOUT, KILLING_TIMEOUT, the soft-kill timeout) fire at their time;
* an event at ``t`` runs after the timers of ``t`` and before the pass of ``t``.

Every change is recorded in ``changes`` (with its transition number and the expression that
drove it), every command to the starter in ``actions``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter

from ..classad import ClassAd
from .drain import DrainMixin
from .events import Reply
from .guards import willing
from .machine import machine_defaults
from .partition import carve
from .policy import StartdPolicy
from .retirement import retirement_remaining
from .slot import JOB_ONLY, WITHIN_RESOURCE_LIMITS, Kind, Slot, publish
from .states import Activity, State
from .transitions import Trigger

__all__ = ["Inputs", "Startd"]

Inputs = Callable[[int], Mapping[str, object]]
_TIMERS = attrgetter("timers")


class Startd(DrainMixin):
    """The policy state machine of one execute node (one or more slots)."""

    def __init__(
        self,
        policy: StartdPolicy | None = None,
        machine: ClassAd | Sequence[ClassAd] | None = None,
        inputs: Inputs | None = None,
        *,
        start: int = 0,
    ) -> None:
        super().__init__(policy or StartdPolicy.from_knobs())
        self.inputs = inputs or (lambda t: {})
        self.start = start
        self.now = start
        self._cursor = start - 1
        self._upcoming = start  # the next moment a timer or a pass may be due (_run_until)
        ads = (
            [ClassAd()]
            if machine is None
            else [machine]
            if isinstance(machine, ClassAd)
            else machine
        )
        for number, ad in enumerate(ads, 1):
            self._add_slot(ad.copy(), number)
        self._sample(start)

    # ---- slots ---------------------------------------------------------------------------

    def _add_slot(self, ad: ClassAd, number: int) -> Slot:
        for name in list(ad):
            if name.lower() in JOB_ONLY:
                del ad[name]
        machine_defaults(ad, number, self.start)
        name = str(ad["Name"])
        kind = Kind.PARTITIONABLE if ad.get("PartitionableSlot") is True else Kind.STATIC
        ad["SlotType"] = str(kind)
        if kind is Kind.PARTITIONABLE:
            ad.setdefault("NumDynamicSlots", 0)
            ad["WithinResourceLimits"] = WITHIN_RESOURCE_LIMITS
        for attribute, expr in self.policy.expressions.items():
            ad[attribute] = expr
        slot = Slot(name, ad, kind, entered_state=self.now, entered_activity=self.now)
        self.slots[name] = slot
        slot.publish_state()
        slot.publish_claim(self.policy.profile.unclaimed_current_rank)
        self.publish_requirements(slot)
        return slot

    def slot(self, name: str | None = None) -> Slot:
        """The named slot (the first one when None)."""
        if name is None:
            return next(iter(self.slots.values()))
        if name not in self.slots:
            raise KeyError(f"no slot {name!r} (have {', '.join(self.slots)})")
        return self.slots[name]

    @property
    def ad(self) -> ClassAd:
        """The first slot's ad."""
        return self.slot().ad

    # ---- time ----------------------------------------------------------------------------

    def advance(self, t: int) -> None:
        """Run every timer and evaluation pass due up to and including ``t``."""
        sampled = self._run_until(t)
        if max(t, self.now) != sampled:  # a pass does not change the measurements
            self._sample(max(t, self.now))

    def _run_until(self, t: int) -> int | None:
        """The timers and passes of ``advance``; the moment the last one sampled, if any.
        ``_upcoming`` keeps the next moment after ``t`` (no timer is due before it)."""
        sampled = None
        while (moment := self.next_moment()) <= t:
            self._sample(moment)
            sampled = moment
            self._fire_timers(moment)
            if self._pass_due(moment):
                self._pass(moment)
            self._cursor = moment
        self._cursor = max(self._cursor, t)
        self._upcoming = moment
        return sampled

    def next_moment(self) -> int:
        """When the next timer or evaluation pass is due (a caller on an event heap wakes the
        startd then; nothing changes in between unless an event arrives)."""
        if self._cursor < self.start:
            return self.start
        after = self._cursor + 1
        update = self.policy.update_interval
        moment = -(-after // update) * update
        if self.polling:
            poll = self.policy.polling_interval
            moment = min(moment, -(-after // poll) * poll)
        # few slots have a timer: the others are passed over without a Python step each
        for timers in filter(None, map(_TIMERS, self.slots.values())):
            moment = min(moment, *timers.values())
        return moment

    def _pass_due(self, t: int) -> bool:
        poll = self.polling and t % self.policy.polling_interval == 0
        return t == self.start or t % self.policy.update_interval == 0 or poll

    def _sample(self, t: int) -> None:
        """Bring the clock to ``t``: drain statistics, then the measurements in every ad."""
        if t < self.now:
            raise ValueError(f"time went backwards: {t} < {self.now}")
        self.account(t)
        self.now = t
        inputs = self.inputs(t)
        values = None
        for slot in self.slots.values():
            # A slot sampled at t already, with the same measurements (a live startd's, taken
            # once a second: each event of that second samples again) and the same claim,
            # has them in its ad: a change of state or job at t adds no time to any total.
            last = slot.sampled
            if last is not None and last[0] == t and last[1] is inputs and last[2] is slot.claim:
                continue
            if values is None:
                values = {k: v for k, v in inputs.items() if k.lower() not in JOB_ONLY}
            publish(slot.ad, values)
            publish(slot.ad, {"CurrentTime": t, "LastHeardFrom": t})
            slot.publish_times(t)
            slot.sampled = (t, inputs, slot.claim)

    def _prepare(self, t: int) -> None:
        """Everything before an event at ``t``: earlier moments, then the timers of ``t``
        (sampled at ``t`` once: what ``advance(t - 1)`` would sample in between, nothing
        sees before the sample at ``t`` replaces it)."""
        self._run_until(t - 1)
        self._sample(t)
        if self._upcoming <= t:  # else no timer is due at t: none to look for
            self._fire_timers(t)
        self.refusal = ""

    def _fire_timers(self, t: int) -> None:
        for slot in list(self.slots.values()):
            if not slot.timers or min(slot.timers.values()) > t:
                continue  # nothing due: most slots, most of the time
            for name, when in sorted(slot.timers.items(), key=lambda item: item[1]):
                if when <= t and slot.alive and slot.timers.get(name) == when:
                    del slot.timers[name]
                    self._timer(slot, name)

    def _timer(self, slot: Slot, name: str) -> None:
        if name == "match" and slot.pair == (State.MATCHED, Activity.IDLE):
            self.take(slot, "7", "MATCH_TIMEOUT expired")
        elif name == "preempting match" and slot.state is State.CLAIMED:
            self.publish_requirements(slot)  # the preempting claim never came
        elif name == "softkill":
            self.act(slot, "hard kill", "the soft-kill timeout (MaxVacateTime) expired")
            slot.timers["sigkill"] = self.now + self.policy.killing_timeout
        elif name == "sigkill":
            self.act(slot, "SIGKILL", "KILLING_TIMEOUT expired")
            self._starter_gone(slot, "SIGKILL after KILLING_TIMEOUT")

    def _pass(self, t: int) -> None:
        for slot in list(self.slots.values()):
            if slot.alive:
                self._cpu_busy(slot)
                self.evaluate(slot, periodic=True)
        for slot in self.slots.values():
            if slot.job_active:
                slot.ad["RetirementTimeRemaining"] = retirement_remaining(slot, t)
        self.publish_drain()
        condor_load = self.ad.get("CondorLoadAvg")
        loaded = type(condor_load) in (int, float) and condor_load > 0
        busy = (State.CLAIMED, State.PREEMPTING)
        self.polling = loaded or any(s.state in busy for s in self.slots.values())

    def _cpu_busy(self, slot: Slot) -> None:
        """CpuBusyTime: seconds since the pass at which CpuBusy became TRUE (§6)."""
        busy = slot.ad.eval("CpuBusy", now=self.now) is True if "CpuBusy" in slot.ad else False
        if busy and slot.cpu_busy_since is None:
            slot.cpu_busy_since = self.now
        elif not busy:
            slot.cpu_busy_since = None
        since = slot.cpu_busy_since
        publish(
            slot.ad, {"CpuIsBusy": busy, "CpuBusyTime": 0 if since is None else self.now - since}
        )

    # ---- events --------------------------------------------------------------------------

    def _reply(self, slot: Slot, accepted: bool) -> Reply:
        return Reply(accepted, slot.name, "" if accepted else self.refusal or "refused")

    def match(self, t: int, slot: str | None = None) -> Reply:
        """The negotiator's match notification (T6)."""
        self._prepare(t)
        target = self.slot(slot)
        return self._reply(target, self.event(target, Trigger.MATCH))

    def request_claim(
        self, t: int, request: ClassAd, preempting: bool = False, slot: str | None = None
    ) -> Reply:
        """A schedd's claim; ``preempting`` claims a Claimed slot (RANK or priority)."""
        self._prepare(t)
        target = self.slot(slot)
        if preempting:
            self.event(target, Trigger.PREEMPTING_CLAIM, request)
            pre = target.preemptor
            return self._reply(target, pre is not None and pre.request is request)
        if target.kind is Kind.PARTITIONABLE:
            return self._claim_partitionable(target, request)
        self.event(target, Trigger.CLAIM, request)
        claim = target.claim
        return self._reply(target, claim is not None and claim.request is request)

    def _claim_partitionable(self, pslot: Slot, request: ClassAd) -> Reply:
        """Carve a dynamic slot sized to the request (startd.md §11) and claim it."""
        fits, _ = willing(self.context(pslot, request))
        used = {s.ad.get("DSlotId") for s in self.slots.values() if s.parent == pslot.name}
        number = next(n for n in range(1, len(used) + 2) if n not in used)
        mods = self.policy.modifiers if self.policy.modifiers else None
        matched = pslot.state is State.MATCHED
        if matched:  # carving checks the p-slot's own Requirements, False while Matched
            self.publish_requirements(pslot)
        dslot_ad = carve(pslot.ad, request, self.now, number, mods) if fits else None
        if matched:
            pslot.ad["Requirements"] = False
        if dslot_ad is None:
            self.event(pslot, Trigger.CLAIM, ClassAd({"Requirements": False}))
            self.refusal = "the partitionable slot cannot be split for this request"
            return self._reply(pslot, False)
        request = request.copy()
        for resource in ("Cpus", "Memory", "Disk"):
            request[f"Request{resource}"] = dslot_ad[resource]
        dslot_ad["WithinResourceLimits"] = WITHIN_RESOURCE_LIMITS
        dslot = Slot(dslot_ad.eval("Name"), dslot_ad, Kind.DYNAMIC, parent=pslot.name)
        dslot.state, dslot.entered_state, dslot.entered_activity = (
            State.UNCLAIMED,
            self.now,
            self.now,
        )
        self.slots[dslot.name] = dslot
        dslot.publish_state()
        self.event(dslot, Trigger.CLAIM, request)
        accepted = dslot.claim is not None and dslot.claim.request is request
        if not accepted and dslot.alive:
            self._delete(dslot)
        if accepted and matched:
            self.take(pslot, "7", "the match went to a dynamic slot")
        return self._reply(dslot if accepted else pslot, accepted)

    def activate(self, t: int, job: ClassAd | None = None, slot: str | None = None) -> Reply:
        """The schedd starts a job on a Claimed/Idle slot (T10)."""
        self._prepare(t)
        target = self.slot(slot)
        claim = target.claim
        ad = job if job is not None else claim.request if claim is not None else None
        if ad is None:
            self.refusal = "no claim to activate"
            return self._reply(target, False)
        return self._reply(target, self.event(target, Trigger.ACTIVATE, ad))

    def starter_exit(self, t: int, slot: str | None = None) -> Reply:
        """The starter exited: the job finished, or it left after being evicted."""
        self._prepare(t)
        target = self.slot(slot)
        if not target.job_active:
            self.refusal = "no starter runs on this slot"
            return self._reply(target, False)
        self._starter_gone(target)
        return self._reply(target, True)

    def _starter_gone(self, slot: Slot, cause: str = "starter exit") -> None:
        claim = slot.claim
        if claim is None or claim.job is None:
            return
        claim.pause(self.now)
        if claim.evicted_by_draining:
            self.badput += claim.run_time * slot.cpus
        claim.end_job(self.now)
        claim.job = None
        claim.job_start = None
        claim.last_checkpoint = None
        slot.timers.pop("sigkill", None)
        slot.timers.pop("softkill", None)
        slot.publish_job()
        self.event(slot, Trigger.STARTER_EXIT, cause=cause)

    def vacate(self, t: int, fast: bool = False, slot: str | None = None) -> Reply:
        """``condor_vacate`` (``-fast``)."""
        self._prepare(t)
        target = self.slot(slot)
        trigger = Trigger.VACATE_FAST if fast else Trigger.VACATE
        return self._reply(target, self.event(target, trigger))

    def release(self, t: int, slot: str | None = None, preempting: bool = False) -> Reply:
        """The schedd releases its claim (or, ``preempting``, its preempting claim)."""
        self._prepare(t)
        target = self.slot(slot)
        if preempting:
            self.event(target, Trigger.RELEASE_PREEMPTOR)
            self.evaluate(target, periodic=False)
            return self._reply(target, True)
        return self._reply(target, self.event(target, Trigger.RELEASE))

    def benchmarks_done(self, t: int, slot: str | None = None) -> Reply:
        """Benchmarks finished (T4); ``LastBenchmark`` becomes ``t``."""
        self._prepare(t)
        target = self.slot(slot)
        target.ad["LastBenchmark"] = t
        return self._reply(target, self.event(target, Trigger.BENCHMARKS_DONE))
