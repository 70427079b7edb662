"""Group quotas and how the pool is allocated among groups (spec negotiator.md §4.2, §4.4).

Quotas, top down: static children are served first, scaled down to fit the parent unless
``NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION``; dynamic children share what is left as
fractions (summing to more than 1, they are scaled to 1; never scaled up). An interior
group's own quota is what its children leave (with oversubscription, its whole quota).

Allocation, bottom up: each group is first given ``min(demand, quota)``. What it does not
use is surplus, offered to its siblings, then passed up and across the tree. A group that
accepts surplus shares it, first in proportion to quotas, then equally; a group that does
not accept surplus gets none, but still hands its own surplus to its children.
"""

from __future__ import annotations

import math

from .groups import GroupNode

__all__ = ["assign_quotas", "fairshare", "recover_remainders"]

_EPSILON = 1e-9


def assign_quotas(node: GroupNode, quota: float, oversubscribe: bool) -> None:
    """Give ``node`` the quota ``quota`` and divide it among its subtree."""
    node.subtree_quota = quota
    if quota <= 0:
        for below in node.walk():
            below.quota = below.subtree_quota = 0.0
        return
    static = [c for c in node.children if c.static]
    dynamic = [c for c in node.children if not c.static]
    static_sum = sum(c.config_quota for c in static)
    dynamic_sum = sum(c.config_quota for c in dynamic)
    static_given = static_sum if oversubscribe else min(static_sum, quota)
    dynamic_given = max(0.0, quota - static_given)
    given = 0.0
    for child in node.children:
        if child.static:
            share = child.config_quota * static_given / (static_sum if static_sum > 0 else 1)
        else:
            share = child.config_quota * dynamic_given / max(dynamic_sum, 1.0)
        assign_quotas(child, share, oversubscribe)
        given += share
    if node.parent is None:
        node.quota = max(0.0, quota - given)
    else:
        node.quota = quota if oversubscribe else quota - given


def fairshare(node: GroupNode) -> float:
    """Allocate this subtree's demand within quotas; the surplus it cannot use goes up."""
    node.allocated = min(node.requested, node.quota)
    node.requested -= node.allocated
    node.subtree_requested = node.requested
    surplus = node.quota - node.allocated
    for child in node.children:
        surplus += fairshare(child)
        if child.accept_surplus:
            node.subtree_requested += child.subtree_requested
    return allocate_surplus(node, surplus)


def allocate_surplus(node: GroupNode, surplus: float) -> float:
    """Share ``surplus`` among the node's children and the node itself; return what is left."""
    if surplus <= 0:
        return 0.0
    if node.subtree_requested <= 0:
        return surplus
    members = [*node.children, node]
    wants = [_wants(node, m) for m in members]
    weights = [node.quota if m is node else m.subtree_quota for m in members]
    given = [0.0] * len(members)
    if surplus >= sum(wants):
        given = list(wants)
        surplus -= sum(wants)
    else:
        surplus = _share(surplus, wants, given, weights)
        surplus = _share(surplus, wants, given, [1.0] * len(members))
    for member, amount in zip(members, given, strict=True):
        if member is node:
            node.allocated += amount
            node.requested -= amount
        elif amount > 0:
            surplus += allocate_surplus(member, amount)
    return surplus


def _wants(node: GroupNode, member: GroupNode) -> float:
    if member is node:
        return max(0.0, node.requested)
    return max(0.0, member.subtree_requested) if member.accept_surplus else 0.0


def _share(surplus: float, wants: list[float], given: list[float], weights: list[float]) -> float:
    """Hand out ``surplus`` in proportion to ``weights`` until it or the wants run out."""
    while surplus > _EPSILON:
        open_ = [i for i, want in enumerate(wants) if want - given[i] > _EPSILON]
        total = sum(weights[i] for i in open_)
        if total <= 0:
            break
        handed = 0.0
        for i in open_:
            amount = min(wants[i] - given[i], surplus * weights[i] / total)
            given[i] += amount
            handed += amount
        surplus -= handed
        if handed <= _EPSILON:
            break
    return max(surplus, 0.0)


def recover_remainders(root: GroupNode) -> None:
    """Unweighted pools count whole slots: floor each allocation and give the fractions,
    whole slot by slot, to the groups that accept surplus and still want some, oldest
    turn first, then larger quota, then larger demand (HTCondor's round robin)."""
    surplus = 0.0
    for node in root.walk():
        fraction = node.allocated - math.floor(node.allocated)
        if fraction > _EPSILON:
            node.allocated -= fraction
            node.requested += fraction
            surplus += fraction
    surplus = math.floor(surplus + _EPSILON)
    turn = 0.0
    while surplus >= 1:
        eligible = [n for n in root.walk() if n.accept_surplus and n.requested >= 1 - _EPSILON]
        if not eligible:
            return
        eligible.sort(key=lambda n: (n.rr_time, -n.subtree_quota, -n.requested, n.name))
        each = max(1, math.floor(surplus / len(eligible)))
        for node in eligible:
            amount = min(each, math.floor(node.requested + _EPSILON), surplus)
            if amount <= 0:
                continue
            node.allocated += amount
            node.requested -= amount
            surplus -= amount
            turn += 1
            node.rr_time = turn
            if surplus < 1:
                return
