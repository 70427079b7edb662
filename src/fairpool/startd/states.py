"""The slot states and activities, with HTCondor's wire strings as their values.

A slot is always in one (State, Activity) pair, published as the ``State`` and ``Activity``
attributes of its ad (seed 004 §3.6.5-3.6.6; spec startd.md §1.1). ``Retiring`` and the
``Drained`` state come from current HTCondor (seed 002 relies on them for draining) and are
part of the state machine in every profile. ``Delete`` is not a state a slot advertises: it
marks a dynamic slot that has been removed (startd.md §11).
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ACTIVITIES", "Activity", "Pair", "State"]


class State(StrEnum):
    """Where a slot stands with the pool (the ``State`` attribute)."""

    OWNER = "Owner"
    UNCLAIMED = "Unclaimed"
    MATCHED = "Matched"
    CLAIMED = "Claimed"
    PREEMPTING = "Preempting"
    DRAINED = "Drained"
    DELETE = "Delete"


class Activity(StrEnum):
    """What a slot is doing within its state (the ``Activity`` attribute)."""

    IDLE = "Idle"
    BUSY = "Busy"
    SUSPENDED = "Suspended"
    RETIRING = "Retiring"
    VACATING = "Vacating"
    KILLING = "Killing"
    BENCHMARKING = "Benchmarking"


Pair = tuple[State, Activity]

# The activities each state allows: the seed's figure 3.4, plus Retiring and Drained.
ACTIVITIES: dict[State, frozenset[Activity]] = {
    State.OWNER: frozenset({Activity.IDLE}),
    State.UNCLAIMED: frozenset({Activity.IDLE, Activity.BENCHMARKING}),
    State.MATCHED: frozenset({Activity.IDLE}),
    State.CLAIMED: frozenset({Activity.IDLE, Activity.BUSY, Activity.SUSPENDED, Activity.RETIRING}),
    State.PREEMPTING: frozenset({Activity.VACATING, Activity.KILLING}),
    State.DRAINED: frozenset({Activity.RETIRING, Activity.IDLE}),
    State.DELETE: frozenset({Activity.IDLE}),
}
