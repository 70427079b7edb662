"""A symmetric match remembered while everything it can read stays the same.

A claim runs job after job of one submitter on one slot (claim reuse,
schedd/claims.py), and each next job must match the slot's ad again. The jobs of a
cluster share their expressions (ad.py keeps one expression per value), so the next job's
match reads the very expressions the last one read. A memo keeps a match's outcome with
the expressions it could read in either ad: the names its Requirements name
(``names_read``), closed over the names that the expressions of those attributes name in
turn. It gives the outcome again while each of them is the same object (or still absent)
in both ads and the clock reads the same second: every clock function and CurrentTime
read whole seconds. A match that could read something its trees do not name (``eval``,
``random``, a subscript, a nested ad, a parent scope) is not kept; a match between ads
chained to a parent ad is neither kept nor given a kept outcome.
"""

from __future__ import annotations

from operator import is_

from .ad import ClassAd, Expr
from .dependence import names_read
from .match import symmetric_match
from .scope import NOT_CONST

__all__ = ["MatchMemo"]

_HELD = 4  # outcomes kept: a claim's jobs come in a few shapes


class MatchMemo:
    """``symmetric_match`` of pairs of ads, the outcomes of this second kept."""

    __slots__ = ("_kept", "_second")

    def __init__(self) -> None:
        self._second = -1
        # (names read, the first ad's expressions of them, the second's, the outcome)
        self._kept: list[tuple[tuple[str, ...], tuple, tuple, bool]] = []

    def symmetric_match(self, a: ClassAd, b: ClassAd, *, now: float) -> bool:
        """What ``symmetric_match(a, b, now=now)`` gives."""
        if a.parent is not None or b.parent is not None:
            # a chained ad reads its parent's names too: never kept, and never served a
            # kept outcome (its own expressions may be those of an ad without a parent)
            return symmetric_match(a, b, now=now)
        second = int(now)
        if second != self._second:
            self._kept.clear()
            self._second = second
        a_get, b_get = a._exprs.get, b._exprs.get
        for names, a_exprs, b_exprs, outcome in self._kept:
            if all(map(is_, map(a_get, names), a_exprs)) and all(
                map(is_, map(b_get, names), b_exprs)
            ):
                return outcome
        outcome = symmetric_match(a, b, now=now)
        names = _names_read(a, b)
        if names is not None:
            if len(self._kept) >= _HELD:
                del self._kept[0]
            self._kept.append((names, tuple(map(a_get, names)), tuple(map(b_get, names)), outcome))
        return outcome


def _names_read(a: ClassAd, b: ClassAd) -> tuple[str, ...] | None:
    """The lower-case names a match of ``a`` and ``b`` can look up in either ad, or None
    when it can look up one that no tree names."""
    found = {"requirements"}
    pending = ["requirements"]
    while pending:
        name = pending.pop()
        for ad in (a, b):
            expr: Expr | None = ad._exprs.get(name)
            if expr is None or expr.const is not NOT_CONST:
                continue
            read = names_read(expr.node)
            if read is None:
                return None
            for more in read - found:
                found.add(more)
                pending.append(more)
    return tuple(found)
