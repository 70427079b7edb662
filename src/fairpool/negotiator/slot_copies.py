"""Free slots that are copies of one another: alike in every attribute but their names.

A big pool is mostly a few kinds of machine, and its free slots of one kind differ only
in ``Name`` and ``Machine`` and in when they last changed state (``IDENTITY``). When
nothing a cycle evaluates can read those (nor ``Slot<N>_RemoteUserPrio``, the one
annotation a cycle puts on free slots, nor anything by a computed name), no job can tell
such slots apart:
each ranks them alike and takes the one listed first (collector order breaks ties). A
cycle with ``n`` idle jobs makes at most ``n`` matches, so of each kind of copy it can
take only the first ``n`` in collector order; the others only count (weight in the pie,
the pool's size, candidates left). The slot ledger (ledger.py) gives a cycle only those
first ``n`` and the others as totals, which makes a cycle's passes over its candidate
slots as long as its queue, not its pool.

Copies are grouped by the identity of their expressions' syntax trees (ads made from one
template share them, as do expressions parsed from the same text and the same plain
values): equal trees that are not the same object make two kinds, which is only slower.
Whether a job can tell copies apart is found from the names its match can read
(classad.dependence.names_read), followed through both ads, and remembered for jobs
whose expressions are those very ones (a submission's jobs share them).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import attrgetter, is_
from typing import Any

from ..classad import ClassAd, Expr
from ..classad.dependence import names_read
from .ephemeral import is_cross_slot_annotation
from .params import NegotiatorParams

__all__ = ["Copies", "copies_key"]

IDENTITY = frozenset(  # what copies of one slot ad differ in
    {
        "name",
        "machine",
        "enteredcurrentstate",
        "enteredcurrentactivity",
        "lastheardfrom",
        "updatesequencenumber",
    }
)
# What a match evaluates with the slot as one ad and the job as the other, besides the
# negotiator's expressions: both Requirements and Ranks, the job's concurrency limits.
_ROOTS = ("requirements", "rank", "concurrencylimits", "concurrencylimitsexpr")
_NODE = attrgetter("node")
_KNOWN = 10_000  # kinds of job remembered (a trace's jobs may each have their own)
_SHAPES = 16  # of them with one Requirements


def copies_key(ad: ClassAd, *values: object) -> tuple:
    """What a free slot's copies share: each attribute's syntax tree but its names', and
    ``values`` (what the ledger read of it: weight, whether counted, size)."""
    exprs = ad._exprs
    names = tuple(exprs)
    trees = list(map(id, map(_NODE, exprs.values())))
    for name in IDENTITY.intersection(exprs):
        trees[names.index(name)] = 0
    return (*values, names, tuple(trees))


@dataclass(eq=False)
class Copies:
    """One kind of free slot: its members (ledger entries, with ``seq``, ``ad``) in
    collector order, and what is known of which jobs can tell them apart."""

    key: tuple
    members: list[Any] = field(default_factory=list)
    _seqs: list[int] = field(default_factory=list)  # the members' ``seq``, bisected as ints
    # id of a job's Requirements -> [(names looked at, the job's expressions, told apart)]
    _known: dict[int, list[tuple[tuple[str, ...], tuple[Expr | None, ...], bool]]] = field(
        default_factory=dict
    )
    _negotiator: frozenset[str] | None = None
    _params: NegotiatorParams | None = None

    def add(self, entry: Any) -> None:
        at = bisect.bisect_right(self._seqs, entry.seq)
        self._seqs.insert(at, entry.seq)
        self.members.insert(at, entry)

    def remove(self, entry: Any) -> None:
        members = self.members
        at = bisect.bisect_left(self._seqs, entry.seq)
        while members[at] is not entry:
            at += 1
        del members[at], self._seqs[at]

    def told_apart(self, jobs: Iterable[ClassAd], params: NegotiatorParams) -> bool:
        """Whether a match of one of ``jobs`` can read what tells these copies apart."""
        if params is not self._params:
            self._params, self._known = params, {}
            self._negotiator = _names_of(
                params.pre_job_rank,
                params.post_job_rank,
                params.preemption_requirements,
                params.preemption_rank,
            )
        return any(self._tells(job) for job in jobs)

    def _tells(self, job: ClassAd) -> bool:
        exprs = job._exprs
        if len(self._known) > _KNOWN:
            self._known.clear()
        shapes = self._known.setdefault(id(exprs.get("requirements")), [])
        for names, looked, told in shapes:  # the very expressions: a submission's jobs
            if all(map(is_, map(exprs.get, names), looked)):
                return told
        looked_at: dict[str, Expr | None] = {}
        told = _reads_identity(self.members[0].ad, job, self._negotiator, looked_at)
        shapes.append((tuple(looked_at), tuple(looked_at.values()), told))
        del shapes[:-_SHAPES]
        return told


def _names_of(*exprs: Expr | None) -> frozenset[str] | None:
    names: set[str] = set()
    for expr in exprs:
        if expr is not None:
            found = names_read(expr.node)
            if found is None:
                return None
            names |= found
    return frozenset(names)


def _reads_identity(
    slot: ClassAd, job: ClassAd, negotiator: frozenset[str] | None, looked: dict
) -> bool:
    """Whether a match of ``job`` with ``slot`` can read what copies differ in, a
    cross-slot priority or anything by a computed name: every name the match can read,
    followed through both ads (``looked``: the job's expressions it read, for knowing
    the job again)."""
    if negotiator is None:
        return True
    pending = [*_ROOTS, *negotiator]
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        if name in IDENTITY or is_cross_slot_annotation(name):
            return True
        seen.add(name)
        mine = job._exprs.get(name)
        looked[name] = mine
        for expr in (mine, slot._exprs.get(name)):
            if expr is None:
                continue
            found = names_read(expr.node)
            if found is None:
                return True
            pending.extend(found)
    return False
