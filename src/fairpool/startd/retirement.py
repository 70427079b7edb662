"""How long a running job may still retire, and when eviction must begin (startd.md §8).

``MaxJobRetirementTime`` is evaluated in the slot ad against the job (absent or not a
number: 0) and capped by the job's own ``MaxJobRetirementTime``. The job's age counts run
time only (suspension excluded). Eviction begins ``MachineMaxVacateTime`` seconds before
retirement would end, so that the hard kill lands at its end. A quick drain does not
honour retirement at all.
"""

from __future__ import annotations

from .expressions import number
from .slot import Slot

__all__ = ["max_vacate_time", "retirement_expired", "retirement_remaining"]

DEFAULT_MAX_VACATE = 600


def retirement_remaining(slot: Slot, now: int) -> int:
    """Seconds of retirement left to the running job (0 when none runs)."""
    claim = slot.claim
    if claim is None or claim.job is None:
        return 0
    limit = number(slot.ad, "MaxJobRetirementTime", claim.job, now) or 0.0
    own = claim.job.get("MaxJobRetirementTime")
    if type(own) in (int, float):
        limit = min(limit, float(own))
    return max(0, int(limit) - claim.job_age(now))


def max_vacate_time(slot: Slot, now: int) -> int:
    """``MachineMaxVacateTime``, or the job's smaller ``JobMaxVacateTime``."""
    claim = slot.claim
    target = claim.job if claim is not None else None
    value = number(slot.ad, "MachineMaxVacateTime", target, now)
    limit = DEFAULT_MAX_VACATE if value is None else int(value)
    own = target.get("JobMaxVacateTime") if target is not None else None
    if type(own) is int and own < limit:
        limit = own
    return limit


def retirement_expired(slot: Slot, now: int, quick: bool = False) -> bool:
    """No retirement left, or no more than the vacate time needs."""
    remaining = 0 if quick else retirement_remaining(slot, now)
    return remaining <= 0 or max_vacate_time(slot, now) >= remaining
