"""Matching two ads: evaluation in a match, Requirements both ways, Rank.

In a match HTCondor's library places the two ads inside a match ad::

    [ LEFT = <my>; RIGHT = <target>;
      lCtx = [ ad = .LEFT; my = .LEFT; other = .RIGHT; target = .RIGHT ];
      rCtx = [ ad = .RIGHT; my = .RIGHT; other = .LEFT; target = .LEFT ];
      symmetricMatch = RIGHT.requirements && LEFT.requirements;
      leftMatchesRight = RIGHT.requirements; rightMatchesLeft = LEFT.requirements;
      leftRankValue = LEFT.rank; rightRankValue = RIGHT.rank ]

with ``lCtx`` the parent scope of MY and ``rCtx`` that of TARGET. That is how ``TARGET``,
``OTHER`` and ``PARENT`` resolve, and we build the same structure once and share it.

A ``Requirements`` expression is met when it evaluates to true or to a non-zero number
(NaN counts); false, zero, undefined, error, strings, lists, ads or a missing attribute
are not.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from . import compile as _compile
from .ad import ClassAd, Expr, new_state
from .nodes import Literal, MatchSide
from .scope import MATCH_SCOPE_NAMES, NOT_CONST, EvalState, eval_attr
from .values import UNDEFINED, Error

__all__ = [
    "evaluate",
    "evaluate_attribute",
    "match_scopes",
    "rank",
    "requirements_met",
    "satisfied",
    "symmetric_match",
]

_REQUIREMENTS = "requirements"
_RANK = "rank"


@cache
def match_scopes() -> tuple[ClassAd, tuple[ClassAd, ClassAd]]:
    """The shared match ad and the two context ads (the scope chain of a match)."""
    lctx = ClassAd("[ ad = .LEFT; my = .LEFT; other = .RIGHT; target = .RIGHT ]")
    rctx = ClassAd("[ ad = .RIGHT; my = .RIGHT; other = .LEFT; target = .LEFT ]")
    root = ClassAd(
        "[ symmetricMatch = RIGHT.requirements && LEFT.requirements;"
        "  leftMatchesRight = RIGHT.requirements; rightMatchesLeft = LEFT.requirements;"
        "  leftRankValue = LEFT.rank; rightRankValue = RIGHT.rank ]"
    )
    root.insert_node("lCtx", Literal(lctx))
    root.insert_node("LEFT", MatchSide("left"))
    root.insert_node("rCtx", Literal(rctx))
    root.insert_node("RIGHT", MatchSide("right"))
    names = {name.lower() for ad in (root, lctx, rctx) for name in ad}
    assert names <= MATCH_SCOPE_NAMES, "compile.py's fast paths rely on MATCH_SCOPE_NAMES"
    return root, (lctx, rctx)


def evaluate(
    expr: Expr, my: ClassAd | None, target: ClassAd | None = None, *, now: float, run: Any = None
) -> Any:
    """The raw ClassAd value of ``expr`` written in ``my``, matched against ``target``."""
    st = new_state(run or _compile.run, my, target, now)
    return _guarded(st, expr)


def _guarded(st: EvalState, expr: Expr) -> Any:
    try:
        return st.run(expr.node, st)
    except RecursionError:
        return Error("expression nests too deeply")


def evaluate_attribute(
    ad: ClassAd, name: str, target: ClassAd | None = None, *, now: float, run: Any = None
) -> Any:
    """The raw value of attribute ``name`` of ``ad`` (UNDEFINED when absent)."""
    expr = ad._exprs.get(name.lower())
    if expr is None:
        return UNDEFINED
    if expr.const is not NOT_CONST:  # a literal (a startd's START = TRUE): no state to make
        return expr.const
    st = new_state(run or _compile.run, ad, target, now)
    return eval_attr(st, ad, expr)


def satisfied(value: Any) -> bool:
    """Whether a Requirements value lets a match happen."""
    t = type(value)
    if t is bool:
        return value
    return (t is int or t is float) and value != 0


def requirements_met(ad: ClassAd, other: ClassAd, *, now: float, run: Any = None) -> bool:
    """``ad``'s own Requirements hold with MY=ad and TARGET=other."""
    return _own_requirements(new_state(run or _compile.run, ad, other, now), ad)


def symmetric_match(a: ClassAd, b: ClassAd, *, now: float, run: Any = None) -> bool:
    """Both ads' Requirements hold against each other (one state serves both directions)."""
    st = new_state(run or _compile.run, a, b, now)
    if not _own_requirements(st, a):
        return False
    st.ad = st.my = b
    st.target = a
    return _own_requirements(st, b)


def _own_requirements(st: EvalState, ad: ClassAd) -> bool:
    expr = ad._exprs.get(_REQUIREMENTS)
    return expr is not None and satisfied(eval_attr(st, ad, expr))


def rank(ad: ClassAd, other: ClassAd, *, now: float, run: Any = None) -> float:
    """``ad``'s Rank of ``other`` as a real; anything that is not a number ranks 0.0."""
    expr = ad._exprs.get(_RANK)
    if expr is None:
        return 0.0
    value = expr.const
    if value is NOT_CONST:  # a literal reads nothing: no evaluation needed
        value = eval_attr(new_state(run or _compile.run, ad, other, now), ad, expr)
    t = type(value)
    if t is int or t is float or t is bool:
        return float(value)
    return 0.0
