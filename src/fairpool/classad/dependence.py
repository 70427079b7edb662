"""What an expression's value can depend on, found from its syntax tree without running it.

``own_only(node, ad, other=..., clock=...)`` is True when evaluating ``node`` in ``ad``
can read nothing but literals and ``ad``'s own attributes (followed into their
expressions): the value then changes only when the ad does. Two callers ask it:

* the vector evaluator (``other=True``, ``clock=False``): a job's sub-expression that
  reads nothing of the slot is evaluated once for all slot rows; within one evaluation
  the time is fixed, and a name the job lacks would be looked up in the slot;
* the negotiator's slot ledger (``other=False``, ``clock=True``): a slot ad evaluated
  alone (no TARGET: a name it lacks is UNDEFINED) whose values do not move with time can
  be kept from one cycle to the next.

Conservative: scopes other than ``MY``, special names, subscripts, nested ads, impure
functions (``random``, ``eval``...) and circular references all answer False.

``names_read(node)`` answers another question: the names of the attributes evaluating
``node`` in a match can look up, in either ad (each name as written in the tree, in lower
case); None when it can look one up by a name it computes or read a whole ad. The
negotiator's slot ledger asks it to know whether copies of a slot ad, alike but for their
names, can be told apart by a job.
"""

from __future__ import annotations

from .ad import ClassAd
from .builtins import FUNCTIONS
from .nodes import (
    AdLit,
    AttrRef,
    Binary,
    Call,
    Cond,
    Elvis,
    ListLit,
    Literal,
    Node,
    Paren,
    Subscript,
    Unary,
    children,
)
from .scope import MATCH_SCOPE_NAMES, NOT_CONST, SPECIAL_NAMES

__all__ = ["CLOCK_FUNCTIONS", "names_read", "own_only"]

_PLAIN = (Literal, Paren, Binary, Unary, Cond, Elvis, Call, ListLit)
# pure but the clock
CLOCK_FUNCTIONS = frozenset({"time", "currenttime", "abstime", "formattime", "daytime"})


def own_only(node: Node, ad: ClassAd, *, other: bool, clock: bool) -> bool:
    """Whether ``node`` evaluated in ``ad`` reads only ``ad`` (see the module docstring).
    ``other``: a match's other ad is in scope; ``clock``: the time counts as a change."""
    return _walk(node, ad, other, clock, set())


def _walk(node: Node, ad: ClassAd, other: bool, clock: bool, seen: set[int]) -> bool:
    kind = type(node)
    if kind is AttrRef:
        return _name(node, ad, other, clock, seen)
    if kind not in _PLAIN:
        return False
    if kind is Call:
        spec = FUNCTIONS.get(node.lname)
        if spec is None:
            return False
        if node.lname in CLOCK_FUNCTIONS:
            if clock:
                return False
        elif not (node.lname == "ifthenelse" or (spec.pure and not spec.lazy)):
            return False
    return all(_walk(child, ad, other, clock, seen) for child in children(node))


def _name(node: AttrRef, ad: ClassAd, other: bool, clock: bool, seen: set[int]) -> bool:
    lname, scope = node.lname, node.scope
    if node.absolute or lname in MATCH_SCOPE_NAMES:
        return False
    if lname in SPECIAL_NAMES:
        if lname != "currenttime" or scope is not None:
            return False
        if "currenttime" in ad._exprs:  # the ad's own CurrentTime, else the clock
            return _attribute(ad, lname, other, clock, seen)
        return not clock
    if scope is not None:
        my = (
            type(scope) is AttrRef
            and scope.scope is None
            and not scope.absolute
            and scope.lname == "my"
            and "my" not in ad._exprs
        )
        if not my:
            return False
        return _attribute(ad, lname, other, clock, seen)
    if lname not in ad._exprs:
        return not other  # alone, a missing name is UNDEFINED; matched, it is the other's
    return _attribute(ad, lname, other, clock, seen)


def _attribute(ad: ClassAd, lname: str, other: bool, clock: bool, seen: set[int]) -> bool:
    """An attribute of ``ad`` itself (UNDEFINED when missing)."""
    expr = ad._exprs.get(lname)
    if expr is None or expr.const is not NOT_CONST:
        return True
    if id(expr) in seen:
        return False
    seen.add(id(expr))
    return _walk(expr.node, ad, other, clock, seen)


_SCOPES = frozenset({"my", "target", "other"})  # the scopes of a match's two ads
_WHOLE = MATCH_SCOPE_NAMES | (SPECIAL_NAMES - {"currenttime"})  # names of whole ads
_READ: dict[int, tuple[Node, frozenset[str] | None]] = {}  # id(node) -> (node, names)


def names_read(node: Node) -> frozenset[str] | None:
    """The lower-case names evaluating ``node`` can look up (see the module docstring);
    worked out once per tree."""
    found = _READ.get(id(node))
    if found is None or found[0] is not node:
        names: set[str] = set()
        read = frozenset(names) if _collect(node, names) else None
        if len(_READ) >= 100_000:
            _READ.clear()
        found = _READ[id(node)] = (node, read)
    return found[1]


def _collect(node: Node, names: set[str]) -> bool:
    kind = type(node)
    if kind is AttrRef:
        scope = node.scope
        if node.absolute or (scope is None and node.lname in _WHOLE):
            return False  # the root ad, or a whole ad
        if scope is not None and not (
            type(scope) is AttrRef
            and scope.scope is None
            and not scope.absolute
            and scope.lname in _SCOPES
        ):
            return False
        names.add(node.lname)
        return True
    if kind is Subscript or kind is AdLit:
        return False  # a name computed, or a nested ad's own scope
    if kind is Call:
        spec = FUNCTIONS.get(node.lname)
        if spec is None or not (spec.pure or node.lname in CLOCK_FUNCTIONS):
            return False  # eval, unparse, random...: what they read is not in the tree
    return all(_collect(child, names) for child in children(node))
