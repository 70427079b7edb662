"""Negotiating group by group (spec negotiator.md §4.5-4.8).

Up to ``GROUP_QUOTA_MAX_ALLOCATION_ROUNDS`` rounds. Each round allocates the pool among
the groups (quotas.py), orders the groups by ``GROUP_SORT_EXPR`` (by default the one using
the smallest fraction of its quota first, ``<none>`` last), and lets each group's
submitters spin their own pie up to the group's allocation, in steps of
``GROUP_QUOTA_ROUND_ROBIN_RATE``. A group that refuses surplus caps the usage of its whole
subtree at its quota (``NEGOTIATOR_STRICT_ENFORCE_QUOTA``). Another round runs when groups
left part of their allocation unused, so that others can take it. With autoregroup, the
submitters of autoregroup groups negotiate again in ``<none>``, over the whole pool.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..classad import ClassAd
from ..classad.match import evaluate
from .groups import ROOT, GroupConfig, GroupNode
from .quotas import fairshare, recover_remainders

__all__ = ["allocate_and_negotiate", "sort_key"]

_FLT_MAX = 3.4028234663852886e38
GroupCallback = Callable[[GroupNode, float, bool], None]


def sort_key(node: GroupNode, config: GroupConfig, usage: float) -> float:
    """``GROUP_SORT_EXPR`` of a group (a non-numeric value sorts last)."""
    ad = ClassAd(
        {
            "AccountingGroup": node.name,
            "GroupQuota": node.quota,
            "GroupResourcesAllocated": node.allocated,
            "GroupResourcesInUse": usage,
        }
    )
    value = evaluate(config.sort_expr, ad, now=0)
    return float(value) if type(value) in (int, float) else _FLT_MAX


def allocate_and_negotiate(
    root: GroupNode,
    config: GroupConfig,
    total: float,
    weighted: bool,
    consider_preemption: bool,
    usage: Callable[[str], float],
    negotiate: GroupCallback,
) -> None:
    """Run the allocation rounds; ``negotiate(group, limit, regrouped)`` negotiates for one
    group up to an absolute usage ``limit``; ``usage(group)`` is its live usage."""
    groups = list(root.walk())
    for _ in range(max(config.max_allocation_rounds, 1)):
        for node in groups:
            node.allocated = node.subtree_requested = node.rr_time = 0.0
            node.usage = usage(node.name)
        fairshare(root)
        if not weighted:
            recover_remainders(root)
        if root.autoregroup:
            root.quota = root.allocated = total
        _round(root, groups, config, weighted, consider_preemption, usage, negotiate)
        if not _another_round(groups, usage):
            return


def _round(
    root: GroupNode,
    groups: list[GroupNode],
    config: GroupConfig,
    weighted: bool,
    consider_preemption: bool,
    usage: Callable[[str], float],
    negotiate: GroupCallback,
) -> None:
    any_accept = any(g.accept_surplus for g in groups if g is not root)
    max_delta = max(
        (max(0.0, (g.allocated if any_accept else g.quota) - g.usage) for g in groups),
        default=0.0,
    )
    for node in groups:
        node.sort_key = sort_key(node, config, node.usage)
    # Ties (HTCondor leaves them to an unstable sort) go to the larger quota, then by name,
    # so the seed's strict-priority recipe holds from the first cycle.
    order = sorted(
        groups, key=lambda g: (root.autoregroup and g is root, g.sort_key, -g.quota, g.name)
    )
    step = 0.0
    while True:
        step = min(step + config.round_robin_rate, max_delta)
        for group in order:
            if group.allocated <= 0 or not group.submitters:
                continue
            if group.usage >= group.allocated and not consider_preemption:
                continue
            limit = _limit(group, step, max_delta, weighted)
            if config.strict_enforce_quota:
                limit = _strict_quota(group, limit, usage)
            negotiate(group, float(int(limit)), root.autoregroup and group is root)
        if step >= max_delta:
            return


def _limit(group: GroupNode, step: float, max_delta: float, weighted: bool) -> float:
    target = max(group.allocated, group.quota)
    delta = max(0.0, target - group.usage)
    share = 1.0 if max_delta <= 0 else step / max_delta
    limit = min(group.usage + delta * share if delta > 0 else target, target)
    return limit if weighted else math.floor(limit)


def _strict_quota(group: GroupNode, limit: float, usage: Callable[[str], float]) -> float:
    """A group (or an ancestor) that refuses surplus caps its subtree at its quota."""
    new = limit - group.usage
    for holder in (group, *group.ancestors()):
        if holder.accept_surplus or holder.name == ROOT:
            continue
        cap = holder.config_quota if holder.static else holder.subtree_quota
        subtree_usage = sum(usage(g.name) for g in holder.walk())
        new = min(new, max(0.0, cap - subtree_usage))
    return new + group.usage


def _another_round(groups: list[GroupNode], usage: Callable[[str], float]) -> bool:
    """Adjust demand for the next round; True if some allocation went unused."""
    used = sum(min(usage(g.name), g.allocated) for g in groups)
    allocated = sum(g.allocated for g in groups)
    for group in groups:
        live = usage(group.name)
        group.requested = live if live < group.allocated else group.requested + group.allocated
    return used < allocated
