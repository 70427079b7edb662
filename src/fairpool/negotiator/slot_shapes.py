"""Slot ads of one shape, read once (the slot ledger's reading, ledger.py).

A pool's slots change state all the time, and the ledger reads each changed ad again:
its weight, state, holder, limits, what its Requirements and Rank reach, whether a cycle
can take it. Ads made from one template and claimed by the same user differ only in
their names, when they last changed state and the job they run; what the ledger reads
of them is the same. So an ad's *shape* is its attribute names and syntax trees but for
those volatile ones (``shape_key``), and the ledger keeps one reading per shape, given
to each later ad of that shape with its own name and place. A shape is kept only when
nothing the ledger reads of the ad, followed through the ad, is volatile (but Name and
Machine, read for each ad) or found by a name computed (``alike``).

Finding an ad's shape reads every attribute of it, and the pool changes slots in a few
set ways only: a job starts on a slot, or its job ends. So the pool may tell the ledger
the *move* that changed an ad (``Move``): a way of changing it, and the expressions that
way set where they are not volatile, in the way's own order. A way must be such that,
applied to ads of one shape and setting those very expressions (volatile ones as
literals), it gives ads of one shape: it sets and removes the same names in the same
order, and leaves Name and Machine as they are. Then the ad's new shape follows from
its old one and the move (``Moves``), learned once per pair: the same shape
``shape_key`` would find, without reading the ad.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from operator import attrgetter
from typing import Any

from ..classad import ClassAd, Expr
from ..classad.dependence import names_read
from ..classad.scope import NOT_CONST
from .slot_copies import IDENTITY

__all__ = ["JOB", "VOLATILE", "Move", "Moves", "alike", "clone", "shape_key"]

JOB = frozenset({"jobid", "jobstart", "totaljobruntime"})  # the job a slot runs
VOLATILE = IDENTITY | JOB  # what ads of one shape may differ in
_PER_AD = frozenset({"name", "machine"})
_NODE = attrgetter("node")
_PLACES: dict[tuple[str, ...], list[int]] = {}  # where each set of names has volatile ones
_MOVES = 50_000  # (shape, move) pairs kept at most

Move = tuple[Hashable, tuple[Expr | None, ...]]  # (way, the expressions it set; None: removed)


def shape_key(ad: ClassAd) -> tuple | None:
    """The ad's attribute names and syntax trees but its volatile literals' (None when
    its Name is not a literal string or its Machine not a literal: read for each ad)."""
    exprs = ad._exprs
    name, machine = exprs.get("name"), exprs.get("machine")
    if name is None or not isinstance(name.const, str):
        return None
    if machine is not None and machine.const is NOT_CONST:
        return None
    names = tuple(exprs)
    places = _PLACES.get(names)
    if places is None:
        if len(_PLACES) >= 1_000:
            _PLACES.clear()
        places = _PLACES[names] = [k for k, name in enumerate(names) if name in VOLATILE]
    values = list(exprs.values())
    trees = list(map(id, map(_NODE, values)))
    for k in places:
        if values[k].const is not NOT_CONST:  # a literal reads nothing
            trees[k] = 0
    return names, tuple(trees)


def alike(ad: ClassAd, read: Iterable[str], exprs: Iterable[Expr | None]) -> bool:
    """Whether every ad of ``ad``'s shape reads as it does: nothing read (the names
    ``read``, the names ``exprs`` read), followed through the ad, is volatile (but Name
    and Machine, read for each ad) or found by a name computed."""
    pending = list(read)
    for expr in exprs:
        found = names_read(expr.node) if expr is not None else ()
        if found is None:
            return False
        pending += found
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen or name in _PER_AD:
            continue
        if name in VOLATILE:
            return False
        seen.add(name)
        expr = ad._exprs.get(name)
        if expr is not None and expr.const is NOT_CONST:
            found = names_read(expr.node)
            if found is None:
                return False
            pending += found
    return True


def clone(obj: Any) -> Any:
    """A shallow copy of a dataclass instance, without copy's protocol (its attribute
    table copied whole: faster than filling the twin's own)."""
    twin = object.__new__(type(obj))
    twin.__dict__ = obj.__dict__.copy()
    return twin


class Moves:
    """Where each move takes the ads of each shape, learned from the ads it took (see the
    module docstring). Shapes are the ledger's readings (one object per shape); a move's
    expressions are known by identity, and held, so that their identities stay theirs."""

    def __init__(self) -> None:
        self._after: dict[tuple, tuple[object, tuple[Expr | None, ...]]] = {}

    def after(self, shape: object, move: Move) -> object | None:
        """The shape ``move`` takes ads of ``shape`` to, when learned."""
        found = self._after.get((shape, move[0], *map(id, move[1])))
        return None if found is None else found[0]

    def learn(self, shape: object, move: Move, after: object) -> None:
        """``move`` took an ad of ``shape`` to ``after``."""
        if len(self._after) >= _MOVES:
            self._after.clear()
        self._after[(shape, move[0], *map(id, move[1]))] = (after, move[1])
