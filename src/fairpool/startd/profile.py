"""Behaviour profiles: the seed's 6.6 startd, or current HTCondor's (spec startd.md §0, §13).

Both profiles run the same state machine, with retirement, the Drained state and
partitionable slots in each (spec README: seed 002 relies on them). A profile selects only
the divergences of startd.md §13 and the evaluation order of §2.2:

=====================  ===========  =============  ===================================
switch                 SEED         MODERN         divergence
=====================  ===========  =============  ===================================
order                  6.6 eval     eval_policy    §2.2 (PREEMPT retires in MODERN)
MATCHED_CHECKS_START   True         False          DIV-1: Matched and START FALSE
MATCH_TIMEOUT          300          120            DIV-5
UNCLAIMED_CURRENT_RANK -1.0         0.0            DIV-8 (spec README: the seed's -1.0)
IsOwner default        START=?=F    False          DIV-9
vacate / release       vacate now   retire / kill  DIV-11
STALE_AD_...           True         True           DIV-10
chaining               no           yes            §2.2: re-evaluate on entering Idle
                                                   or Retiring
soft-kill timeout      no           yes            §4: the starter escalates after
                                                   MaxVacateTime
=====================  ===========  =============  ===================================

The knobs of the same names override a profile's switch (``policy.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .transitions import Order

__all__ = ["MODERN", "PROFILES", "SEED", "Profile"]


@dataclass(frozen=True)
class Profile:
    """The divergence switches of one behaviour profile."""

    name: str
    order: Order
    matched_checks_start: bool
    stale_ad_in_enter_action: bool
    unclaimed_current_rank: float
    chains: bool
    soft_kill_timeout: bool


SEED = Profile(
    name="SEED",
    order=Order.SEED,
    matched_checks_start=True,
    stale_ad_in_enter_action=True,
    unclaimed_current_rank=-1.0,
    chains=False,
    soft_kill_timeout=False,
)

MODERN = Profile(
    name="MODERN",
    order=Order.MODERN,
    matched_checks_start=False,
    stale_ad_in_enter_action=True,
    unclaimed_current_rank=0.0,
    chains=True,
    soft_kill_timeout=True,
)

PROFILES = {profile.name: profile for profile in (SEED, MODERN)}
