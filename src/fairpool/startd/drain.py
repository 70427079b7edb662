"""Draining the machine: ``condor_drain`` and condor_defrag's requests (startd.md §9).

A drain request applies to every slot of the startd. ``graceful`` lets each job retire
(reversibly, but no unretiring while draining), ``quick`` evicts at once but lets jobs
vacate, ``fast`` kills. While draining, START is the request's start expression (else
``DEFAULT_DRAINING_START_EXPR``, else Requirements is False); idle slots move to Drained.
The statistics of defrag.md §D9 are published into every slot ad.
"""

from __future__ import annotations

from ..classad import Expr
from .engine import Engine
from .events import Reply
from .expressions import Truth, truth
from .guards import Drain
from .retirement import max_vacate_time, retirement_remaining
from .slot import publish
from .states import State
from .transitions import Trigger

__all__ = ["SCHEDULES", "DrainMixin"]

SCHEDULES = {
    "graceful": Trigger.DRAIN_GRACEFUL,
    "quick": Trigger.DRAIN_QUICK,
    "fast": Trigger.DRAIN_FAST,
}
_DRAIN_ATTRIBUTES = ("Draining", "DrainReason", "DrainingRequestId")


class DrainMixin(Engine):
    """Draining requests, their cancellation and the draining statistics."""

    unclaimed_time: float = 0.0
    last_drain_start: int | None = None
    last_drain_stop: int | None = None
    _accounted: int | None = None

    def drain(
        self,
        t: int,
        how: str = "graceful",
        resume: bool = False,
        check: Expr | None = None,
        start: Expr | None = None,
        reason: str = "by command",
        request_id: str = "1",
    ) -> Reply:
        """Start draining; refused when already draining or ``check`` fails on a slot."""
        self._prepare(t)  # type: ignore[attr-defined]
        name = next(iter(self.slots))
        if how not in SCHEDULES:
            return Reply(False, name, f"unknown drain schedule {how!r}")
        if self.draining is not None:
            return Reply(False, name, "Draining already in progress")
        for slot in self.slots.values():
            if check is not None and truth(check.eval(slot.ad, now=t)) is not Truth.TRUE:
                return Reply(False, slot.name, f"the check expression is not TRUE on {slot.name}")
        chosen = start if start is not None else self.policy.draining_start
        self.draining = Drain(how, reason, resume, chosen, request_id, t)
        self.last_drain_start = t
        self.publish_drain()
        for slot in list(self.slots.values()):
            if slot.alive:
                self.publish_requirements(slot)
                if slot.claim is not None and slot.claim.job is not None:
                    slot.claim.evicted_by_draining = True
                self.event(slot, SCHEDULES[how])
        self._evaluate_all()
        return Reply(True, name)

    def cancel_drain(self, t: int, request_id: str | None = None) -> Reply:
        """``condor_drain -cancel``: Drained slots go back to Owner at once."""
        self._prepare(t)  # type: ignore[attr-defined]
        name = next(iter(self.slots))
        drain = self.draining
        if drain is None or (request_id is not None and request_id != drain.request_id):
            return Reply(False, name, "not draining")
        self.stop_draining()
        for slot in list(self.slots.values()):
            if slot.alive:
                self.event(slot, Trigger.CANCEL_DRAIN)
        self._evaluate_all()
        return Reply(True, name)

    def stop_draining(self) -> None:
        self.draining = None
        self.last_drain_stop = self.now
        for slot in self.slots.values():
            if slot.claim is not None:
                slot.claim.evicted_by_draining = False
            if slot.state is not State.PREEMPTING and slot.state is not State.MATCHED:
                self.publish_requirements(slot)
        self.publish_drain()

    def _evaluate_all(self) -> None:
        for slot in list(self.slots.values()):
            if slot.alive:
                self.evaluate(slot, periodic=False)
        self.publish_drain()

    def account(self, t: int) -> None:
        """Cpu-seconds spent Unclaimed or Drained while draining, up to ``t``."""
        if self.draining is not None and self._accounted is not None and t > self._accounted:
            idle = (State.UNCLAIMED, State.DRAINED)
            cpus = sum(s.cpus for s in self.slots.values() if s.state in idle)
            self.unclaimed_time += cpus * (t - self._accounted)
        self._accounted = t

    def publish_drain(self) -> None:
        """Draining attributes and the expected cost of draining now (defrag.md §D9)."""
        values: dict[str, object] = {
            "TotalMachineDrainingBadput": self.badput,
            "TotalMachineDrainingUnclaimedTime": self.unclaimed_time,
            **self._expected(),
        }
        if self.last_drain_start is not None:
            values["LastDrainStartTime"] = self.last_drain_start
        if self.last_drain_stop is not None:
            values["LastDrainStopTime"] = self.last_drain_stop
        drain = self.draining
        for slot in self.slots.values():
            publish(slot.ad, values)
            if drain is None:
                for attribute in _DRAIN_ATTRIBUTES:
                    slot.ad.pop(attribute, None)
            else:
                publish(
                    slot.ad,
                    {
                        "Draining": True,
                        "DrainReason": drain.reason,
                        "DrainingRequestId": drain.request_id,
                    },
                )

    def _expected(self) -> dict[str, object]:
        graceful = quick = 0.0
        longest_graceful = longest_quick = 0
        for slot in self.slots.values():
            claim = slot.claim
            if claim is None or claim.job is None:
                continue
            vacate = max_vacate_time(slot, self.now)
            remaining = retirement_remaining(slot, self.now)
            grace = vacate if remaining < vacate else remaining
            age = claim.job_age(self.now)
            graceful += slot.cpus * (age + grace)
            quick += slot.cpus * (age + vacate)
            longest_graceful = max(longest_graceful, grace)
            longest_quick = max(longest_quick, vacate)
        return {
            "ExpectedMachineGracefulDrainingBadput": graceful,
            "ExpectedMachineQuickDrainingBadput": quick,
            "ExpectedMachineGracefulDrainingCompletion": self.now + longest_graceful,
            "ExpectedMachineQuickDrainingCompletion": self.now + longest_quick,
        }
