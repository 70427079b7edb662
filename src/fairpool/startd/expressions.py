"""Evaluating policy expressions the way the startd does (spec startd.md §1.5, §2.3).

* **Locally** (Owner, Unclaimed, Matched): in the slot ad with no TARGET, so every job
  attribute is UNDEFINED. ``START =?= False`` is then TRUE only when START is FALSE
  without the job's help (seed 004 §3.6.3).
* **With the job** (Claimed, Preempting): TARGET is the claim's job ad, or its request ad
  before a job starts.
* A result is TRUE, FALSE, or "not a boolean" (UNDEFINED, ERROR, a string...). Numbers count
  as booleans (non-zero is TRUE). What "not a boolean" means is the caller's choice per
  expression (startd.md §2.3): for most it is "not TRUE"; for START's FALSE checks it is
  "not FALSE"; for IsOwner and WANT_VACATE HTCondor stops the daemon, and we raise
  ``PolicyError``.
* ``_VANILLA`` variants (SUSPEND, CONTINUE, PREEMPT, KILL, WANT_SUSPEND, WANT_VACATE) are
  used for a vanilla-universe job when defined and boolean; otherwise the plain one.
"""

from __future__ import annotations

from enum import Enum

from ..classad import ClassAd
from ..classad.match import evaluate_attribute
from ..errors import FairpoolError

__all__ = ["VANILLA_AWARE", "PolicyError", "Truth", "evaluate", "number", "truth"]

VANILLA_AWARE = frozenset({"suspend", "continue", "preempt", "kill", "want_suspend", "want_vacate"})


class PolicyError(FairpoolError):
    """A policy expression HTCondor requires to be a boolean was not (the startd would exit)."""


class Truth(Enum):
    TRUE = "TRUE"
    FALSE = "FALSE"
    OTHER = "not a boolean"


def truth(value: object) -> Truth:
    """EvalBool: booleans as themselves, numbers by non-zero, anything else is not a boolean."""
    t = type(value)
    if t is bool:
        return Truth.TRUE if value else Truth.FALSE
    if t is int or t is float:
        return Truth.TRUE if value != 0 else Truth.FALSE
    return Truth.OTHER


def evaluate(
    ad: ClassAd, name: str, target: ClassAd | None, now: int, vanilla: bool = False
) -> tuple[Truth, str]:
    """The truth of attribute ``name`` of the slot ad (against ``target``), and which
    attribute decided it (``NAME_VANILLA`` when that variant applied)."""
    if vanilla and name.lower() in VANILLA_AWARE:
        variant = f"{name}_VANILLA"
        if variant in ad:
            result = truth(evaluate_attribute(ad, variant, target, now=now))
            if result is not Truth.OTHER:
                return result, variant
    return truth(evaluate_attribute(ad, name, target, now=now)), name


def number(ad: ClassAd, name: str, target: ClassAd | None, now: int) -> float | None:
    """A numeric attribute (booleans count as 1/0); None when it is not a number."""
    value = evaluate_attribute(ad, name, target, now=now)
    if type(value) in (int, float, bool):
        return float(value)
    return None
