"""Job ads assembled from their sections' pairs, one expression object per value in a cluster.

Every ad of a cluster is built against the cluster's first ad: where an attribute's
expression equals (``Expr ==``, the same text) the first ad's, the ad holds the first
ad's very object. A schedd can then keep the first ad as the cluster ad and, per job,
only the attributes whose expression is not the cluster ad's (by identity).

An ad is assembled as ``ad[name] = value`` for each pair in order would make it (so a
later pair overrides an earlier one of the same name, which keeps its place and first
spelling); comparing a plain value with the first ad's literal needs no expression.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..classad import ClassAd, Expr
from ..classad.nodes import Literal
from .job import Pairs

__all__ = ["ClusterSharing", "Entry", "same_expr", "store"]

Entry = tuple[Expr | None, type | None, Any]
"""The first ad's expression for a name, and the ``kind`` and ``value`` of a plain value
that stands for it: a value of type ``kind`` stands for it exactly when it equals
``value``, and a plain value of another type never does (kind None: compare them)."""

_NONE: Entry = (None, None, None)


class ClusterSharing:
    """The first ad of one cluster, and the later ads sharing its expressions."""

    def __init__(self) -> None:
        self._first: ClassAd | None = None
        self._entries: dict[str, Entry] = {}  # by lower-case name, made when first needed

    def entry(self, name: str) -> Entry:
        """What stands for the first ad's ``name`` (its expression None: no such)."""
        return self._first_entries().get(name.lower(), _NONE)

    def assemble(self, sections: Iterable[Pairs]) -> ClassAd:
        """An ad from the sections' pairs, applied in order."""
        ad = ClassAd()
        if self._first is None:
            for pairs in sections:
                for name, value in pairs:
                    if type(value) is Expr:
                        ad.insert_expr(name, value)
                    else:
                        ad[name] = value
            self._first = ad
            return ad
        entries = self._first_entries()
        for pairs in sections:
            for name, value in pairs:
                store(ad, name, value, entries.get(name.lower(), _NONE))
        return ad

    def _first_entries(self) -> dict[str, Entry]:
        if self._first is not None and not self._entries:
            self._entries = {key.lower(): _entry(self._first.lookup(key)) for key in self._first}
        return self._entries


def store(ad: ClassAd, name: str, value: Any, entry: Entry) -> None:
    """``ad[name] = value``, with the first ad's expression where it is equal."""
    canon, kind, canon_value = entry
    if type(value) is Expr:
        ad.insert_expr(name, canon if canon is not None and same_expr(value, canon) else value)
    elif type(value) is kind:
        if value == canon_value:
            ad.insert_expr(name, canon)
        else:
            ad[name] = value
    else:
        ad[name] = value
        if canon is not None and kind is None and same_expr(ad.lookup(name), canon):
            ad.insert_expr(name, canon)


def same_expr(expr: Expr, canon: Expr) -> bool:
    """``expr == canon``, deciding literal ints, strings and booleans without printing."""
    if expr is canon or expr.node is canon.node:
        return True
    value, other = expr.const, canon.const
    kind = type(value)
    if kind in _PLAIN and type(other) is kind and _plain(expr) and _plain(canon):
        return value == other
    return expr == canon


_PLAIN = (int, str, bool)


def _plain(expr: Expr) -> bool:
    """Whether ``expr`` is a literal printed as its value alone (not by a text of its own)."""
    return type(expr.node) is Literal and expr.node.text is None


def _entry(canon: Expr) -> Entry:
    value = canon.const
    kind = type(value)
    if kind in _PLAIN and _plain(canon) and (kind is not str or value.isascii()):
        return canon, kind, value
    return canon, None, None
