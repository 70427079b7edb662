"""What goes into a startd (events, as values) and what comes out (changes, actions, replies).

Events carry their own time ``t`` (integer epoch seconds, as the startd's timestamps are).
``Startd.handle(event)`` first brings the startd up to ``t`` (timers due at ``t`` fire
first, then the event, then the evaluation pass of ``t`` if one is due: spec startd.md
§2.1), and answers with a ``Reply``. Everything the startd did is recorded as ``Change`` s
(state or activity) and ``Action`` s (commands to the starter, refusals, checkpoints).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..classad import ClassAd, Expr
from .states import Pair

__all__ = [
    "Action",
    "Activate",
    "CancelDrain",
    "Change",
    "Drain",
    "Event",
    "Inputs",
    "Match",
    "Release",
    "Reply",
    "RequestClaim",
    "StarterExit",
    "Vacate",
]


@dataclass(frozen=True)
class Inputs:
    """Machine measurements from time ``t`` on: ``KeyboardIdle``, ``ConsoleIdle`` (seconds,
    growing from then on, or ``"busy"``: held at 0 while someone types), ``LoadAvg``,
    ``CondorLoadAvg``, or any other attribute. The startd samples them at its passes."""

    t: int
    values: Mapping[str, object]


@dataclass(frozen=True)
class Match:
    """The negotiator's match notification (MATCH_INFO) for ``slot``."""

    t: int
    slot: str


@dataclass(frozen=True)
class RequestClaim:
    """A schedd's claim request. ``preempting`` claims a busy slot through its preempting
    claim (RANK or priority preemption; ``reason`` is informational)."""

    t: int
    slot: str
    request: ClassAd
    preempting: bool = False
    reason: str = ""


@dataclass(frozen=True)
class Activate:
    """The schedd starts ``job`` on a Claimed/Idle slot (the claim's request ad if None)."""

    t: int
    slot: str
    job: ClassAd | None = None


@dataclass(frozen=True)
class StarterExit:
    """The starter on ``slot`` exited: the job finished, or it left after being evicted."""

    t: int
    slot: str


@dataclass(frozen=True)
class Vacate:
    """``condor_vacate`` (``fast``: ``condor_vacate -fast``) for ``slot``."""

    t: int
    slot: str
    fast: bool = False


@dataclass(frozen=True)
class Release:
    """The schedd releases its claim on ``slot`` (``preempting``: its preempting claim)."""

    t: int
    slot: str
    preempting: bool = False


@dataclass(frozen=True)
class Drain:
    """``condor_drain`` (or condor_defrag's DRAIN_JOBS) for the whole machine.

    ``how`` is ``graceful``, ``quick`` or ``fast``; ``check`` must hold on every slot or the
    request is refused; ``start`` replaces START while draining gracefully.
    """

    t: int
    how: str = "graceful"
    reason: str = "by command"
    resume_on_completion: bool = False
    check: Expr | None = None
    start: Expr | None = None
    request_id: str = ""


@dataclass(frozen=True)
class CancelDrain:
    """``condor_drain -cancel``: stop draining (any request, or only ``request_id``)."""

    t: int
    request_id: str | None = None


Event = (
    Inputs | Match | RequestClaim | Activate | StarterExit | Vacate | Release | Drain | CancelDrain
)


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
