"""Autoclusters: jobs that no slot and no negotiator expression can tell apart.

The significant attributes are the job attributes that slot expressions, the negotiator's
rank and preemption expressions, and the job's own Requirements and Rank can read (spec
negotiator.md §5.8). Names are collected from every name those expressions mention,
which errs on the safe side: a name that turns out to be a slot attribute only makes
the signature a little longer. Known volatile and ephemeral attributes are removed, with
``REMOVE_SIGNIFICANT_ATTRIBUTES`` and names like ``Slot1_...``; ``SIGNIFICANT_ATTRIBUTES``
replaces the computed list. Jobs with equal values for all of them share an autocluster,
so one match search serves them all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..classad import ClassAd, Expr
from ..classad.nodes import AttrRef, Node, children
from ..classad.scope import NOT_CONST
from ..classad.unparse import unparse
from .params import NegotiatorParams

__all__ = ["Signatures", "significant_attributes"]

_VOLATILE = frozenset(
    name.lower()
    for name in (
        "CurrentTime",
        "RemoteUserPrio",
        "RemoteUserResourcesInUse",
        "RemoteUserFloor",
        "SubmitterUserPrio",
        "SubmittorPrio",
        "SubmitterUserResourcesInUse",
        "SubmitterGroup",
        "SubmitterGroupResourcesInUse",
        "SubmitterGroupQuota",
        "SubmitterNegotiatingGroup",
        "SubmitterAutoregroup",
        "RemoteGroup",
        "RemoteGroupResourcesInUse",
        "RemoteGroupQuota",
        "RemoteNegotiatingGroup",
        "RemoteAutoregroup",
        "TotalJobRunTime",
        "SlotID",
        "KFlops",
        "Mips",
        "MY",
        "TARGET",
        "OTHER",
        "SELF",
        "PARENT",
        "ROOT",
        "TOPLEVEL",
    )
)
_SLOT_PREFIX = re.compile(r"^Slot[0-9]*_", re.IGNORECASE)
_ALWAYS = ("Requirements", "Rank", "ConcurrencyLimits", "ConcurrencyLimitsExpr")


def _names(node: Node, out: set[str]) -> None:
    if type(node) is AttrRef:
        out.add(node.name)
    for child in children(node):
        _names(child, out)


class _NameCollector:
    """Names mentioned by expressions, following a slot's own attributes, cached per tree."""

    def __init__(self) -> None:
        self.by_node: dict[int, frozenset[str]] = {}
        self.keep: list[Node] = []

    def of(self, node: Node) -> frozenset[str]:
        found = self.by_node.get(id(node))
        if found is None:
            names: set[str] = set()
            _names(node, names)
            found = self.by_node[id(node)] = frozenset(names)
            self.keep.append(node)  # keep ids valid while the cache lives
        return found

    def through(self, ad: ClassAd, roots: Iterable[str], out: set[str]) -> None:
        pending = [r for r in roots if r in ad]
        seen: set[str] = set()
        while pending:
            name = pending.pop().lower()
            if name in seen or name not in ad:
                continue
            seen.add(name)
            for mentioned in self.of(ad.lookup(name).node):
                out.add(mentioned)
                if mentioned.lower() in ad and mentioned.lower() not in seen:
                    pending.append(mentioned)


def significant_attributes(slots: Iterable[ClassAd], params: NegotiatorParams) -> tuple[str, ...]:
    """The job attributes that decide how a job matches and ranks, sorted."""
    if params.significant_attributes is not None:
        return tuple(sorted(set(params.significant_attributes), key=str.lower))
    collector = _NameCollector()
    names: set[str] = set(params.add_significant_attributes)
    for ad in slots:
        collector.through(ad, ("Requirements", "Rank"), names)
    for expr in (
        params.preemption_requirements,
        params.preemption_rank,
        params.pre_job_rank,
        params.post_job_rank,
    ):
        if expr is not None:
            names |= collector.of(expr.node)
    removed = {n.lower() for n in params.remove_significant_attributes} | _VOLATILE
    kept = {n for n in names if n.lower() not in removed and not _SLOT_PREFIX.match(n)}
    return tuple(sorted({n.lower(): n for n in kept}.values(), key=str.lower))


class Signatures:
    """Assigns autocluster ids to jobs by the values of the significant attributes."""

    def __init__(self, significant: tuple[str, ...], each_job_alone: bool = False) -> None:
        self.significant = significant
        self.each_job_alone = each_job_alone  # NEGOTIATE_ALL_JOBS_IN_CLUSTER
        self.ids: dict[tuple, int] = {}
        self.text: dict[int, str] = {}
        self.collector = _NameCollector()

    def autocluster(self, job: ClassAd) -> int:
        key = ("job", id(job)) if self.each_job_alone else self.signature(job)
        return self.ids.setdefault(key, len(self.ids))

    def signature(self, job: ClassAd) -> tuple:
        names = set(self.significant) | set(_ALWAYS)
        own: set[str] = set()
        self.collector.through(job, ("Requirements", "Rank"), own)
        names |= own
        return tuple(sorted((n.lower(), self._value(job, n)) for n in names))

    def _value(self, job: ClassAd, name: str) -> object:
        if name not in job:
            return None
        expr: Expr = job.lookup(name)
        if expr.const is not NOT_CONST:
            return (type(expr.const).__name__, expr.const)
        key = id(expr.node)
        text = self.text.get(key)
        if text is None:
            text = self.text[key] = unparse(expr.node)
            self.collector.keep.append(expr.node)
        return text
