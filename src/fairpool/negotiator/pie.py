"""The pie spin (seed "The Layperson's Description of the Pie Spin and Pie Slice"; spec
negotiator.md §3).

Each spin gives every remaining submitter the slice ``share × pie − usage``, where the
shares are proportional to ``1/EUP``, and lets it match jobs up to that limit (the first
match of a turn may round the limit up). Submitters are taken in EUP order, fixed at the
first spin. The pie spins again while the last spin matched something or lost a
submitter, so a submitter that runs out of jobs leaves its slice to the others. Ceilings
stop a submitter at its ceiling; the below-floor round is one spin among the submitters
below their floor, limited to what brings each up to its floor.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..accounting.accountant import Priority, Usage
from ..classad import ClassAd
from .candidates import NO_PREEMPTION, REASONS, REJECT_LIMIT, Candidate, Turn, find_slot
from .concurrency import LimitCounter, job_limits, rejection
from .consumption import deduct
from .ephemeral import Annotations, may_read_job_annotations
from .params import NegotiatorParams
from .results import Match, Rejection
from .slots import Slot, slot_weight
from .submitters import SubmitterQueue, job_id

__all__ = ["CycleState", "negotiate_with_group"]

_DONE, _RESUME = "done", "resume"
_INFINITE = float("inf")


@dataclass(eq=False)
class CycleState:
    """What one cycle knows and changes as it matches: live usage, the slot list, results."""

    params: NegotiatorParams
    now: float
    priorities: Callable[[str], Priority]
    slots: list[Slot]
    usage: dict[str, Usage]
    min_slot_weight: float
    annotations: Annotations
    limits: LimitCounter
    group_of: Callable[[str], str | None] = lambda name: None
    group_usage: dict[str, float] = field(default_factory=dict)  # direct members, live
    group_quotas: dict[str, float] = field(default_factory=dict)
    group_total: float = 0.0  # the pool the group quotas share
    matches: list[Match] = field(default_factory=list)
    rejections: dict[tuple[str | None, str], Rejection] = field(default_factory=dict)
    jobs_considered: int = 0
    spins: int = 0
    pies: int = 0
    share_limited: set[str] = field(default_factory=set)
    # each submitter's (share, limit) from its first spin (SubmitterShare, SubmitterLimit)
    shares: dict[str, tuple[float, float]] = field(default_factory=dict)
    # (job, turn) -> whether a slot left out of ``slots`` would have added the
    # PREEMPTION_REQUIREMENTS reason (negotiator/ledger.py)
    busy_policy: Callable[[ClassAd, Turn], bool] | None = None
    unlisted: int = 0  # candidates left out of ``slots`` that no match can take
    # whether a slot or the negotiator may read what a cycle sets on a job (else only a
    # job that may read it itself is annotated)
    annotate_jobs: bool = True

    def weighted_usage(self, name: str) -> float:
        held = self.usage.get(name)
        return held.weight if held is not None else 0.0

    def charge(self, name: str, cost: float) -> None:
        held = self.usage.get(name)  # (one Usage made: a match's, at every match)
        count, weight = (0, 0.0) if held is None else (held.count, held.weight)
        self.usage[name] = Usage(count + 1, weight + cost)
        group = self.group_of(name)
        if group is not None:
            self.group_usage[group] = self.group_usage.get(group, 0.0) + cost

    def group_weight(self, group: str) -> float:
        return self.group_usage.get(group, 0.0)

    def slots_left(self) -> bool:
        return self.unlisted > 0 or any(not s.taken for s in self.slots)


@dataclass(eq=False)
class _Pie:
    """One call of negotiate-with-group: its submitters, its size and what is left."""

    queues: list[SubmitterQueue]
    pool: float
    quota: float
    group: str | None  # the group whose quota caps this pie (None: no group checks)
    floor_round: bool
    negotiating: str  # the group the submitters negotiate under
    regrouped: bool  # negotiating in <none> through autoregroup
    left: float = 0.0
    spread: _Spread | None = None  # as the submitters stand (kept only without a group)
    eups: dict[str, float] = field(default_factory=dict)  # each submitter's, for the cycle


def negotiate_with_group(
    state: CycleState,
    queues: list[SubmitterQueue],
    pool: float,
    quota: float = _INFINITE,
    group: str | None = None,
    floor_round: bool = False,
    negotiating: str = "<none>",
    regrouped: bool = False,
) -> None:
    """Spin the pie among ``queues`` over ``pool`` weight (capped by a group's ``quota``)."""
    state.pies += 1
    pie = _Pie(list(queues), pool, quota, group, floor_round, negotiating, regrouped)
    pie.eups = {q.name: state.priorities(q.name).eup for q in queues}
    spin = 1
    order: list[SubmitterQueue] | None = None
    while pie.queues:
        state.spins += 1
        ignore_limit = spin == 1 and state.params.consider_preemption
        if group is not None and not ignore_limit and _group_full(state, pie):
            return
        if not state.params.consider_preemption:
            pie.queues = [q for q in pie.queues if q.idle_jobs > 0]
            pie.spread = None
        limits = _limits(state, pie)
        pie.left = sum(limit for limit, _ in limits.values())
        if not state.params.consider_preemption and pie.left <= 0:
            return
        if order is None:
            order = _submitter_order(state, pie, limits)
        left_before, count_before = pie.left, len(pie.queues)
        for queue in [q for q in order if q in pie.queues]:
            if group is not None and not ignore_limit and _group_full(state, pie):
                break
            if _turn(state, pie, queue, spin, ignore_limit) == _DONE:
                pie.queues.remove(queue)
                pie.spread = None
        spin += 1
        progressed = pie.left < left_before or len(pie.queues) < count_before
        if not (progressed and pie.queues and state.slots_left() and not floor_round):
            return


def _group_full(state: CycleState, pie: _Pie) -> bool:
    return state.group_weight(pie.group) >= pie.quota  # type: ignore[arg-type]


def _limits(state: CycleState, pie: _Pie) -> dict[str, tuple[float, float]]:
    """Each submitter's (limit, limit on unclaimed slots) for this spin (§3.1 item 6)."""
    spread = _spread(state, pie)
    return {name: spread.limit(name) for name in spread.eups}


def _spread(state: CycleState, pie: _Pie) -> _Spread:
    """The pie's spread as it stands: made again after a submitter leaves, and at every
    turn under a group's quota (whose room changes with every match)."""
    if pie.spread is not None:
        return pie.spread
    spread = _Spread(state, pie)
    if pie.group is None:
        pie.spread = spread
    return spread


class _Spread:
    """What every submitter's limit depends on: the pie's submitters, their EUPs and
    the group's room, as they stand (see ``_spread``)."""

    def __init__(self, state: CycleState, pie: _Pie) -> None:
        self.state, self.pie = state, pie
        names = {q.name for q in pie.queues}
        self.eups = dict(zip(names, map(pie.eups.__getitem__, names), strict=True))
        self.most = max(self.eups.values()) if self.eups else 1.0
        self.normal = sum(self.most / eup for eup in self.eups.values())
        self.size = min(pie.pool, pie.quota)
        self.group_room = (
            max(0.0, pie.quota - state.group_weight(pie.group))
            if pie.group is not None
            else _INFINITE
        )

    def limit(self, name: str) -> tuple[float, float]:
        state, pie = self.state, self.pie
        usage = state.weighted_usage(name)
        if state.params.ignore_user_priorities:
            limit = _INFINITE
        else:
            share = self.most / (self.eups[name] * self.normal)
            state.shares.setdefault(name, (share, share * self.size))
            limit = max(0.0, share * self.size - usage)
        unclaimed = min(limit, self.group_room)
        if not state.params.consider_preemption:
            limit = unclaimed
        if pie.floor_round:
            limit = min(limit, _floor_allowance(state, name, usage))
        return limit, unclaimed


def _floor_allowance(state: CycleState, name: str, usage: float) -> float:
    floor = state.priorities(name).floor
    if state.params.floor_is_additional:
        return float(floor)
    return max(0.0, floor - usage)


def _submitter_order(
    state: CycleState, pie: _Pie, limits: dict[str, tuple[float, float]]
) -> list[SubmitterQueue]:
    """EUP first, then starvation (usage over usage plus limit), then name."""

    def key(queue: SubmitterQueue) -> tuple[float, float, str]:
        usage = state.weighted_usage(queue.name)
        total = usage + limits[queue.name][0]
        starvation = usage / total if total > 0 else float("inf")
        return (state.priorities(queue.name).eup, starvation, queue.name)

    return sorted(pie.queues, key=key)


def _turn(
    state: CycleState, pie: _Pie, queue: SubmitterQueue, spin: int, ignore_limit: bool
) -> str:
    """One submitter's turn in one spin (§3.1 item 11): decide, then negotiate."""
    priority = state.priorities(queue.name)
    limit, unclaimed = _spread(state, pie).limit(queue.name)
    limit = min(limit, pie.left)
    usage = state.weighted_usage(queue.name)
    headroom = _INFINITE if priority.ceiling < 0 else max(0.0, priority.ceiling - int(usage))
    if queue.idle_jobs == 0:
        return _DONE
    if spin > 1 and (limit < state.min_slot_weight or pie.left < state.min_slot_weight):
        return _RESUME
    if headroom == 0 or headroom < state.min_slot_weight:
        return _DONE
    turn = Turn(queue.name, priority.eup, limit, unclaimed)
    return _negotiate(state, pie, queue, turn, headroom, ignore_limit)


def _negotiate(
    state: CycleState,
    pie: _Pie,
    queue: SubmitterQueue,
    turn: Turn,
    headroom: float,
    ignore_limit: bool,
) -> str:
    """Match the submitter's requests in order until its limit or ceiling (§3.2)."""
    rejected: set[int] = set()
    limit_rejected = False
    annotated = None  # the job annotated last, in this turn
    for request in queue.pending():
        if request.autocluster in rejected:
            continue
        while request.remaining:
            if turn.used >= turn.limit:
                if not ignore_limit:
                    state.share_limited.add(queue.name)
                    return _RESUME
                turn.rank_only = True
            if turn.used >= headroom:
                return _RESUME
            job = request.job()
            _annotate_request(state, pie, queue.name, job, job is annotated)
            annotated = job
            state.jobs_considered += 1
            limits = job_limits(job, None, state.now)  # None: they depend on the slot
            found = _concurrency_precheck(state, limits) or find_slot(
                job,
                request.autocluster,
                state.slots,
                turn,
                state.params,
                lambda n: state.priorities(n).eup,
                state.now,
                _no_limits if limits is not None else _per_slot_limits(state, job),
                state.busy_policy,
            )
            if isinstance(found, str):
                _reject(state, queue.name, job, found, request.schedd)
                rejected.add(request.autocluster)
                limit_rejected = limit_rejected or found == REJECT_LIMIT
                break
            _take(state, pie, queue.name, job, found, turn, request.schedd)
            request.next += 1
    if turn.used >= turn.limit or limit_rejected:
        return _RESUME
    return _DONE


def _concurrency_precheck(state: CycleState, limits: list | None) -> str | None:
    """A job whose limits are a plain list is checked once, before any slot (spec §5.1)."""
    if not limits:
        return None
    blocked = state.limits.blocked(limits)
    return rejection(blocked) if blocked else None


def _no_limits(slot: Slot) -> None:
    """No check per slot: the job's limits were checked before any (or it has none)."""


def _per_slot_limits(state: CycleState, job: ClassAd) -> Callable[[Slot], str | None]:
    """For limits that depend on the slot (``concurrency_limits_expr``): the check per slot."""

    def check(slot: Slot) -> str | None:
        blocked = state.limits.blocked(job_limits(job, slot.ad, state.now) or [])
        return rejection(blocked) if blocked else None

    return check


def _annotate_request(
    state: CycleState, pie: _Pie, submitter: str, job: ClassAd, again: bool
) -> None:
    """The Submitter* attributes on the job; ``again``: the same job as the turn's last
    request (one request matched over and over), whose usage alone has changed since.
    Not when nothing the cycle evaluates can read them (CycleState.annotate_jobs)."""
    if not state.annotate_jobs and not may_read_job_annotations(job._exprs.values()):
        return
    notes = state.annotations
    group = state.group_of(submitter)
    if again:
        notes.set(job, "SubmitterUserResourcesInUse", state.weighted_usage(submitter))
        if group is not None:
            notes.set(job, "SubmitterGroupResourcesInUse", state.group_weight(group))
        return
    eup = state.priorities(submitter).eup
    notes.set(job, "SubmitterUserPrio", eup)
    notes.set(job, "SubmittorPrio", eup)
    notes.set(job, "SubmitterUserResourcesInUse", state.weighted_usage(submitter))
    notes.set(job, "SubmitterNegotiatingGroup", pie.negotiating)
    notes.set(job, "SubmitterAutoregroup", pie.regrouped)
    if group is not None:
        notes.set(job, "SubmitterGroup", group)
        notes.set(job, "SubmitterGroupResourcesInUse", state.group_weight(group))
        notes.set(job, "SubmitterGroupQuota", state.group_quotas.get(group, 0.0))


def _take(
    state: CycleState,
    pie: _Pie,
    submitter: str,
    job: ClassAd,
    candidate: Candidate,
    turn: Turn,
    schedd: str | None,
) -> None:
    slot = candidate.slot
    cost = candidate.cost
    if candidate.consumes is None:
        slot.taken = True
    else:
        _consume(state, slot, candidate.consumes)
        turn.match_lists.clear()  # the slot changed: candidates are found again
    turn.used += cost
    if candidate.state == NO_PREEMPTION:
        turn.used_unclaimed += cost
    pie.left -= cost
    state.charge(submitter, cost)
    state.limits.add(job_limits(job, slot.ad, state.now) or [])
    name = job_id(job)
    state.rejections.pop((schedd, name), None)
    state.matches.append(
        Match(
            job=name,
            submitter=submitter,
            slot=slot.name,
            reason=REASONS[candidate.state],
            preempting=slot.remote_user if candidate.state != NO_PREEMPTION else None,
            cost=cost,
            group=pie.negotiating if state.group_quotas else None,
            schedd=schedd,
        )
    )


def _consume(state: CycleState, slot: Slot, consumes: dict[str, float]) -> None:
    """Take a job's resources out of a consumption-policy slot for the rest of the cycle."""
    for resource, value in deduct(slot.ad, consumes).items():
        state.annotations.set(slot.ad, resource, value)
    slot.weight = slot_weight(slot.ad, state.params, state.now)


def _reject(
    state: CycleState, submitter: str, job: ClassAd, reason: str, schedd: str | None
) -> None:
    name = job_id(job)
    state.rejections[(schedd, name)] = Rejection(name, submitter, reason, schedd)
