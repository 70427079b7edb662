"""What comes out of a startd: replies to requests, changes of state, actions.

Every event method of ``Startd`` answers with a ``Reply``. Everything the startd did is
recorded as ``Change`` s (state or activity, with the transition's number and the
expression that drove it) and ``Action`` s (commands to the starter, checkpoints).
"""

from __future__ import annotations

from dataclasses import dataclass

from .states import Pair

__all__ = ["Action", "Change", "Reply"]


@dataclass(frozen=True)
class Reply:
    """The startd's answer: accepted or not, the slot that took a claim, and why not."""

    accepted: bool = True
    slot: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class Change:
    """One transition: when, which slot, its number, from and to, and what drove it.

    ``cause`` names the guard or event; ``expression`` is the text of the policy expression
    that drove it (None for protocol events and timers)."""

    t: int
    slot: str
    number: str
    source: Pair
    target: Pair
    cause: str
    expression: str | None = None


@dataclass(frozen=True)
class Action:
    """Something the startd did besides changing state: ``suspend``, ``continue``,
    ``soft kill``, ``hard kill``, ``SIGKILL``, ``checkpoint``, ``benchmark``, ``refuse``."""

    t: int
    slot: str
    kind: str
    detail: str = ""
