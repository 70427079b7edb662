"""One negotiation cycle, as a function of its inputs (spec negotiator.md §2).

``run_cycle(snapshot, priorities, params, now=...)`` reads the pool (slot ads and job
ads), the customers' priorities and the configuration, and returns what the negotiator
decides. It changes nothing it is given: attributes it adds to ads for the length of the
cycle are taken away before it returns. Ties that HTCondor leaves to chance are broken by
name and collector order, so the same inputs always give the same result.

Phases: (1) fetch the slots this negotiator sees and the idle jobs; (2) measure usage from
the claimed slots and the pie from all of them; (3) order submitters; (4) the below-floor
round, then the normal round.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from ..accounting.accountant import Priority, Usage
from ..classad import ClassAd
from ..classad.match import evaluate, satisfied
from ..classad.values import UNDEFINED
from ..classad.vector import SlotColumns
from .attribute import attribute
from .autocluster import NameCollector, Signatures, significant_attributes
from .candidates import Turn
from .concurrency import LimitCounter
from .ephemeral import (
    LIVE_USAGE,
    Annotations,
    LiveUsage,
    live_usage_expr,
    may_read_job_annotations,
)
from .groups import ROOT, GroupNode, assigned_group, build_tree
from .hgq import allocate_and_negotiate
from .ledger import Standing
from .params import NegotiatorParams
from .pie import CycleState, negotiate_with_group
from .quotas import assign_quotas
from .results import CycleResult, CycleStats, SubmitterSummary
from .slots import (
    HELD_STATES,
    Slot,
    effective_pool_size,
    fetch_slots,
    pool_weight,
    slot_is_fetched,
    trim,
    usage_from_slots,
)
from .submitters import Request, SubmitterQueue, queues, submitter_of
from .vector_lists import CandidateSlots, VectorLists

__all__ = [
    "MATCH_EVALUATORS",
    "PoolSnapshot",
    "run_cycle",
    "significant_of",
]


_MENTIONS = attrgetter("mentions")
# the negotiator's expressions evaluated with a slot and a job
_MATCH_EXPRESSIONS = attrgetter(
    "pre_job_rank", "post_job_rank", "preemption_requirements", "preemption_rank"
)


@dataclass(frozen=True)
class PoolSnapshot:
    """The pool as the negotiator reads it: slot ads and job ads (idle ones negotiate).

    From a caller that keeps a ``SlotLedger`` (negotiator/ledger.py): ``standing`` gives
    the slots already fetched (``slots`` is then not read) with the totals of the slots
    no cycle can match, and ``running`` the submitters of running jobs (``jobs`` may then
    hold only the idle ones).

    From schedds (the live pool): ``queues`` gives each submitter's resource requests,
    one per autocluster with a count, grouped by the schedds on the attributes
    ``significant_of`` names (``jobs`` is then not read)."""

    slots: Sequence[ClassAd]
    jobs: Sequence[ClassAd]
    standing: Standing | None = None
    running: frozenset[str] | None = None
    queues: Mapping[str, SubmitterQueue] | None = None


def run_cycle(
    snapshot: PoolSnapshot,
    priorities: Callable[[str], Priority],
    params: NegotiatorParams,
    *,
    now: float,
    columns: SlotColumns | None = None,
) -> CycleResult:
    """Negotiate once; ``priorities(name)`` gives a customer's RUP, factor, floor, ceiling.
    ``columns``: the vector evaluator's slot columns from the previous cycle, brought up
    to date rather than rebuilt (used with ``NEGOTIATOR_MATCH_EVALUATOR = vector``)."""
    standing = snapshot.standing
    if standing is None:
        slots = fetch_slots(snapshot.slots, params, now)
        usage = usage_from_slots(slots)
        pool = pool_weight(slots, params, now)
        mentions: frozenset[str] = frozenset()
    else:
        slots = standing.slots
        usage = usage_from_slots(slots, standing.usage)
        pool = pool_weight(slots, params, now, standing.weight)
        mentions = standing.mentions
    if snapshot.queues is None:
        significant = _significant(slots, mentions, params)
        signatures = Signatures(significant, params.negotiate_all_jobs_in_cluster)
        jobs = [j for j in snapshot.jobs if _wanted(j, params, now)]
        by_submitter = queues(jobs, params.accounting_domain, signatures)
    else:
        by_submitter = _wanted_requests(snapshot.queues, params, now)
    running = _running_submitters(snapshot.jobs, usage, params) | (snapshot.running or set())
    for name in running:
        by_submitter.setdefault(name, SubmitterQueue(name))
    by_submitter = dict(sorted(by_submitter.items()))  # whatever order the jobs came in
    idle = sum(q.idle_jobs for q in by_submitter.values())
    schedds = {_schedd(job) for q in by_submitter.values() for r in q.requests for job in r.jobs}
    candidates = trim(slots, params)
    state = CycleState(
        params=params,
        now=now,
        priorities=priorities,
        slots=candidates,
        usage=dict(usage),
        min_slot_weight=_min_weight(slots, standing),
        annotations=Annotations(),
        limits=LimitCounter.from_slots(
            params.concurrency,
            (s.ad for s in slots if s.state in HELD_STATES),  # only held slots count
            standing.limits if standing else None,
        ),
    )
    if standing is not None:
        state.unlisted = standing.listed
        state.annotate_jobs = standing.job_annotations_read or may_read_job_annotations(
            _MATCH_EXPRESSIONS(params)
        )
        if standing.policy_blocks is not None:
            state.busy_policy = _busy_policy(state, standing, standing.policy_blocks)
    tree = _groups(state, by_submitter, slots, pool, standing) if params.groups.enabled else None
    token = LIVE_USAGE.set(LiveUsage(state.weighted_usage, _group_usage_of(state)))
    try:
        _annotate_slots(state, slots, standing)
        if columns is not None:
            columns.mark(_names(state.annotations.ads()))
        state.slots = MATCH_EVALUATORS[params.match_evaluator](candidates, params, now, columns)
        if tree is None:
            _negotiate(state, list(by_submitter.values()), pool)
        else:
            _negotiate_groups(state, tree, by_submitter, pool)
    finally:
        if columns is not None:
            columns.mark(_names(state.annotations.ads()))  # as they were: read again next cycle
        state.annotations.restore()
        LIVE_USAGE.reset(token)
        state.busy_policy = None  # its closures hold the state (see _busy_policy)
    stats = CycleStats(
        time=now,
        matches=len(state.matches),
        rejections=len(state.rejections),
        num_idle_jobs=idle,
        num_jobs_considered=state.jobs_considered,
        active_submitter_count=len(by_submitter),
        num_schedulers=len(schedds),
        total_slots=len(slots) + (standing.count if standing else 0),
        trimmed_slots=len(candidates) + state.unlisted,
        candidate_slots=len(candidates) + state.unlisted,
        pie_spins=state.spins,
        pies=state.pies,
        submitters_share_limit=sorted(state.share_limited),
    )
    return _result(state, by_submitter, stats, tree)


def _vector(
    slots: list[Slot], params: NegotiatorParams, now: float, columns: SlotColumns | None
) -> list[Slot]:
    found = CandidateSlots(slots)
    if len(slots) > VectorLists.scalar_rows:  # else every list is made on the scalar path
        found.lists = VectorLists(slots, params, now, columns)  # not ``found``: no cycle
    return found


def _scalar(
    slots: list[Slot], params: NegotiatorParams, now: float, columns: SlotColumns | None
) -> list[Slot]:
    return slots


# NEGOTIATOR_MATCH_EVALUATOR -> the candidate slots as the matcher wants them.
MATCH_EVALUATORS = {"vector": _vector, "scalar": _scalar}


def _busy_policy(
    state: CycleState, standing: Standing, blocks: Callable[..., bool]
) -> Callable[[ClassAd, Turn], bool]:
    """SlotLedger.policy_blocks as find_slot asks it, with the cycle's priorities.
    Its closures hold ``state``, which holds it: ``run_cycle`` lets it go as it ends, so
    that reference counting frees the cycle's objects (the state, its matches, usage and
    priorities) at once; a reference cycle would leave them to the garbage collector,
    whose young generation they filled (the month story: about 190 objects a cycle)."""

    def eup_of(name: str) -> float:
        return state.priorities(name).eup

    def annotate(slots: list[Slot]) -> None:  # their machines' cycle slots publish too
        _annotate_slots(state, slots, standing, mates=state.slots)

    def busy(job: ClassAd, turn: Turn) -> bool:
        return blocks(job, turn.submitter, turn.eup, eup_of, state.now, annotate)

    return busy


def _names(ads: list[ClassAd]) -> list[str]:
    return [name for ad in ads if isinstance(name := attribute(ad, "Name"), str)]


def _min_weight(slots: list[Slot], standing: Standing | None) -> float:
    weights = [s.weight for s in slots]
    if standing is not None and standing.min_weight is not None:
        weights.append(standing.min_weight)
    return min(weights, default=0.0)


def _running_submitters(
    jobs: Sequence[ClassAd], usage: dict[str, Usage], params: NegotiatorParams
) -> set[str]:
    """Submitters with running jobs but maybe no idle ones: HTCondor has a submitter ad for
    them too, so they count when the pie is shared out (and leave at their turn)."""
    running = {n for n in usage if "@" in n}
    running |= {
        submitter_of(job, params.accounting_domain)
        for job in jobs
        if attribute(job, "JobStatus") == 2
    }
    return running


def _significant(
    slots: list[Slot], mentions: frozenset[str], params: NegotiatorParams
) -> tuple[str, ...]:
    """The significant attributes of fetched slots (``mentions``: the standing slots')."""
    collector = NameCollector()
    for slot in [s for s in slots if s.mentions is None]:  # kept slots know theirs
        slot.mentions = collector.reach(slot.ad)
    return significant_attributes(itertools.chain(map(_MENTIONS, slots), [mentions]), params)


def significant_of(
    slots: Iterable[ClassAd], params: NegotiatorParams, now: float
) -> tuple[str, ...]:
    """The job attributes a cycle over these slot ads tells apart: what a schedd groups
    its idle jobs on before handing them over (PoolSnapshot.queues)."""
    collector = NameCollector()
    mentions = [collector.reach(ad) for ad in slots if slot_is_fetched(ad, params, now)]
    return significant_attributes(mentions, params)


def _wanted_requests(
    given: Mapping[str, SubmitterQueue], params: NegotiatorParams, now: float
) -> dict[str, SubmitterQueue]:
    """Schedds' requests that pass NEGOTIATOR_JOB_CONSTRAINT (judged on the job each
    request stands for)."""
    if params.job_constraint is None:
        return dict(given)
    kept = {}
    for name, queue in given.items():
        requests = [r for r in queue.requests if _wanted(r.jobs[0], params, now)]
        if requests:
            kept[name] = SubmitterQueue(name, requests, _weighted(requests))
    return kept


def _weighted(requests: list[Request]) -> float:
    total = 0.0
    for request in requests:
        cpus = attribute(request.jobs[0], "RequestCpus")
        total += request.remaining * (cpus if type(cpus) in (int, float) else 1)
    return total


def _wanted(job: ClassAd, params: NegotiatorParams, now: float) -> bool:
    if params.job_constraint is None:
        return True
    return satisfied(evaluate(params.job_constraint, job, now=now))


def _negotiate(
    state: CycleState,
    submitters: list[SubmitterQueue],
    pool: float,
    group: str | None = None,
    limit: float = float("inf"),
    negotiating: str = ROOT,
    regrouped: bool = False,
) -> None:
    """The below-floor round, then everyone (within a group's limit when there is one)."""
    below_floor = [
        q
        for q in submitters
        if state.priorities(q.name).floor > 0
        and state.weighted_usage(q.name) < state.priorities(q.name).floor
    ]
    if below_floor:
        negotiate_with_group(state, below_floor, pool, limit, group, True, negotiating, regrouped)
    negotiate_with_group(state, submitters, pool, limit, group, False, negotiating, regrouped)


def _groups(
    state: CycleState,
    by_submitter: dict[str, SubmitterQueue],
    slots: list[Slot],
    pool: float,
    standing: Standing | None,
) -> GroupNode:
    """Build the group tree, charge current usage to it, and set demand and quotas."""
    config = state.params.groups
    tree = build_tree(config)
    assigned: dict[str, str] = {}

    def group_of(name: str) -> str:
        if name not in assigned:
            assigned[name] = assigned_group(tree, name).name
        return assigned[name]

    state.group_of = group_of
    for name, held in state.usage.items():
        if "@" in name:
            state.group_usage[group_of(name)] = state.group_weight(group_of(name)) + held.weight
    nodes = {node.name: node for node in tree.walk()}
    weighted = config.use_weighted_demand
    for name, queue in sorted(by_submitter.items()):
        node = nodes[group_of(name)]
        node.submitters.append(name)
        held = state.usage.get(name, Usage())
        idle = queue.weighted_idle if weighted else queue.idle_jobs
        node.demand += (held.weight if weighted else held.count) + idle
    for node in tree.walk():
        node.requested = node.demand
    if tree.autoregroup:
        tree.submitters += [
            s for g in tree.walk() if g.autoregroup and g is not tree for s in g.submitters
        ]
    effective = effective_pool_size(slots, standing.effective if standing else None)
    total = pool if state.params.use_slot_weights else effective
    assign_quotas(tree, total, config.allow_oversubscription)
    state.group_quotas = {node.name: node.quota for node in tree.walk()}
    state.group_total = total
    return tree


def _negotiate_groups(
    state: CycleState, tree: GroupNode, by_submitter: dict[str, SubmitterQueue], pool: float
) -> None:
    def negotiate(group: GroupNode, limit: float, regrouped: bool) -> None:
        queues = [by_submitter[name] for name in group.submitters]
        group_name = None if regrouped else group.name
        _negotiate(state, queues, pool, group_name, limit, group.name, regrouped)

    allocate_and_negotiate(
        tree,
        state.params.groups,
        state.group_total,
        state.params.use_slot_weights,
        state.params.consider_preemption,
        state.group_weight,
        negotiate,
    )


def _group_usage_of(state: CycleState) -> Callable[[str], Any]:
    def of_group(name: str) -> Any:
        group = state.group_of(name)
        return UNDEFINED if group is None else state.group_weight(group)

    return of_group


def _annotate_slots(
    state: CycleState,
    slots: list[Slot],
    standing: Standing | None,
    mates: Sequence[Slot] = (),
) -> None:
    """Remote-user attributes on the slots of running users (§5.5); cross-slot
    priorities also from the standing slots of the same machine and, for standing
    ``slots``, from the cycle's own slots of the same machine (``mates``)."""
    if not state.params.consider_preemption:
        return
    notes = state.annotations
    cross = state.params.cross_slot_prios
    running = [slot for slot in slots if slot.remote_user is not None]
    by_machine: dict[object, list[Slot]] = {}
    if cross:  # the slots of machines where users run (they publish their priorities)
        used = {slot.machine for slot in running}
        busy = standing.users_on if standing is not None else {}
        for slot in [s for s in slots if s.machine in used or busy.get(s.machine)]:
            by_machine.setdefault(slot.machine, []).append(slot)
    for slot in running:
        priority = state.priorities(slot.remote_user)
        notes.set(slot.ad, "RemoteUserPrio", priority.eup)
        notes.set(slot.ad, "RemoteUserFloor", priority.floor)
        notes.set(
            slot.ad,
            "RemoteUserResourcesInUse",
            live_usage_expr("ResourcesInUseByUser", slot.remote_user),
        )
    if cross:
        for machine, machine_slots in by_machine.items():
            others = standing.on_machine(machine) if standing is not None else []
            others += _users_of(mate for mate in mates if mate.machine == machine)
            _cross_slot(state, machine_slots, others)


def _users_of(slots: Iterable[Slot]) -> list[tuple[int, object, str]]:
    """(collector order, SlotID, remote user) of those of ``slots`` a user runs on."""
    return [
        (slot.index, slot.ad.eval("SlotID"), slot.remote_user)
        for slot in slots
        if slot.remote_user is not None
    ]


def _cross_slot(
    state: CycleState, machine_slots: list[Slot], others: list[tuple[int, int, str]]
) -> None:
    """``Slot<N>_RemoteUserPrio`` on every slot of a machine; ``others``: (collector
    order, SlotID, user) of the machine's standing slots. Where slots share a SlotID
    (dynamic slots), the last in collector order is published."""
    users = others + _users_of(machine_slots)
    prios = {}
    for _, slot_id, user in sorted(users, key=lambda entry: entry[0]):
        if type(slot_id) is int:
            prios[f"Slot{slot_id}_RemoteUserPrio"] = state.priorities(user).eup
    for slot in machine_slots:
        for name, value in prios.items():
            state.annotations.set(slot.ad, name, value)


def _result(
    state: CycleState,
    by_submitter: dict[str, SubmitterQueue],
    stats: CycleStats,
    tree: GroupNode | None,
) -> CycleResult:
    names = set(by_submitter) | {n for n in state.usage if "@" in n}
    summaries = {}
    for name in sorted(names):
        priority = state.priorities(name)
        held = state.usage.get(name, Usage())
        share, limit = state.shares.get(name, (None, None))
        summaries[name] = SubmitterSummary(
            priority.rup, priority.eup, priority.factor, held.weight, held.count, share, limit
        )
    return CycleResult(
        time=stats.time,
        matches=state.matches,
        rejections=list(state.rejections.values()),
        submitters=summaries,
        groups=_group_summaries(state, tree) if tree is not None else {},
        usage=state.usage,
        stats=stats,
    )


def _group_summaries(state: CycleState, tree: GroupNode) -> dict[str, dict[str, Any]]:
    """What the negotiator's accounting ads say of each group after the cycle."""
    return {
        node.name: {
            "quota": node.quota,
            "usage": state.group_weight(node.name),
            "allocated": node.allocated,
            "config_quota": node.config_quota,
            "subtree_quota": node.subtree_quota,
            "dynamic": not node.static and node.parent is not None,
            "requested": node.demand,
            "surplus": node.surplus_policy,
            "sort_key": node.sort_key,
        }
        for node in tree.walk()
    }


def _schedd(job: ClassAd) -> str:
    """The schedd a job came from: the first part of its GlobalJobId."""
    global_id = attribute(job, "GlobalJobId")
    return global_id.split("#")[0] if isinstance(global_id, str) else "local"
