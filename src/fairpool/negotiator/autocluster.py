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
from itertools import repeat
from operator import attrgetter, is_

from ..classad import ClassAd, Expr
from ..classad.nodes import AttrRef, Node, children
from ..classad.scope import NOT_CONST
from ..classad.unparse import unparse
from .params import NegotiatorParams

__all__ = ["NameCollector", "Signatures", "significant_attributes"]

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
_CONST, _NODE = attrgetter("const"), attrgetter("node")


class _Missing:
    """What an absent attribute looks like to a trace: no tree, not a literal."""

    const = NOT_CONST
    node = None


_MISSING = _Missing()


class _Absent:
    """An absent attribute, to a signature: its own kind of value."""

    const = None


_ABSENT = _Absent()
_NotConst = type(NOT_CONST)
_SLOT_PREFIX = re.compile(r"^Slot[0-9]*_", re.IGNORECASE)
_ALWAYS = ("Requirements", "Rank", "ConcurrencyLimits", "ConcurrencyLimitsExpr")
# significant_attributes' answers by the slots' sets of names and the configuration: a
# busy pool's cycles see the same few sets cycle after cycle
_SIGNIFICANT: dict[tuple[frozenset, int], tuple[NegotiatorParams, tuple[str, ...]]] = {}


def _names(node: Node, out: set[str]) -> None:
    if type(node) is AttrRef:
        out.add(node.name)
    for child in children(node):
        _names(child, out)


def _shape(expr: Expr | None) -> object:
    """What a trace depends on: absent (None), a literal (True: it mentions no name), or
    the syntax tree of an expression."""
    if expr is None:
        return None
    return True if expr.const is not NOT_CONST else expr.node


class _Trace:
    """The names one trace reached, and what it looked at to reach them: attributes
    that were absent, literals, or expressions (by syntax tree). Checked for another ad
    without a Python step per name: a pool's 100,000 slots are checked every cycle."""

    def __init__(self, looked: dict[str, object], names: frozenset[str]) -> None:
        self.absent = tuple(n for n, shape in looked.items() if shape is None)
        self.literal = tuple(n for n, shape in looked.items() if shape is True)
        self.trees = tuple(n for n, shape in looked.items() if shape not in (None, True))
        self.nodes = tuple(looked[n] for n in self.trees)
        self.names = names
        self.looked = tuple(looked)

    def holds(self, exprs: dict[str, Expr]) -> bool:
        trees = map(exprs.get, self.trees, repeat(_MISSING))
        if not all(map(is_, map(_NODE, trees), self.nodes)):  # stops at the first other
            return False
        if any(map(exprs.__contains__, self.absent)):
            return False
        literals = list(map(exprs.get, self.literal, repeat(_MISSING)))
        return not any(map(is_, map(_CONST, literals), repeat(NOT_CONST)))


class NameCollector:
    """Names mentioned by expressions, following an ad's own attributes, cached per tree.

    What an ad's Requirements and Rank reach is traced once per distinct set of
    expressions: ads copied from one another share their parsed expressions, so a trace
    is reused after checking that every attribute it looked at is still absent, a literal,
    or the same syntax tree."""

    def __init__(self) -> None:
        self.by_node: dict[int, frozenset[str]] = {}
        self.keep: list[Node] = []
        self.traces: dict[tuple[int, int], list[_Trace]] = {}

    def of(self, node: Node) -> frozenset[str]:
        found = self.by_node.get(id(node))
        if found is None:
            names: set[str] = set()
            _names(node, names)
            found = self.by_node[id(node)] = frozenset(names)
            self.keep.append(node)  # keep ids valid while the cache lives
        return found

    def reach(self, ad: ClassAd) -> frozenset[str]:
        """Every name mentioned by the ad's Requirements and Rank and, transitively, by
        the ad's attributes they mention (as written, not lower-cased)."""
        return self.trace(ad).names

    def trace(self, ad: ClassAd) -> _Trace:
        """The trace that holds for the ad: what it reaches, and the (lower-case) names of
        the attributes it looked at on the way (``looked``)."""
        exprs = ad._exprs
        key = (id(exprs.get("requirements")), id(exprs.get("rank")))
        traces = self.traces.setdefault(key, [])
        for trace in traces:
            if trace.holds(exprs):
                return trace
        looked: dict[str, object] = {}

        def has(lname: str) -> bool:
            found = exprs.get(lname)
            looked[lname] = _shape(found)
            return found is not None

        out: set[str] = set()
        pending = [r for r in ("requirements", "rank") if has(r)]
        seen: set[str] = set()
        while pending:
            name = pending.pop().lower()
            if name in seen or not has(name):
                continue
            seen.add(name)
            for mentioned in self.of(exprs[name].node):
                out.add(mentioned)
                if has(mentioned.lower()) and mentioned.lower() not in seen:
                    pending.append(mentioned)
        trace = _Trace(looked, frozenset(out))
        traces.append(trace)
        return trace


def significant_attributes(
    mentions: Iterable[frozenset[str]], params: NegotiatorParams
) -> tuple[str, ...]:
    """The job attributes that decide how a job matches and ranks, sorted; ``mentions``:
    what each slot's Requirements and Rank reach (``NameCollector.reach``)."""
    if params.significant_attributes is not None:
        return tuple(sorted(set(params.significant_attributes), key=str.lower))
    sets = frozenset(mentions)  # slots share their sets (a set's hash is kept)
    known = _SIGNIFICANT.get((sets, id(params)))
    if known is not None and known[0] is params:
        return known[1]
    collector = NameCollector()
    names: set[str] = set(params.add_significant_attributes)
    for mentioned in sets:
        names |= mentioned
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
    found = tuple(sorted({n.lower(): n for n in kept}.values(), key=str.lower))
    if len(_SIGNIFICANT) >= 64:
        _SIGNIFICANT.clear()
    _SIGNIFICANT[(sets, id(params))] = (params, found)  # params held: its id stays its own
    return found


class Signatures:
    """Assigns autocluster ids to jobs by the values of the significant attributes."""

    def __init__(self, significant: tuple[str, ...], each_job_alone: bool = False) -> None:
        self.significant = significant
        self.each_job_alone = each_job_alone  # NEGOTIATE_ALL_JOBS_IN_CLUSTER
        self.ids: dict[tuple, int] = {}
        self.text: dict[int, str] = {}
        self.collector = NameCollector()
        self.sorted_names: dict[frozenset[str], tuple[str, ...]] = {}
        self.spots: dict[tuple[type, ...], list[int]] = {}  # where the expressions are
        # (requirements, rank) -> trace -> (the names read, their expressions' ids -> the
        # autocluster and the expressions, kept so that the ids stay theirs)
        self.by_exprs: dict[tuple[int, int], dict[int, tuple[tuple[str, ...], dict]]] = {}

    def autocluster(self, job: ClassAd) -> int:
        """The job's autocluster. A job whose expressions are the very ones of a job seen
        before, for every name its trace looked at and every name of its signature, is
        in that job's autocluster, known without tracing or reading a value: the jobs of
        a submission share their expressions."""
        if self.each_job_alone:
            return self.ids.setdefault(("job", id(job)), len(self.ids))
        exprs = job._exprs
        where = (id(exprs.get("requirements")), id(exprs.get("rank")))
        for reads, known in self.by_exprs.get(where, {}).values():
            hit = known.get(tuple(map(id, map(exprs.get, reads))))
            if hit is not None:
                return hit[0]
        trace = self.collector.trace(job)
        names = self._sorted(trace.names)
        tables = self.by_exprs.setdefault(where, {})
        if id(trace) not in tables:
            tables[id(trace)] = (tuple(sorted({*names, *trace.looked})), {})
        reads, known = tables[id(trace)]
        found = tuple(map(exprs.get, reads))
        if len(known) >= 100_000:
            known.clear()
        cluster = self.ids.setdefault(self._signature(names, job), len(self.ids))
        known[tuple(map(id, found))] = (cluster, found)  # kept: their ids stay theirs
        return cluster

    def signature(self, job: ClassAd) -> tuple:
        """The significant names and every name the job's own Requirements and Rank
        reach (lower-case, sorted), with each one's value: a literal's type and value,
        an expression's text, or absent."""
        return self._signature(self._sorted(self.collector.reach(job)), job)

    def _signature(self, names: tuple[str, ...], job: ClassAd) -> tuple:
        exprs = job._exprs
        consts = tuple(map(_CONST, map(exprs.get, names, repeat(_ABSENT))))
        kinds = tuple(map(type, consts))  # 1, 1.0 and true apart; text apart from strings
        if _NotConst in kinds:
            spots = self.spots.get(kinds)
            if spots is None:
                spots = self.spots[kinds] = [i for i, k in enumerate(kinds) if k is _NotConst]
            values = list(consts)
            for i in spots:
                values[i] = self._text(exprs[names[i]].node)
            consts = tuple(values)
        return names, kinds, consts

    def _sorted(self, own: frozenset[str]) -> tuple[str, ...]:
        """The significant names and ``own`` (what a job's trace reached), lower-case
        and sorted."""
        names = self.sorted_names.get(own)
        if names is None:
            everything = set(self.significant) | set(_ALWAYS) | own
            names = self.sorted_names[own] = tuple(sorted(n.lower() for n in everything))
        return names

    def _text(self, node: Node) -> str:
        """An expression's text (cached by syntax tree: a cluster's jobs share theirs)."""
        key = id(node)
        text = self.text.get(key)
        if text is None:
            text = self.text[key] = unparse(node)
            self.collector.keep.append(node)
        return text
