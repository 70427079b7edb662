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
and ``engine.py`` carries out transitions and effects (enter and leave actions). Neither
decides what the next pair is: they only answer the questions this table asks.
"""

from __future__ import annotations

from dataclasses import dataclass
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

O, U, M, C, P, D, X = (
    State.OWNER,
    State.UNCLAIMED,
    State.MATCHED,
    State.CLAIMED,
    State.PREEMPTING,
    State.DRAINED,
    State.DELETE,
)
IDLE, BUSY, SUSP, RET, VAC, KILL, BENCH = (
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


_PREEMPTING = {(P, VAC), (P, KILL)}
_UNCLAIMED = {(U, IDLE), (U, BENCH)}

TRANSITIONS: dict[str, Transition] = {
    t.number: t
    for t in (
        _t("1", {(O, IDLE)}, {(U, IDLE)}, "IsOwner is FALSE"),
        _t("2", _UNCLAIMED, {(O, IDLE)}, "IsOwner is TRUE, or a claim request was refused"),
        _t("3", {(U, IDLE)}, {(U, BENCH)}, "RunBenchmarks is TRUE"),
        _t("4", {(U, BENCH)}, {(U, IDLE)}, "benchmarks finished"),
        _t("5", {(O, IDLE), *_UNCLAIMED}, {(C, IDLE)}, "claim request accepted"),
        _t("6", {(O, IDLE), *_UNCLAIMED}, {(M, IDLE)}, "match notification"),
        _t(
            "7",
            {(M, IDLE)},
            {(O, IDLE)},
            "MATCH_TIMEOUT, START locally FALSE, claim refused, or vacate",
        ),
        _t("8", {(M, IDLE)}, {(C, IDLE)}, "claim request accepted"),
        _t(
            "9",
            {(C, IDLE)},
            _PREEMPTING,
            "vacate, START FALSE with the claim, preempting claim, worklife, draining",
        ),
        _t("10", {(C, IDLE)}, {(C, BUSY)}, "claim activated"),
        _t("11", {(C, BUSY), (C, SUSP)}, {(C, IDLE)}, "starter exited"),
        _t("12", {(C, BUSY)}, _PREEMPTING, "PREEMPT (WANT_SUSPEND not TRUE), preemption, vacate"),
        _t("13", {(C, BUSY)}, {(C, SUSP)}, "WANT_SUSPEND and SUSPEND are TRUE"),
        _t("14", {(C, SUSP)}, {(C, BUSY)}, "CONTINUE is TRUE"),
        _t("15", {(C, SUSP)}, _PREEMPTING, "PREEMPT is TRUE, preemption, vacate"),
        _t("16", {(P, VAC)}, {(P, KILL)}, "KILL is TRUE, or vacate -fast"),
        _t("17", {(P, VAC)}, {(O, IDLE)}, "starter gone, no better claim waiting"),
        _t("18", {(P, VAC)}, {(C, IDLE)}, "starter gone, the preempting claim takes over"),
        _t("19", {(P, KILL)}, {(O, IDLE)}, "starter gone, no better claim waiting"),
        _t("20", {(P, KILL)}, {(C, IDLE)}, "starter gone, the preempting claim takes over"),
        _t("M13", {(C, BUSY)}, {(C, RET)}, "PREEMPT, preemption, vacate or draining: retire"),
        _t("M16", {(C, SUSP)}, {(C, RET)}, "PREEMPT, or CONTINUE while retiring"),
        _t("M17", {(C, SUSP)}, _PREEMPTING, "retirement over while suspended"),
        _t("M18", {(C, RET)}, _PREEMPTING, "retirement over, or the job exited while retiring"),
        _t("M19", {(C, RET)}, {(C, BUSY)}, "the preempting claim went away: unretire"),
        _t("M20", {(C, RET)}, {(C, SUSP)}, "WANT_SUSPEND and SUSPEND are TRUE"),
        _t("M33", {(D, RET)}, {(D, IDLE)}, "every slot of the machine is drained"),
        _t("M34", {(D, IDLE)}, {(O, IDLE)}, "draining complete: resume"),
        _t("M35", {(D, RET), (D, IDLE)}, {(O, IDLE)}, "draining cancelled"),
        _t("M36", {(O, IDLE)}, {(D, RET)}, "the machine is draining"),
        _t("M37", _UNCLAIMED, {(D, RET)}, "the machine is draining"),
        _t("delete", {(O, IDLE), (U, IDLE)}, {(X, IDLE)}, "a dynamic slot is no longer claimed"),
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
    """

    guards: tuple[Guard, ...] = ()
    transition: str | None = None
    effects: tuple[Effect, ...] = ()
    activity: Activity | None = None


def R(
    *guards: Guard, to: str | None = None, do: tuple[Effect, ...] = (), act: Activity | None = None
) -> Rule:
    return Rule(guards, to, do, act)


G = Guard
E = Effect
_EVAL = (E.EVALUATE,)

# ---- evaluation passes ------------------------------------------------------------------

_OWNER = (R(G.DYNAMIC, to="delete"), R(G.DRAINING, to="M36"), R(G.NOT_IS_OWNER, to="1"))
_UNCLAIMED_IDLE = (
    R(G.DYNAMIC, to="delete"),
    R(G.DRAINING, to="M37"),
    R(G.IS_OWNER, to="2"),
    R(G.RUN_BENCHMARKS, to="3"),
)
_UNCLAIMED_BENCH = (R(G.DRAINING, to="M37"), R(G.IS_OWNER, to="2"))
_MATCHED = (R(G.MATCHED_CHECKS_START, G.START_LOCALLY_FALSE, to="7"),)
_RETIRING = (
    R(G.IN_RETIREMENT, G.RETIREMENT_OVER, to="M18"),
    R(G.NEVER_PREEMPTED, G.NOT_WANT_SUSPEND, G.PREEMPT, do=(E.MARK_PREEMPTED,)),
    R(G.MAY_UNRETIRE, to="M19"),
    R(G.RETIREMENT_OVER, to="M18"),
    R(G.WANT_SUSPEND, G.SUSPEND, to="M20"),
    R(G.PERIODIC_CHECKPOINT, do=(E.CHECKPOINT,)),
)
_IDLE_TAIL = (
    R(G.WORKLIFE_OVER, to="9"),
    R(G.DRAINING, G.NOT_AWAITING_ACTIVATION, to="9"),
)
_COMMON_PASS: dict[Pair, tuple[Rule, ...]] = {
    (O, IDLE): _OWNER,
    (U, IDLE): _UNCLAIMED_IDLE,
    (U, BENCH): _UNCLAIMED_BENCH,
    (M, IDLE): _MATCHED,
    (C, RET): _RETIRING,
    (P, VAC): (R(G.KILL, to="16"),),
    (P, KILL): (),
    (D, RET): (R(G.NOT_DRAINING, to="M35"), R(G.ALL_DRAINED, to="M33")),
    (D, IDLE): (R(G.NOT_DRAINING, to="M35"), R(G.RESUME_ON_COMPLETION, to="M34")),
}

# SEED (6.6 ResState::eval): PREEMPT only when WANT_SUSPEND is not TRUE, SUSPEND only when
# it is; in Suspended PREEMPT comes before CONTINUE; Claimed/Idle checks START with the
# claim's request ad. Retirement (absent in 6.6) slots in where a job still has time left.
_SEED_PASS = {
    **_COMMON_PASS,
    (C, IDLE): (
        R(G.PREEMPTOR, to="9"),
        R(G.START_WITH_CLAIM_FALSE, to="9"),
        *_IDLE_TAIL,
    ),
    (C, BUSY): (
        R(G.IN_RETIREMENT, G.RETIREMENT_OVER, to="12"),
        R(G.NOT_WANT_SUSPEND, G.PREEMPT, G.RETIREMENT_OVER, to="12", do=(E.MARK_PREEMPTED,)),
        R(G.NOT_WANT_SUSPEND, G.PREEMPT, to="M13", do=(E.MARK_PREEMPTED,)),
        R(G.WANT_SUSPEND, G.SUSPEND, to="13"),
        R(G.IN_RETIREMENT, to="M13"),
        R(G.PERIODIC_CHECKPOINT, do=(E.CHECKPOINT,)),
    ),
    (C, SUSP): (
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
    (C, IDLE): (
        R(G.PREEMPTOR, to="9"),
        R(G.IS_OWNER, to="9"),
        *_IDLE_TAIL,
    ),
    (C, BUSY): (
        R(G.IN_RETIREMENT, G.RETIREMENT_OVER, to="12"),
        R(G.NOT_WANT_SUSPEND, G.PREEMPT, to="M13", do=(E.MARK_PREEMPTED,)),
        R(G.WANT_SUSPEND, G.SUSPEND, to="13"),
        R(G.IN_RETIREMENT, to="M13"),
        R(G.PERIODIC_CHECKPOINT, do=(E.CHECKPOINT,)),
    ),
    (C, SUSP): (
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

_CLAIMED_ACTIVE = ((C, BUSY), (C, SUSP), (C, RET))
_REFUSE = R(do=(E.REFUSE,))


def _each(pairs, *rules: Rule) -> dict[Pair, tuple[Rule, ...]]:
    return dict.fromkeys(pairs, rules)


def _leave_claim(activity: Activity) -> dict[Pair, tuple[Rule, ...]]:
    """Claimed (any activity) straight to Preempting in ``activity``."""
    return {
        (C, IDLE): (R(to="9", act=activity),),
        (C, BUSY): (R(to="12", act=activity),),
        (C, SUSP): (R(to="15", act=activity),),
        (C, RET): (R(to="M18", act=activity),),
    }


_UNMATCH = {(M, IDLE): (R(to="7"),)}
_FAST = {**_leave_claim(KILL), **_UNMATCH, (P, VAC): (R(to="16"),)}
_EVALUATE_IDLE = _each(((O, IDLE), (U, IDLE), (U, BENCH), (C, IDLE)), R(do=_EVAL))

_COMMON_EVENTS: dict[Trigger, dict[Pair, tuple[Rule, ...]]] = {
    Trigger.MATCH: _each(((O, IDLE), (U, IDLE), (U, BENCH)), R(to="6")),
    Trigger.MATCH_TIMEOUT: {(M, IDLE): (R(to="7"),)},
    Trigger.CLAIM: {
        (O, IDLE): (R(G.WILLING, to="5"), _REFUSE),
        **_each(((U, IDLE), (U, BENCH)), R(G.WILLING, to="5"), R(to="2", do=(E.REFUSE,))),
        (M, IDLE): (R(G.WILLING, to="8"), R(to="7", do=(E.REFUSE,))),
    },
    Trigger.PREEMPTING_CLAIM: _each(
        ((C, IDLE), *_CLAIMED_ACTIVE),
        R(G.WILLING, G.RANK_NOT_WORSE, do=(E.TAKE_PREEMPTOR, E.EVALUATE)),
        _REFUSE,
    ),
    Trigger.ACTIVATE: {(C, IDLE): (R(G.WILLING, to="10"), _REFUSE)},
    Trigger.STARTER_EXIT: {
        (C, BUSY): (R(to="11"),),
        (C, SUSP): (R(to="11"),),
        (C, RET): (R(to="M18"),),
        (P, VAC): (R(G.PREEMPTOR_WILLING, to="18"), R(to="17")),
        (P, KILL): (R(G.PREEMPTOR_WILLING, to="20"), R(to="19")),
    },
    Trigger.VACATE_FAST: _FAST,
    Trigger.RELEASE_PREEMPTOR: _each(((C, IDLE), *_CLAIMED_ACTIVE), R(do=(E.DROP_PREEMPTOR,))),
    Trigger.BENCHMARKS_DONE: {(U, BENCH): (R(to="4"),)},
    Trigger.DRAIN_GRACEFUL: {
        **_EVALUATE_IDLE,
        (C, BUSY): (R(to="M13", do=(E.RETIRE, E.EVALUATE)),),
        **_each(((C, SUSP), (C, RET)), R(do=(E.RETIRE, E.EVALUATE))),
    },
    Trigger.DRAIN_QUICK: {
        **_EVALUATE_IDLE,
        (C, BUSY): (R(to="M13", do=(E.RETIRE_FOR_GOOD, E.EVALUATE)),),
        **_each(((C, SUSP), (C, RET)), R(do=(E.RETIRE_FOR_GOOD, E.EVALUATE))),
    },
    Trigger.DRAIN_FAST: {**_EVALUATE_IDLE, **_leave_claim(KILL), (P, VAC): (R(to="16"),)},
    Trigger.CANCEL_DRAIN: _each(((D, RET), (D, IDLE)), R(to="M35")),
}

# SEED (6.6): condor_vacate and the schedd's release both vacate at once (DIV-11).
_SEED_EVENTS = {
    Trigger.VACATE: {**_leave_claim(VAC), **_UNMATCH},
    Trigger.RELEASE: {**_leave_claim(VAC), **_UNMATCH},
}
# MODERN: condor_vacate retires for good; the schedd's release kills (DIV-11).
_MODERN_EVENTS = {
    Trigger.VACATE: {
        (C, IDLE): (R(to="9", act=VAC),),
        **_each(_CLAIMED_ACTIVE, R(do=(E.RETIRE_FOR_GOOD, E.EVALUATE))),
        **_UNMATCH,
    },
    Trigger.RELEASE: {**_leave_claim(KILL), **_UNMATCH},
}

EVENT_RULES: dict[Order, dict[Trigger, dict[Pair, tuple[Rule, ...]]]] = {
    Order.SEED: {**_COMMON_EVENTS, **_SEED_EVENTS},
    Order.MODERN: {**_COMMON_EVENTS, **_MODERN_EVENTS},
}
