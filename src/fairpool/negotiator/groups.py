"""Accounting groups: the tree from ``GROUP_NAMES`` and who belongs where (seed
"Accounting Groups with Hierarchical Group Quotas"; spec negotiator.md §4.1).

Names are dotted paths (``group_physics.hep``), compared without case; the root is
``<none>``. A group whose parent is not configured is left out. A quota is static
(``GROUP_QUOTA_<g>``, absolute weight, which wins) or dynamic (``GROUP_QUOTA_DYNAMIC_<g>``,
a fraction of the parent's). A submitter belongs to the deepest configured group its
accounting name begins with: ``group_physics.hep.higgs@d`` to ``group_physics.hep``;
names without a group, and jobs that state none, negotiate in ``<none>``.

Nodes follow Kueue's pattern: small records, with the quota arithmetic in free functions
(quotas.py, hgq.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from ..classad import Expr

__all__ = ["ROOT", "GroupConfig", "GroupNode", "assigned_group", "build_tree"]

ROOT = "<none>"
DEFAULT_SORT_EXPR = (
    'ifThenElse(AccountingGroup=?="<none>",3.4e+38,'
    "ifThenElse(GroupQuota>0,GroupResourcesInUse/GroupQuota,3.3e+38))"
)


@dataclass(frozen=True)
class GroupConfig:
    """The group knobs, names lower-cased."""

    names: tuple[str, ...] = ()
    static_quota: Mapping[str, float] = field(default_factory=dict)
    dynamic_quota: Mapping[str, float] = field(default_factory=dict)
    accept_surplus: Mapping[str, bool] = field(default_factory=dict)
    default_accept_surplus: bool = False  # GROUP_ACCEPT_SURPLUS
    autoregroup: Mapping[str, bool] = field(default_factory=dict)
    default_autoregroup: bool = False  # GROUP_AUTOREGROUP
    allow_oversubscription: bool = False  # the seed scales children down (spec/README.md)
    sort_expr: Expr = field(default_factory=lambda: Expr(DEFAULT_SORT_EXPR))
    max_allocation_rounds: int = 3  # GROUP_QUOTA_MAX_ALLOCATION_ROUNDS
    round_robin_rate: float = 1.0e100  # GROUP_QUOTA_ROUND_ROBIN_RATE
    use_weighted_demand: bool = True  # NEGOTIATOR_USE_WEIGHTED_DEMAND
    strict_enforce_quota: bool = True  # NEGOTIATOR_STRICT_ENFORCE_QUOTA

    @property
    def enabled(self) -> bool:
        return bool(self.names)


@dataclass(eq=False)
class GroupNode:
    """One group: its configuration and the figures one allocation computes for it."""

    name: str
    parent: GroupNode | None = None
    children: list[GroupNode] = field(default_factory=list)
    static: bool = False
    config_quota: float = 0.0
    accept_surplus: bool = False
    autoregroup: bool = False
    # computed every cycle
    quota: float = 0.0
    subtree_quota: float = 0.0
    usage: float = 0.0
    demand: float = 0.0  # what its submitters want, as measured when the cycle starts
    requested: float = 0.0  # demand not yet allocated (allocation rounds adjust it)
    allocated: float = 0.0
    subtree_requested: float = 0.0
    rr_time: float = 0.0
    sort_key: float = 0.0
    submitters: list[str] = field(default_factory=list)

    def walk(self) -> Iterator[GroupNode]:
        """This group and every group below it, parents first, children in name order."""
        yield self
        for child in self.children:
            yield from child.walk()

    def ancestors(self) -> Iterator[GroupNode]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    @property
    def surplus_policy(self) -> str:
        """condor_userprio's "Use Surplus" word for this group."""
        if self.parent is None:
            return "yes"
        if self.autoregroup:
            return "Regroup"
        return "ByQuota" if self.accept_surplus else "no"


def build_tree(config: GroupConfig) -> GroupNode:
    """The group tree; parents before children, names sorted without case."""
    root = GroupNode(ROOT, accept_surplus=True)
    root.autoregroup = any(
        config.autoregroup.get(n, config.default_autoregroup) for n in config.names
    )
    by_name = {ROOT: root}
    for name in sorted({n.lower() for n in config.names if n.lower() != ROOT.lower()}):
        parent_name = name.rpartition(".")[0] or ROOT
        parent = by_name.get(parent_name)
        if parent is None:
            continue
        static = name in config.static_quota
        quota = config.static_quota[name] if static else config.dynamic_quota.get(name, 0.0)
        node = GroupNode(
            name,
            parent=parent,
            static=static,
            config_quota=quota,
            accept_surplus=config.accept_surplus.get(name, config.default_accept_surplus),
            autoregroup=config.autoregroup.get(name, config.default_autoregroup),
        )
        parent.children.append(node)
        by_name[name] = node
    return root


def assigned_group(root: GroupNode, submitter: str) -> GroupNode:
    """The group a customer is charged to: for ``x@d``, the deepest configured group that
    ``x`` minus its last component begins with; a group name maps to itself (the root if
    it is not configured)."""
    if "@" not in submitter:
        return next((g for g in root.walk() if g.name == submitter.lower()), root)
    account = submitter.rpartition("@")[0].rpartition(".")[0]
    node = root
    for part in account.lower().split(".") if account else ():
        child = next((c for c in node.children if c.name.rpartition(".")[2] == part), None)
        if child is None:
            break
        node = child
    return node


def group_assigner(config: GroupConfig) -> Callable[[str], str | None]:
    """The group each customer is charged to (None without groups): what the accountant
    needs to charge a group's whole subtree."""
    if not config.enabled:
        return lambda name: None
    tree = build_tree(config)
    return lambda name: assigned_group(tree, name).name
