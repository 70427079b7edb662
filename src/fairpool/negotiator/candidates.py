"""Choosing a slot for one job (seed "Negotiation"; spec negotiator.md §5.2-5.3).

For each slot not yet matched this cycle:

1. skip a slot that is claimed but not running a job;
2. both Requirements must hold (the job's against the slot, the slot's against the job);
3. classify it: free (``NoPreemption``); running someone, and the slot's RANK prefers this
   job to the current one (``Rank``); or running another submitter, and this job may take
   it for ``Priority``: its EUP is better (the seed's rule), ``PREEMPTION_REQUIREMENTS``
   holds and the slot's RANK of it is not worse. In startd-rank-only mode (a submitter
   past its limit in the first spin) only ``Rank`` candidates count;
4. the submitter limit must permit it (free slots against the limit on unclaimed slots,
   priority preemption against the full limit, rank preemption not checked);
5. rank the survivors by the tuple (``NEGOTIATOR_PRE_JOB_RANK``, job ``Rank``,
   ``NEGOTIATOR_POST_JOB_RANK``, reason: free > rank > priority, ``PREEMPTION_RANK``),
   larger first, the negotiator expressions compared as single-precision floats as
   HTCondor does. Equal tuples go to the slot listed first (collector order), a
   deterministic rule where HTCondor's sort leaves the order unspecified.

With ``NEGOTIATOR_MATCH_EVALUATOR = vector`` (the default) the list comes from
vector_lists.py: the same candidates in the same order, from column operations.
Candidates are computed once per autocluster and kept, sorted, while the submitter's turn
lasts (HTCondor's match-list cache): jobs of one autocluster match alike. Taking one
re-checks what can change meanwhile (the slot still free, the limits).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..classad import ClassAd, Expr
from ..classad.match import evaluate, rank, satisfied, symmetric_match
from ..classad.scope import NOT_CONST
from .attribute import attribute
from .consumption import consumption_of, deduct, requesting, sufficient
from .params import NegotiatorParams
from .slots import Slot, slot_weight

__all__ = [
    "NO_PREEMPTION",
    "PRIORITY",
    "RANK",
    "Candidate",
    "Turn",
    "find_slot",
    "permits",
    "priority_preemption_ruled_out",
]

PRIORITY, RANK, NO_PREEMPTION = 0, 1, 2
REASONS = {PRIORITY: "Priority", RANK: "Rank", NO_PREEMPTION: "NoPreemption"}
LOWEST = -1.7976931348623157e308  # -DBL_MAX: an unset or non-numeric negotiator rank
FLT_MAX = 3.4028234663852886e38

REJECT_NO_MATCH = "no match found"
REJECT_LIMIT = "submitter limit exceeded"
REJECT_POLICY = "PREEMPTION_REQUIREMENTS == False"


@dataclass(eq=False)
class Candidate:
    """A slot the job could take: how (``state``), its rank tuple, and what it costs
    (``consumes`` is set for a consumption-policy slot: what the job would use of it)."""

    slot: Slot
    state: int
    key: tuple[float, ...]
    cost: float
    consumes: dict[str, float] | None = None


@dataclass(eq=False)
class Turn:
    """One submitter's turn in one spin: its limits and what it has used of them."""

    submitter: str
    eup: float
    limit: float
    limit_unclaimed: float
    used: float = 0.0
    used_unclaimed: float = 0.0
    rank_only: bool = False
    match_lists: dict[tuple[int, bool], list[Candidate]] = field(default_factory=dict)
    reasons: dict[int, set[str]] = field(default_factory=dict)  # autocluster -> reasons


def permits(used: float, cost: float, allowed: float) -> bool:
    """HTCondor's SubmitterLimitPermits: within the limit, or the first match of a turn
    when the limit is above zero (the "round up once" rule)."""
    return used + cost <= allowed or (used <= 0 and allowed > 0)


def single(value: float) -> float:
    """A double as the single-precision float HTCondor compares negotiator ranks in."""
    try:
        return struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def _negotiator_rank(expr: Expr | None, slot: ClassAd, job: ClassAd, now: float) -> float:
    if expr is None:
        return LOWEST
    value = evaluate(expr, slot, job, now=now)
    if type(value) in (int, float, bool):
        return single(float(value))
    return LOWEST


def priority_preemption_ruled_out(params: NegotiatorParams) -> bool:
    """Whether ``PREEMPTION_REQUIREMENTS`` is a constant that ``classify`` always finds
    unsatisfied (a busy slot of another user is then never a priority candidate)."""
    requirements = params.preemption_requirements
    return (
        requirements is not None
        and requirements.const is not NOT_CONST
        and not satisfied(requirements.const)
    )


def current_rank(slot: ClassAd) -> float:
    """The slot's RANK of the job it runs (0.0 when unset or not a number)."""
    value = attribute(slot, "CurrentRank") if "CurrentRank" in slot else 0.0
    return float(value) if type(value) in (int, float, bool) else 0.0


def classify(
    job: ClassAd, slot: Slot, turn: Turn, params: NegotiatorParams, eup_of: Any, now: float
) -> tuple[int | None, str | None]:
    """(preemption state, None) for a candidate, or (None, reason) when it cannot be one."""
    if slot.remote_user is None or not params.consider_preemption:
        return (None, None) if turn.rank_only else (NO_PREEMPTION, None)
    slot_rank = rank(slot.ad, job, now=now)
    current = current_rank(slot.ad)
    if slot_rank > current:
        return RANK, None
    if turn.rank_only or slot.remote_user == turn.submitter:
        return None, None
    if params.preempt_on_better_priority_only and not turn.eup < eup_of(slot.remote_user):
        return None, None
    requirements = params.preemption_requirements
    if requirements is not None and not satisfied(evaluate(requirements, slot.ad, job, now=now)):
        return None, REJECT_POLICY
    if slot_rank < current:
        return None, None
    return PRIORITY, None


def _key(job: ClassAd, slot: Slot, state: int, params: NegotiatorParams, now: float) -> tuple:
    preempt = (
        _negotiator_rank(params.preemption_rank, slot.ad, job, now)
        if state != NO_PREEMPTION
        else -FLT_MAX
    )
    return (
        _negotiator_rank(params.pre_job_rank, slot.ad, job, now),
        rank(job, slot.ad, now=now),
        _negotiator_rank(params.post_job_rank, slot.ad, job, now),
        state,
        preempt,
        -slot.index,
    )


def match_list(
    job: ClassAd,
    slots: list[Slot],
    turn: Turn,
    params: NegotiatorParams,
    eup_of: Any,
    now: float,
    reasons: set[str],
) -> list[Candidate]:
    """Every slot the job could take, best last (limits are checked when taking one)."""
    found = []
    for slot in slots:
        if slot.taken or slot.claimed_idle:
            continue
        consumes = consumption_of(slot.ad, job, now)
        if consumes is None:
            candidate = _candidate(job, slot, turn, params, eup_of, now, reasons)
        elif sufficient(slot.ad, consumes):
            with requesting(job, consumes):
                candidate = _candidate(job, slot, turn, params, eup_of, now, reasons)
            if candidate is not None:
                candidate.consumes = consumes
                candidate.cost = slot.weight - weight_after(slot, consumes, params, now)
        else:
            candidate = None
        if candidate is not None:
            found.append(candidate)
    found.sort(key=lambda c: c.key)  # worst first: the best is taken from the end
    return found


def _candidate(
    job: ClassAd,
    slot: Slot,
    turn: Turn,
    params: NegotiatorParams,
    eup_of: Any,
    now: float,
    reasons: set[str],
) -> Candidate | None:
    if not symmetric_match(job, slot.ad, now=now):
        return None
    state, reason = classify(job, slot, turn, params, eup_of, now)
    if reason is not None:
        reasons.add(reason)
    if state is None:
        return None
    return Candidate(slot, state, _key(job, slot, state, params, now), slot.weight)


def weight_after(
    slot: Slot, consumes: dict[str, float], params: NegotiatorParams, now: float
) -> float:
    """The slot's weight once the consumed resources are taken out of it."""
    probe = slot.ad.copy()
    for resource, value in deduct(slot.ad, consumes).items():
        probe[resource] = value
    return slot_weight(probe, params, now)


def find_slot(
    job: ClassAd,
    autocluster: int,
    slots: list[Slot],
    turn: Turn,
    params: NegotiatorParams,
    eup_of: Any,
    now: float,
    concurrency: Callable[[Slot], str | None],
    busy_policy: Callable[[ClassAd, Turn], bool] | None = None,
) -> Candidate | str:
    """The best slot for ``job`` that its submitter's limits allow, or why there is none.
    ``concurrency(slot)`` is the concurrency-limit rejection for taking ``slot``, if any;
    ``busy_policy(job, turn)``: whether busy slots not in ``slots`` that the job matches
    are kept from it by PREEMPTION_REQUIREMENTS (asked only when the job is rejected)."""
    key = (autocluster, turn.rank_only)
    reasons = turn.reasons.setdefault(autocluster, set())
    candidates = turn.match_lists.get(key)
    if candidates is None:
        vector = getattr(slots, "lists", None)  # vector_lists.CandidateSlots
        if vector is not None:
            candidates = vector.match_list(job, autocluster, turn, eup_of, reasons)
        else:
            candidates = match_list(job, slots, turn, params, eup_of, now, reasons)
        turn.match_lists[key] = candidates
    while candidates:
        candidate = candidates.pop()
        if candidate.slot.taken:
            continue
        if not _within_limits(candidate, turn):
            reasons.add(REJECT_LIMIT)
            continue
        blocked = concurrency(candidate.slot)
        if blocked is not None:
            reasons.add(blocked)
            continue
        if _unstable_policy_fails(candidate, job, params, now):
            reasons.add(REJECT_POLICY)
            continue
        return candidate
    if turn.rank_only:
        return REJECT_LIMIT
    if busy_policy is not None and REJECT_POLICY not in reasons and busy_policy(job, turn):
        reasons.add(REJECT_POLICY)
    concurrency_reasons = sorted(r for r in reasons if r.startswith("concurrency limit"))
    if concurrency_reasons:
        return concurrency_reasons[0]
    for reason in (REJECT_POLICY, REJECT_LIMIT):
        if reason in reasons:
            return reason
    return REJECT_NO_MATCH


def _within_limits(candidate: Candidate, turn: Turn) -> bool:
    cost = candidate.cost
    if candidate.state == NO_PREEMPTION:
        return permits(turn.used_unclaimed, cost, turn.limit_unclaimed)
    if candidate.state == PRIORITY:
        return permits(turn.used, cost, turn.limit)
    return True


def _unstable_policy_fails(
    candidate: Candidate, job: ClassAd, params: NegotiatorParams, now: float
) -> bool:
    """With ``PREEMPTION_REQUIREMENTS_STABLE = False`` the policy is checked again when a
    cached priority candidate is taken, since what it reads may have changed."""
    if candidate.state != PRIORITY or params.preemption_requirements_stable:
        return False
    requirements = params.preemption_requirements
    return requirements is not None and not satisfied(
        evaluate(requirements, candidate.slot.ad, job, now=now)
    )
