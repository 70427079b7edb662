"""The startd's state machine: every transition, and the order in which a slot tries them.

Theory of operation
-------------------
Everything that decides *which* transition a slot takes lives in this file, as data
(DESIGN.md: one transition table in one module). Three tables:

``TRANSITIONS``
    The catalogue: the seed's twenty numbered transitions (seed 004 §3.6.7, spec startd.md
    §3) and the documented modern ones (``M13`` ... ``M37``, numbered as in current
    HTCondor's manual: retirement, the Drained state), plus ``delete`` for a dynamic slot
    that goes away (startd.md §11). Each names where it may start, where it ends, and what
    drives it. The engine records the number of every change it makes, and a property test
    checks each recorded change against this catalogue.

``PASS_RULES``
    What an evaluation pass does for a slot in a given (state, activity): an ordered tuple
    of ``Rule`` s. A rule fires when all its guards hold; the first rule with a transition
    that fires wins, so the order *is* the evaluation order of startd.md §2.2 (``SEED``
    follows the 6.6 code and the seed; ``MODERN`` follows current HTCondor's
    ``eval_policy``). A rule without a transition only has effects (a periodic checkpoint,
    marking a claim as preempted) and the pass goes on to the next rule.

``EVENT_RULES``
    What a protocol event or timer does from each (state, activity): the same kind of rule
    list. An event with no entry for the slot's pair is ignored, as HTCondor ignores, for
    example, a match notification for a Preempting slot.

Guards are names (``Guard``); ``guards.py`` evaluates them against the slot's ad and claim,
and ``engine.py`` carries out transitions and effects (with HTCondor's enter and leave
actions). Neither decides what the next pair is: they only answer the questions this table
asks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from .states import Activity, Pair, State

__all__ = [
    "EVENT_RULES",
    "PASS_RULES",
    "TRANSITIONS",
    "Effect",
    "Guard",
    "Order",
    "Rule",
    "Transition",
    "Trigger",
]

OWN, UNC, MAT, CLA, PRE, DRA, DEL = (
    State.OWNER,
    State.UNCLAIMED,
    State.MATCHED,
    State.CLAIMED,
    State.PREEMPTING,
    State.DRAINED,
    State.DELETE,
)
IDLE, BUSY, SUSP, RET, VAC, KILLING, BENCH = (
    Activity.IDLE,
    Activity.BUSY,
    Activity.SUSPENDED,
    Activity.RETIRING,
    Activity.VACATING,
    Activity.KILLING,
    Activity.BENCHMARKING,
)


@dataclass(frozen=True)
class Transition:
    """One numbered transition: from which pairs, to which pairs, and what drives it."""

    number: str
    sources: frozenset[Pair]
    targets: frozenset[Pair]
    driver: str
    modern: bool = False


def _t(number: str, sources: set[Pair], targets: set[Pair], driver: str) -> Transition:
    return Transition(number, frozenset(sources), frozenset(targets), driver, number[0] == "M")


_PREEMPTING = {(PRE, VAC), (PRE, KILLING)}
_UNCLAIMED = {(UNC, IDLE), (UNC, BENCH)}

TRANSITIONS: dict[str, Transition] = {
    t.number: t
    for t in (
        _t("1", {(OWN, IDLE)}, {(UNC, IDLE)}, "IsOwner is FALSE"),
        _t("2", _UNCLAIMED, {(OWN, IDLE)}, "IsOwner is TRUE, or a claim request was refused"),
        _t("3", {(UNC, IDLE)}, {(UNC, BENCH)}, "RunBenchmarks is TRUE"),
        _t("4", {(UNC, BENCH)}, {(UNC, IDLE)}, "benchmarks finished"),
        _t("5", {(OWN, IDLE), *_UNCLAIMED}, {(CLA, IDLE)}, "claim request accepted"),
        _t("6", {(OWN, IDLE), *_UNCLAIMED}, {(MAT, IDLE)}, "match notification"),
        _t(
            "7",
            {(MAT, IDLE)},
            {(OWN, IDLE)},
            "MATCH_TIMEOUT, START locally FALSE, claim refused, or vacate",
        ),
        _t("8", {(MAT, IDLE)}, {(CLA, IDLE)}, "claim request accepted"),
        _t(
            "9",
            {(CLA, IDLE)},
            _PREEMPTING,
            "vacate, START FALSE with the claim, preempting claim, worklife, draining",
        ),
        _t("10", {(CLA, IDLE)}, {(CLA, BUSY)}, "claim activated"),
        _t("11", {(CLA, BUSY), (CLA, SUSP)}, {(CLA, IDLE)}, "starter exited"),
        _t("12", {(CLA, BUSY)}, _PREEMPTING, "PREEMPT (WANT_SUSPEND not TRUE), preemption, vacate"),
        _t("13", {(CLA, BUSY)}, {(CLA, SUSP)}, "WANT_SUSPEND and SUSPEND are TRUE"),
        _t("14", {(CLA, SUSP)}, {(CLA, BUSY)}, "CONTINUE is TRUE"),
        _t("15", {(CLA, SUSP)}, _PREEMPTING, "PREEMPT is TRUE, preemption, vacate"),
        _t("16", {(PRE, VAC)}, {(PRE, KILLING)}, "KILL is TRUE, or vacate -fast"),
        _t("17", {(PRE, VAC)}, {(OWN, IDLE)}, "starter gone, no better claim waiting"),
        _t("18", {(PRE, VAC)}, {(CLA, IDLE)}, "starter gone, the preempting claim takes over"),
        _t("19", {(PRE, KILLING)}, {(OWN, IDLE)}, "starter gone, no better claim waiting"),
        _t("20", {(PRE, KILLING)}, {(CLA, IDLE)}, "starter gone, the preempting claim takes over"),
        _t("M13", {(CLA, BUSY)}, {(CLA, RET)}, "PREEMPT, preemption, vacate or draining: retire"),
        _t("M16", {(CLA, SUSP)}, {(CLA, RET)}, "PREEMPT, or CONTINUE while retiring"),
        _t("M17", {(CLA, SUSP)}, _PREEMPTING, "retirement over while suspended"),
        _t("M18", {(CLA, RET)}, _PREEMPTING, "retirement over, or the job exited while retiring"),
        _t("M19", {(CLA, RET)}, {(CLA, BUSY)}, "the preempting claim went away: unretire"),
        _t("M20", {(CLA, RET)}, {(CLA, SUSP)}, "WANT_SUSPEND and SUSPEND are TRUE"),
        _t("M33", {(DRA, RET)}, {(DRA, IDLE)}, "every slot of the machine is drained"),
        _t("M34", {(DRA, IDLE)}, {(OWN, IDLE)}, "draining complete: resume"),
        _t("M35", {(DRA, RET), (DRA, IDLE)}, {(OWN, IDLE)}, "draining cancelled"),
        _t("M36", {(OWN, IDLE)}, {(DRA, RET)}, "the machine is draining"),
        _t("M37", _UNCLAIMED, {(DRA, RET)}, "the machine is draining"),
        _t("delete", {(OWN, IDLE), (UNC, IDLE)}, {(DEL, IDLE)}, "a dynamic slot is unclaimed"),
    )
}


class Guard(StrEnum):
    """A question the engine answers about a slot (guards.py says how)."""

    IS_OWNER = "IsOwner"
    NOT_IS_OWNER = "not IsOwner"
    RUN_BENCHMARKS = "RunBenchmarks"
    MATCHED_CHECKS_START = "MATCHED_CHECKS_START"
    START_LOCALLY_FALSE = "START locally FALSE"
    START_WITH_CLAIM_FALSE = "START with the claim FALSE"
    WANT_SUSPEND = "WANT_SUSPEND"
    NOT_WANT_SUSPEND = "not WANT_SUSPEND"
    SUSPEND = "SUSPEND"
    CONTINUE = "CONTINUE"
    PREEMPT = "PREEMPT"
    NEVER_PREEMPTED = "PREEMPT never TRUE for the claim"
    KILL = "KILL"
    PERIODIC_CHECKPOINT = "PERIODIC_CHECKPOINT"
    IN_RETIREMENT = "in retirement"
    RETIREMENT_OVER = "retirement over"
    MAY_UNRETIRE = "may unretire"
    PREEMPTOR = "preempting claim pending"
    WORKLIFE_OVER = "CLAIM_WORKLIFE over"
    DRAINING = "draining"
    NOT_DRAINING = "not draining"
    NOT_AWAITING_ACTIVATION = "claim not awaiting activation"
    ALL_DRAINED = "every slot drained"
    RESUME_ON_COMPLETION = "resume on completion"
    DYNAMIC = "dynamic slot"
    WILLING = "Requirements with the request"
    RANK_NOT_WORSE = "RANK not worse"
    PREEMPTOR_WILLING = "START with the preempting claim not FALSE"


class Effect(StrEnum):
    """Something a rule does besides (or instead of) changing the pair."""

    MARK_PREEMPTED = "PREEMPT was TRUE: retirement is irreversible"
    CHECKPOINT = "periodic checkpoint"
    REFUSE = "refuse the request"
    TAKE_PREEMPTOR = "hold the preempting claim"
    DROP_PREEMPTOR = "drop the preempting claim"
    RETIRE = "retire (reversible)"
    RETIRE_FOR_GOOD = "retire (irreversible)"
    EVALUATE = "evaluate the policy now"
    ACCEPT = "accept the claim"
    BEGIN_JOB = "the job starts"
    STOP_DRAINING = "stop draining"
    HOLD_MATCH = "a preempting match: Requirements False until claimed or MATCH_TIMEOUT"


class Trigger(StrEnum):
    """What an event is, as far as the state machine cares."""

    MATCH = "match"
    MATCH_TIMEOUT = "MATCH_TIMEOUT"
    CLAIM = "claim"
    PREEMPTING_CLAIM = "preempting claim"
    ACTIVATE = "activate"
    STARTER_EXIT = "starter exit"
    VACATE = "vacate"
    VACATE_FAST = "vacate -fast"
    RELEASE = "release"
    RELEASE_PREEMPTOR = "release preempting claim"
    BENCHMARKS_DONE = "benchmarks done"
    DRAIN_GRACEFUL = "drain graceful"
    DRAIN_QUICK = "drain quick"
    DRAIN_FAST = "drain fast"
    CANCEL_DRAIN = "cancel drain"


class Order(StrEnum):
    """Which evaluation order and event handling a profile uses (startd.md §2.2, §13)."""

    SEED = "SEED"
    MODERN = "MODERN"


@dataclass(frozen=True)
class Rule:
    """Fire when every guard holds: apply the effects, then take the transition (if any).

    ``activity`` names the activity to enter when the target state has several (events
    that say Vacating or Killing); None lets the engine choose by WANT_VACATE.
    ``periodic`` marks HTCondor's periodic actions (checkpoint, benchmarks, resuming after
    a drain): they run in a pass, never when a change re-evaluates the slot at once.
    """

    guards: tuple[Guard, ...] = ()
    transition: str | None = None
    effects: tuple[Effect, ...] = ()
    activity: Activity | None = None
    periodic: bool = False
    named: str = field(init=False, compare=False, repr=False)  # its guards, for a change's cause

    def __post_init__(self) -> None:
        object.__setattr__(self, "named", " and ".join(str(g) for g in self.guards))


def R(
    *guards: Guard,
    to: str | None = None,
    do: tuple[Effect, ...] = (),
    act: Activity | None = None,
    periodic: bool = False,
) -> Rule:
    """A rule, written compactly for the tables below."""
    return Rule(guards, to, do, act, periodic)


G = Guard
E = Effect
_EVAL = (E.EVALUATE,)

# ---- evaluation passes ------------------------------------------------------------------

_OWNER = (R(G.DYNAMIC, to="delete"), R(G.DRAINING, to="M36"), R(G.NOT_IS_OWNER, to="1"))
_UNCLAIMED_IDLE = (
    R(G.DYNAMIC, to="delete"),
    R(G.DRAINING, to="M37"),
    R(G.IS_OWNER, to="2"),
    R(G.RUN_BENCHMARKS, to="3", periodic=True),
)
_UNCLAIMED_BENCH = (R(G.DRAINING, to="M37"), R(G.IS_OWNER, to="2"))
_MATCHED = (R(G.MATCHED_CHECKS_START, G.START_LOCALLY_FALSE, to="7"),)
_RETIRING = (
    R(G.IN_RETIREMENT, G.RETIREMENT_OVER, to="M18"),
    R(G.NEVER_PREEMPTED, G.NOT_WANT_SUSPEND, G.PREEMPT, do=(E.MARK_PREEMPTED,)),
    R(G.MAY_UNRETIRE, to="M19"),
    R(G.RETIREMENT_OVER, to="M18"),
    R(G.WANT_SUSPEND, G.SUSPEND, to="M20"),
    R(G.PERIODIC_CHECKPOINT, do=(E.CHECKPOINT,), periodic=True),
)
_IDLE_TAIL = (
    R(G.WORKLIFE_OVER, to="9"),
    R(G.DRAINING, G.NOT_AWAITING_ACTIVATION, to="9"),
)
_COMMON_PASS: dict[Pair, tuple[Rule, ...]] = {
    (OWN, IDLE): _OWNER,
    (UNC, IDLE): _UNCLAIMED_IDLE,
    (UNC, BENCH): _UNCLAIMED_BENCH,
    (MAT, IDLE): _MATCHED,
    (CLA, RET): _RETIRING,
    (PRE, VAC): (R(G.KILL, to="16"),),
    (PRE, KILLING): (),
    (DRA, RET): (R(G.NOT_DRAINING, to="M35"), R(G.ALL_DRAINED, to="M33")),
    (DRA, IDLE): (
        R(G.NOT_DRAINING, to="M35"),
        R(G.RESUME_ON_COMPLETION, to="M34", do=(E.STOP_DRAINING,), periodic=True),
    ),
}

# SEED (6.6 ResState::eval): PREEMPT only when WANT_SUSPEND is not TRUE, SUSPEND only when
# it is; in Suspended PREEMPT comes before CONTINUE; Claimed/Idle checks START with the
# claim's request ad. Retirement (absent in 6.6) slots in where a job still has time left.
_SEED_PASS = {
    **_COMMON_PASS,
    (CLA, IDLE): (
        R(G.PREEMPTOR, to="9"),
        R(G.START_WITH_CLAIM_FALSE, to="9"),
        *_IDLE_TAIL,
    ),
    (CLA, BUSY): (
        R(G.IN_RETIREMENT, G.RETIREMENT_OVER, to="12"),
        R(G.NOT_WANT_SUSPEND, G.PREEMPT, G.RETIREMENT_OVER, to="12", do=(E.MARK_PREEMPTED,)),
        R(G.NOT_WANT_SUSPEND, G.PREEMPT, to="M13", do=(E.MARK_PREEMPTED,)),
        R(G.WANT_SUSPEND, G.SUSPEND, to="13"),
        R(G.IN_RETIREMENT, to="M13"),
        R(G.PERIODIC_CHECKPOINT, do=(E.CHECKPOINT,), periodic=True),
    ),
    (CLA, SUSP): (
        R(G.IN_RETIREMENT, G.RETIREMENT_OVER, to="15"),
        R(G.PREEMPT, G.RETIREMENT_OVER, to="15", do=(E.MARK_PREEMPTED,)),
        R(G.NEVER_PREEMPTED, G.PREEMPT, to="M16", do=(E.MARK_PREEMPTED,)),
        R(G.CONTINUE, G.IN_RETIREMENT, to="M16"),
        R(G.CONTINUE, to="14"),
    ),
}

# MODERN (current ResState::eval_policy): retirement first, PREEMPT always retires.
_MODERN_PASS = {
    **_COMMON_PASS,
    (CLA, IDLE): (
        R(G.PREEMPTOR, to="9"),
        R(G.IS_OWNER, to="9"),
        *_IDLE_TAIL,
    ),
    (CLA, BUSY): (
        R(G.IN_RETIREMENT, G.RETIREMENT_OVER, to="12"),
        R(G.NOT_WANT_SUSPEND, G.PREEMPT, to="M13", do=(E.MARK_PREEMPTED,)),
        R(G.WANT_SUSPEND, G.SUSPEND, to="13"),
        R(G.IN_RETIREMENT, to="M13"),
        R(G.PERIODIC_CHECKPOINT, do=(E.CHECKPOINT,), periodic=True),
    ),
    (CLA, SUSP): (
        R(G.IN_RETIREMENT, G.RETIREMENT_OVER, to="M17"),
        R(G.NEVER_PREEMPTED, G.PREEMPT, to="M16", do=(E.MARK_PREEMPTED,)),
        R(G.CONTINUE, G.IN_RETIREMENT, to="M16"),
        R(G.CONTINUE, to="14"),
    ),
}

PASS_RULES: dict[Order, dict[Pair, tuple[Rule, ...]]] = {
    Order.SEED: _SEED_PASS,
    Order.MODERN: _MODERN_PASS,
}

# ---- events -----------------------------------------------------------------------------

_CLAIMED_ACTIVE = ((CLA, BUSY), (CLA, SUSP), (CLA, RET))
_REFUSE = R(do=(E.REFUSE,))
_ACCEPT = (E.ACCEPT,)


def _each(pairs: tuple[Pair, ...], *rules: Rule) -> dict[Pair, tuple[Rule, ...]]:
    return dict.fromkeys(pairs, rules)


def _leave_claim(activity: Activity) -> dict[Pair, tuple[Rule, ...]]:
    """Claimed (any activity) straight to Preempting in ``activity``."""
    return {
        (CLA, IDLE): (R(to="9", act=activity),),
        (CLA, BUSY): (R(to="12", act=activity),),
        (CLA, SUSP): (R(to="15", act=activity),),
        (CLA, RET): (R(to="M18", act=activity),),
    }


_UNMATCH = {(MAT, IDLE): (R(to="7"),)}
_FAST = {**_leave_claim(KILLING), **_UNMATCH, (PRE, VAC): (R(to="16"),)}

_COMMON_EVENTS: dict[Trigger, dict[Pair, tuple[Rule, ...]]] = {
    Trigger.MATCH: {
        **_each(((OWN, IDLE), (UNC, IDLE), (UNC, BENCH)), R(to="6")),
        **_each(((CLA, IDLE), *_CLAIMED_ACTIVE), R(do=(E.HOLD_MATCH,))),
    },
    Trigger.MATCH_TIMEOUT: {(MAT, IDLE): (R(to="7"),)},
    Trigger.CLAIM: {
        (OWN, IDLE): (R(G.WILLING, to="5", do=_ACCEPT), _REFUSE),
        **_each(
            ((UNC, IDLE), (UNC, BENCH)),
            R(G.WILLING, to="5", do=_ACCEPT),
            R(to="2", do=(E.REFUSE,)),
        ),
        (MAT, IDLE): (R(G.WILLING, to="8", do=_ACCEPT), R(to="7", do=(E.REFUSE,))),
    },
    Trigger.PREEMPTING_CLAIM: _each(
        ((CLA, IDLE), *_CLAIMED_ACTIVE),
        R(G.WILLING, G.RANK_NOT_WORSE, do=(E.TAKE_PREEMPTOR, E.EVALUATE)),
        _REFUSE,
    ),
    Trigger.ACTIVATE: {(CLA, IDLE): (R(G.WILLING, to="10", do=(E.BEGIN_JOB,)), _REFUSE)},
    Trigger.STARTER_EXIT: {
        (CLA, BUSY): (R(to="11"),),
        (CLA, SUSP): (R(to="11"),),
        (CLA, RET): (R(to="M18"),),
        (PRE, VAC): (R(G.PREEMPTOR_WILLING, to="18"), R(to="17")),
        (PRE, KILLING): (R(G.PREEMPTOR_WILLING, to="20"), R(to="19")),
    },
    Trigger.VACATE_FAST: _FAST,
    Trigger.RELEASE_PREEMPTOR: _each(((CLA, IDLE), *_CLAIMED_ACTIVE), R(do=(E.DROP_PREEMPTOR,))),
    Trigger.BENCHMARKS_DONE: {(UNC, BENCH): (R(to="4"),)},
    Trigger.DRAIN_GRACEFUL: {
        (CLA, BUSY): (R(to="M13", do=(E.RETIRE,)),),
        **_each(((CLA, SUSP), (CLA, RET)), R(do=(E.RETIRE,))),
    },
    Trigger.DRAIN_QUICK: {
        (CLA, BUSY): (R(to="M13", do=(E.RETIRE_FOR_GOOD,)),),
        **_each(((CLA, SUSP), (CLA, RET)), R(do=(E.RETIRE_FOR_GOOD,))),
    },
    Trigger.DRAIN_FAST: {**_leave_claim(KILLING), (PRE, VAC): (R(to="16"),)},
    Trigger.CANCEL_DRAIN: _each(((DRA, RET), (DRA, IDLE)), R(to="M35")),
}

# SEED (6.6): condor_vacate and the schedd's release both vacate at once (DIV-11).
_SEED_EVENTS = {
    Trigger.VACATE: {**_leave_claim(VAC), **_UNMATCH},
    Trigger.RELEASE: {**_leave_claim(VAC), **_UNMATCH},
}
# MODERN: condor_vacate retires for good; the schedd's release kills (DIV-11).
_MODERN_EVENTS = {
    Trigger.VACATE: {
        (CLA, IDLE): (R(to="9", act=VAC),),
        (CLA, BUSY): (R(to="M13", do=(E.RETIRE_FOR_GOOD,)),),
        **_each(((CLA, SUSP), (CLA, RET)), R(do=(E.RETIRE_FOR_GOOD, E.EVALUATE))),
        **_UNMATCH,
    },
    Trigger.RELEASE: {**_leave_claim(KILLING), **_UNMATCH},
}

EVENT_RULES: dict[Order, dict[Trigger, dict[Pair, tuple[Rule, ...]]]] = {
    Order.SEED: {**_COMMON_EVENTS, **_SEED_EVENTS},
    Order.MODERN: {**_COMMON_EVENTS, **_MODERN_EVENTS},
}
