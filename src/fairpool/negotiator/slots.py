"""The slots a cycle sees: which ones it fetches, what each weighs, who holds it, and
which ones remain candidates after trimming (spec negotiator.md §0.1, §1.5, §2).

* A slot is fetched when it is a ``Machine`` ad with a ``Name`` and passes
  ``NEGOTIATOR_SLOT_CONSTRAINT``; only fetched slots count for the pool size, usage and
  limits, which is how several negotiators share one pool with separate accounting.
* Its weight is its ``SlotWeight`` (the negotiator's ``SLOT_WEIGHT``, default ``Cpus``,
  when the ad has none); a negative or non-numeric weight counts as 1, and every slot
  weighs 1 when ``NEGOTIATOR_USE_SLOT_WEIGHTS`` is false.
* It is held when its ``State`` is ``Claimed`` or ``Preempting``, by its
  ``AccountingGroup`` or else its ``RemoteUser``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from operator import attrgetter

import numpy as np

from ..accounting.accountant import Usage
from ..classad import ClassAd, Expr
from ..classad.match import evaluate, satisfied
from ..classad.nodes import AttrRef
from ..classad.scope import MATCH_SCOPE_NAMES, SPECIAL_NAMES
from .attribute import attribute
from .params import NegotiatorParams
from .sums import Exact, exact_sum

__all__ = [
    "HELD_STATES",
    "Slot",
    "counted_in_pool",
    "effective_pool_size",
    "fetch_slots",
    "pool_weight",
    "read_slot",
    "slot_is_fetched",
    "slot_size",
    "trim",
    "usage_from_slots",
]

HELD_STATES = ("Claimed", "Preempting")
_WEIGHT = attrgetter("weight")


@dataclass(eq=False)
class Slot:
    """One slot as the cycle sees it; ``taken`` once it is matched this cycle. A slot on
    a ``board`` (the vector matcher's array of taken flags) also marks it there, so the
    matcher reads which slots are free without visiting every one."""

    ad: ClassAd
    name: str
    index: int
    weight: float
    state: str
    activity: str
    partitionable: bool
    holder: str | None  # who is charged for it (AccountingGroup, else RemoteUser)
    remote_user: str | None  # whom a preemption would displace
    machine: object = None  # its Machine (slots of one machine share cross-slot priorities)
    mentions: frozenset[str] | None = None  # what its Requirements and Rank reach, once known
    consumption: bool | None = None  # whether it has a consumption policy, once known
    # the ledger's reading it shares with the slots of its shape (slot_shapes.py): their
    # ads hold the same syntax trees under every name but the volatile ones
    shape: object | None = None
    _taken: bool = False
    board: np.ndarray | None = None
    row: int = -1  # the slot's position on the board

    @property
    def taken(self) -> bool:
        return self._taken

    @taken.setter
    def taken(self, value: bool) -> None:
        self._taken = value
        if self.board is not None:
            self.board[self.row] = value

    @property
    def held(self) -> bool:
        return self.holder is not None

    @property
    def claimed_idle(self) -> bool:
        """Claimed with no job started yet: the negotiator passes such a slot by."""
        return self.state == "Claimed" and self.activity == "Idle"


def fetch_slots(ads: Iterable[ClassAd], params: NegotiatorParams, now: float) -> list[Slot]:
    """The slot ads this negotiator is responsible for, in collector order."""
    slots = []
    for ad in ads:
        if slot_is_fetched(ad, params, now):
            slots.append(read_slot(ad, len(slots), params, now))
    return slots


def slot_is_fetched(ad: ClassAd, params: NegotiatorParams, now: float) -> bool:
    """A ``Machine`` ad with a ``Name`` that passes ``NEGOTIATOR_SLOT_CONSTRAINT``."""
    if attribute(ad, "MyType") != "Machine" or not isinstance(attribute(ad, "Name"), str):
        return False
    return params.slot_constraint is None or _true(params.slot_constraint, ad, now)


def read_slot(ad: ClassAd, index: int, params: NegotiatorParams, now: float) -> Slot:
    """The cycle's view of one fetched slot ad; ``index`` orders it (collector order)."""
    state = _string(ad, "State")
    activity = _string(ad, "Activity")
    holder = remote = None
    if state in HELD_STATES:
        user = _first_string(ad, ("AccountingGroup", "RemoteUser"))
        remote = _first_string(ad, ("PreemptingAccountingGroup", "PreemptingUser")) or user
        if not (params.discount_suspended_resources and activity == "Suspended"):
            holder = user
    return Slot(
        ad=ad,
        name=attribute(ad, "Name"),
        index=index,
        weight=slot_weight(ad, params, now),
        state=state,
        activity=activity,
        partitionable=attribute(ad, "PartitionableSlot") is True,
        holder=holder,
        remote_user=remote,
        machine=attribute(ad, "Machine") if "Machine" in ad else None,
    )


def slot_weight(ad: ClassAd, params: NegotiatorParams, now: float) -> float:
    """What the slot costs in the pie."""
    if not params.use_slot_weights:
        return 1.0
    node = params.slot_weight.node
    if "slotweight" in ad._exprs and not params.force_slot_weight:
        value = attribute(ad, "SlotWeight", now)
    elif _own_name(node) and node.lname in ad._exprs:
        value = attribute(ad, node.name, now)  # SLOT_WEIGHT = Cpus: the ad's own value
    else:
        value = evaluate(params.slot_weight, ad, now=now)
    if type(value) in (int, float) and value >= 0:
        return float(value)
    return 1.0


def _own_name(node: object) -> bool:
    """A plain name of the ad's own (not a scope, nor a special name)."""
    return (
        type(node) is AttrRef
        and node.scope is None
        and not node.absolute
        and node.lname not in SPECIAL_NAMES
        and node.lname not in MATCH_SCOPE_NAMES
    )


def usage_from_slots(
    slots: Iterable[Slot], base: Mapping[str, tuple[int, Exact]] | None = None
) -> dict[str, Usage]:
    """Each holder's current usage: the count and total weight of the slots it holds,
    plus ``base`` (holder -> slots and exact weight held elsewhere)."""
    weights: dict[str, list[float]] = {}
    for slot in slots:
        if slot.holder is not None:
            weights.setdefault(slot.holder, []).append(slot.weight)
    base = base or {}
    usage = {}
    for holder in [*base, *(h for h in weights if h not in base)]:
        count, exact = base.get(holder, (0, None))
        own = weights.get(holder, [])
        usage[holder] = Usage(count + len(own), exact_sum(own, exact))
    return usage


def counted_in_pool(slot: Slot, params: NegotiatorParams, now: float) -> bool:
    """Whether the slot's weight is in the pie (``NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT``)."""
    constraint = params.slot_poolsize_constraint
    return constraint is None or _true(constraint, slot.ad, now)


def pool_weight(
    slots: list[Slot], params: NegotiatorParams, now: float, base: Exact | None = None
) -> float:
    """The pie: the weight of every fetched slot, claimed or not (or of those passing
    ``NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT``), summed exactly, plus ``base``."""
    if params.slot_poolsize_constraint is None:  # every slot counts (the default)
        return exact_sum(map(_WEIGHT, slots), base)
    return exact_sum((s.weight for s in slots if counted_in_pool(s, params, now)), base)


def effective_pool_size(slots: list[Slot], base: Exact | None = None) -> float:
    """The pool counted in slots, a partitionable slot as its Cpus (unweighted quotas)."""
    return exact_sum((slot_size(slot) for slot in slots), base)


def slot_size(slot: Slot) -> float:
    """A slot's part of the effective pool size: its Cpus when partitionable, else 1."""
    cpus = attribute(slot.ad, "Cpus")
    return float(cpus) if slot.partitionable and type(cpus) in (int, float) else 1.0


def trim(slots: list[Slot], params: NegotiatorParams) -> list[Slot]:
    """The slots that can still be matched this cycle (after accounting counted them all)."""
    kept = []
    for slot in slots:
        if slot.state not in HELD_STATES:
            kept.append(slot)
            continue
        if slot.partitionable and not _wants_matching(slot.ad):
            continue
        if not slot.partitionable:
            if not params.consider_preemption:
                continue
            retiring = attribute(slot.ad, "RetirementTimeRemaining")
            if not params.consider_early_preemption and type(retiring) is int and retiring > 0:
                continue
        kept.append(slot)
    return kept


def _wants_matching(ad: ClassAd) -> bool:
    return attribute(ad, "WantMatching") is True


def _true(expr: Expr, ad: ClassAd, now: float) -> bool:
    return satisfied(evaluate(expr, ad, now=now))


def _string(ad: ClassAd, name: str) -> str:
    value = attribute(ad, name) if name.lower() in ad._exprs else ""
    return value if isinstance(value, str) else ""


def _first_string(ad: ClassAd, names: tuple[str, ...]) -> str | None:
    for name in names:
        value = _string(ad, name)
        if value:
            return value
    return None
