"""Attributes that exist only while a cycle runs (seed "Priorities in Negotiation and
Preemption"; spec negotiator.md §5.5).

On slots: ``RemoteUserPrio``, ``RemoteUserFloor``, ``RemoteUserResourcesInUse`` and, for
every slot of the machine, ``Slot<N>_RemoteUserPrio``. On the job being matched:
``SubmitterUserPrio`` (and the old spelling ``SubmittorPrio``),
``SubmitterUserResourcesInUse``, ``SubmitterNegotiatingGroup``, ``SubmitterAutoregroup``,
and under group quotas ``SubmitterGroup*`` / ``RemoteGroup*``. The ``*ResourcesInUse``
attributes of running users are the live expressions ``ResourcesInUseByUser("u")`` and
``ResourcesInUseByUsersGroup("u")``, so they see matches made earlier in the same cycle.

``Annotations`` remembers every change and puts each ad back as it was when the cycle
ends, so a cycle leaves its inputs unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from typing import Any

from ..classad import ClassAd, Expr
from ..classad.ad import _literal_expr
from ..classad.builtins import builtin
from ..classad.dependence import names_read
from ..classad.scope import NOT_CONST
from ..classad.values import ERROR

__all__ = [
    "JOB_ANNOTATIONS",
    "LIVE_USAGE",
    "Annotations",
    "LiveUsage",
    "is_cross_slot_annotation",
    "is_slot_annotation",
    "may_read_job_annotations",
]


class LiveUsage:
    """What the ``ResourcesInUse*`` functions read during a cycle: a user's current weighted
    usage, and that of the group the user is charged to (UNDEFINED without groups)."""

    def __init__(self, of_user: Callable[[str], float], of_group: Callable[[str], Any]) -> None:
        self.of_user = of_user
        self.of_group = of_group


LIVE_USAGE: ContextVar[LiveUsage | None] = ContextVar("fairpool_live_usage", default=None)


@builtin("ResourcesInUseByUser", pure=False)
def _in_use_by_user(st: Any, args: list[Any]) -> Any:
    live = LIVE_USAGE.get()  # outside a cycle there is no usage to read: ERROR, as classad2
    return live.of_user(args[0]) if live is not None and isinstance(args[0], str) else ERROR


@builtin("ResourcesInUseByUsersGroup", pure=False)
def _in_use_by_group(st: Any, args: list[Any]) -> Any:
    live = LIVE_USAGE.get()
    return live.of_group(args[0]) if live is not None and isinstance(args[0], str) else ERROR


_ON_SLOTS = frozenset({"remoteuserprio", "remoteuserfloor", "remoteuserresourcesinuse"})
JOB_ANNOTATIONS = frozenset(  # what a cycle sets on the job being matched, in lower case
    n.lower()
    for n in (
        "SubmitterUserPrio",
        "SubmittorPrio",
        "SubmitterUserResourcesInUse",
        "SubmitterNegotiatingGroup",
        "SubmitterAutoregroup",
        "SubmitterGroup",
        "SubmitterGroupResourcesInUse",
        "SubmitterGroupQuota",
    )
)
_CROSS_SLOT = re.compile(r"^slot[0-9]+_remoteuserprio$", re.IGNORECASE)


def is_slot_annotation(name: str) -> bool:
    """Whether a cycle sets attribute ``name`` on the slots of running users."""
    return name.lower() in _ON_SLOTS or is_cross_slot_annotation(name)


def is_cross_slot_annotation(name: str) -> bool:
    """Whether ``name`` is ``Slot<N>_RemoteUserPrio``, the one annotation a cycle also
    puts on free slots (every slot of a machine where a user runs)."""
    return _CROSS_SLOT.match(name) is not None


def may_read_job_annotations(exprs: Iterable[Expr | None]) -> bool:
    """Whether evaluating any of ``exprs`` can read an attribute a cycle sets on the job
    it matches: one of them names one, or reads a name it computes (eval, whole ads).
    Where nothing that a cycle evaluates can, the job need not be annotated."""
    for expr in exprs:
        if expr is None or expr.const is not NOT_CONST:
            continue
        names = names_read(expr.node)
        if names is None or not JOB_ANNOTATIONS.isdisjoint(names):
            return True
    return False


class Annotations:
    """Attributes set on ads for the length of a cycle, and how to take them back."""

    def __init__(self) -> None:
        self._undo: list[tuple[ClassAd, str, Expr | None]] = []
        self._touched: set[tuple[int, str]] = set()

    def set(self, ad: ClassAd, name: str, value: Any) -> None:
        lname = name.lower()
        key = (id(ad), lname)
        if key not in self._touched:
            self._touched.add(key)
            self._undo.append((ad, name, ad._exprs.get(lname)))
        elif _holds(ad, lname, value):
            return  # set again to what it is (a request's job, match after match)
        ad[name] = value

    def ads(self) -> list[ClassAd]:
        """The ads changed (until ``restore``)."""
        return list({id(ad): ad for ad, _, _ in self._undo}.values())

    def restore(self) -> None:
        for ad, name, previous in reversed(self._undo):
            if previous is None:
                if name in ad:
                    del ad[name]
            else:
                ad.insert_expr(name, previous)
        self._undo.clear()
        self._touched.clear()


def _holds(ad: ClassAd, lname: str, value: Any) -> bool:
    """Whether the ad already holds ``value`` (plain values are shared literal
    expressions, so the same value is the same expression)."""
    current = ad._exprs.get(lname)
    if isinstance(value, Expr):
        return current is value
    kind = type(value)
    return kind in (int, float, str, bool) and current is _literal_expr(kind, value)


def live_usage_expr(function: str, name: str) -> Expr:
    """``ResourcesInUseByUser("name")``-style expression for an ad."""
    escaped = name.replace("\\", "\\\\").replace('"', '\\"')
    return Expr(f'{function}("{escaped}")')
