"""The reference evaluator: a plain walk over the syntax tree, written for reading.

It is the executable statement of the semantics; the compiled path (compile.py) must give
the same value for every expression, which the property tests check.
"""

from __future__ import annotations

from typing import Any

from .ad import view
from .builtins import call
from .nodes import (
    AdLit,
    AttrRef,
    Binary,
    Call,
    Cond,
    Elvis,
    ListLit,
    Literal,
    MatchSide,
    Node,
    Paren,
    Subscript,
    Unary,
)
from .operators import BINARY, UNARY, logical_and, logical_or, truth
from .scope import EvalState, lexical, select, subscript, value_of_absolute, value_of_name
from .values import UNDEFINED, ClassAdList

__all__ = ["run"]


def run(node: Node, st: EvalState) -> Any:
    """Evaluate ``node`` in the state's current ad."""
    kind = type(node)
    if kind is Literal:
        return node.value
    if kind is AttrRef:
        return _attribute(node, st)
    if kind is Binary:
        return _binary(node, st)
    if kind is Unary:
        return UNARY[node.op](run(node.operand, st))
    if kind is Paren:
        return run(node.inner, st)
    if kind is Cond:
        return _conditional(node, st)
    if kind is Elvis:
        left = run(node.left, st)
        return run(node.right, st) if left is UNDEFINED else left
    if kind is Call:
        return call(node, st)
    if kind is Subscript:
        return subscript(st, run(node.base, st), run(node.index, st))
    if kind is ListLit:
        return _list(node, st)
    if kind is AdLit:
        return view(node, lexical(st))
    if kind is MatchSide:
        return st.my if node.side == "left" else st.target
    raise TypeError(f"not an expression node: {node!r}")


def _attribute(node: AttrRef, st: EvalState) -> Any:
    if node.scope is not None:
        return select(st, run(node.scope, st), node.lname)
    if node.absolute:
        return value_of_absolute(st, node.lname)
    return value_of_name(st, node.lname)


def _binary(node: Binary, st: EvalState) -> Any:
    op = node.op
    if op == "&&":
        return logical_and(run(node.left, st), lambda: run(node.right, st))
    if op == "||":
        return logical_or(run(node.left, st), lambda: run(node.right, st))
    return BINARY[op](run(node.left, st), run(node.right, st))


def _conditional(node: Cond, st: EvalState) -> Any:
    test = truth(run(node.cond, st))
    if test is True:
        return run(node.then, st)
    if test is False:
        return run(node.other, st)
    return test


def _list(node: ListLit, st: EvalState) -> ClassAdList:
    scope = lexical(st)
    return ClassAdList(nodes=node.items, resolve=lambda i: st.eval_in(scope, i), scope=scope)
