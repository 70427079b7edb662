"""The fast scalar evaluator: each syntax node becomes a Python closure, built once.

Same semantics as interpret.py, three differences in how it gets there:

* constant sub-expressions are folded while compiling (``1024 * 4`` is a literal);
* attribute references take a fast path when the name is the ad's own attribute
  (``Memory``, ``MY.Memory``, ``TARGET.Memory`` in a match) and otherwise fall back to
  the full scoping rules of scope.py;
* comparisons with a number or string constant, ``&&`` and ``||`` get closures of their own.

The closure is cached on the node, so an expression shared by many ads compiles once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .ad import view
from .builtins import FUNCTIONS, arity_ok
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
from .operators import BINARY, UNARY, compare, logical_and, logical_or, truth
from .scope import (
    NOT_CONST,
    EvalState,
    eval_attr,
    select,
    subscript,
    value_of_absolute,
    value_of_name,
)
from .values import ERROR, UNDEFINED, AbsTime, ClassAdList, Error, RelTime, Undefined, ascii_lower

__all__ = ["compiled", "run"]

Closure = Callable[[EvalState], Any]
_FOLDABLE = (bool, int, float, str, AbsTime, RelTime, Undefined, Error)
_ORDERING = ("<", "<=", ">", ">=", "==", "!=")


def run(node: Node, st: EvalState) -> Any:
    """Evaluate ``node`` through its compiled closure."""
    fn = node._compiled
    if fn is None:
        fn = compiled(node)
    return fn(st)


def compiled(node: Node) -> Closure:
    """The closure for ``node`` (built and cached on first use)."""
    fn = node._compiled
    if fn is None:
        fn = _fold(node) or _BUILDERS[type(node)](node)
        node._compiled = fn
    return fn


# -- constant folding -----------------------------------------------------------------
def _is_constant(node: Node) -> bool:
    kind = type(node)
    if kind is Literal:
        return isinstance(node.value, _FOLDABLE)
    if kind in (Unary, Binary, Paren, Cond, Elvis):
        from .nodes import children

        return all(_is_constant(child) for child in children(node))
    if kind is Call:
        spec = FUNCTIONS.get(node.lname)
        return spec is not None and spec.pure and all(_is_constant(a) for a in node.args)
    return False


def _fold(node: Node) -> Closure | None:
    if type(node) is Literal or not _is_constant(node):
        return None
    value = _BUILDERS[type(node)](node)(EvalState(run, now=0))
    if not isinstance(value, _FOLDABLE):
        return None
    return _constant(value)


def _constant(value: Any) -> Closure:
    return lambda st: value


# -- builders, one per node type -------------------------------------------------------
def _literal(node: Literal) -> Closure:
    return _constant(node.value)


def _paren(node: Paren) -> Closure:
    return compiled(node.inner)


def _attribute(node: AttrRef) -> Closure:
    lname = node.lname
    if node.absolute:
        return lambda st: value_of_absolute(st, lname)
    if node.scope is None:
        return _own_or_scoped(lname)
    scope = node.scope
    if type(scope) is AttrRef and scope.scope is None and not scope.absolute:
        if scope.lname == "target":
            return _target_ref(lname, compiled(scope))
        if scope.lname == "my":
            return _my_ref(lname, compiled(scope))
    base = compiled(scope)
    return lambda st: select(st, base(st), lname)


def _own_or_scoped(lname: str) -> Closure:
    def ref(st: EvalState) -> Any:
        ad = st.ad
        if ad is not None:
            expr = ad._exprs.get(lname)
            if expr is not None:
                const = expr.const
                return const if const is not NOT_CONST else eval_attr(st, ad, expr)
        return value_of_name(st, lname)

    return ref


def _target_ref(lname: str, scope: Closure) -> Closure:
    """``TARGET.name`` from one of the matched ads: straight to the other ad's attribute."""

    def ref(st: EvalState) -> Any:
        ad = st.ad
        other = None
        if st.target is not None and "target" not in ad._exprs:
            if ad is st.my:
                other = st.target
            elif ad is st.target:
                other = st.my
        if other is not None:
            expr = other._exprs.get(lname)
            if expr is not None:
                const = expr.const
                return const if const is not NOT_CONST else eval_attr(st, other, expr)
        return select(st, scope(st), lname)

    return ref


def _my_ref(lname: str, scope: Closure) -> Closure:
    """``MY.name``: the current ad's own attribute when it has one."""

    def ref(st: EvalState) -> Any:
        ad = st.ad
        if ad is not None and "my" not in ad._exprs:
            expr = ad._exprs.get(lname)
            if expr is not None:
                const = expr.const
                return const if const is not NOT_CONST else eval_attr(st, ad, expr)
        return select(st, scope(st), lname)

    return ref


def _unary(node: Unary) -> Closure:
    operand = compiled(node.operand)
    fn = UNARY[node.op]
    return lambda st: fn(operand(st))


def _binary(node: Binary) -> Closure:
    op = node.op
    left, right = compiled(node.left), compiled(node.right)
    if op == "&&":
        return _and(left, right)
    if op == "||":
        return lambda st: logical_or(left(st), lambda: right(st))
    if op in _ORDERING:
        return _comparison(op, node, left, right)
    fn = BINARY[op]
    return lambda st: fn(left(st), right(st))


def _and(left: Closure, right: Closure) -> Closure:
    def and_(st: EvalState) -> Any:
        a = left(st)
        if a is True:
            b = right(st)
            return b if type(b) is bool else truth(b)
        if a is False:
            return False
        return logical_and(a, lambda: right(st))

    return and_


def _comparison(op: str, node: Binary, left: Closure, right: Closure) -> Closure:
    const = node.right.value if type(node.right) is Literal else None
    if type(const) is str:
        return _string_comparison(op, left, const)
    if type(const) in (int, float):
        return _number_comparison(op, left, const)
    import operator

    native = {
        "<": operator.lt,
        "<=": operator.le,
        ">": operator.gt,
        ">=": operator.ge,
        "==": operator.eq,
        "!=": operator.ne,
    }[op]

    def cmp(st: EvalState) -> Any:
        a, b = left(st), right(st)
        ta = type(a)
        if ta is type(b) and (ta is int or ta is float):
            return native(a, b)
        return compare(op, a, b)

    return cmp


def _number_comparison(op: str, left: Closure, const: int | float) -> Closure:
    import operator

    native = {
        "<": operator.lt,
        "<=": operator.le,
        ">": operator.gt,
        ">=": operator.ge,
        "==": operator.eq,
        "!=": operator.ne,
    }[op]
    kind = type(const)

    def cmp(st: EvalState) -> Any:
        a = left(st)
        if type(a) is kind:
            return native(a, const)
        return compare(op, a, const)

    return cmp


def _string_comparison(op: str, left: Closure, const: str) -> Closure:
    folded = ascii_lower(const)
    if op == "==":

        def equal(st: EvalState) -> Any:
            a = left(st)
            if type(a) is str:
                return (a.lower() if a.isascii() else ascii_lower(a)) == folded
            return compare(op, a, const)

        return equal
    return lambda st: compare(op, left(st), const)


def _conditional(node: Cond) -> Closure:
    test, then, other = compiled(node.cond), compiled(node.then), compiled(node.other)

    def cond(st: EvalState) -> Any:
        t = truth(test(st))
        if t is True:
            return then(st)
        if t is False:
            return other(st)
        return t

    return cond


def _elvis(node: Elvis) -> Closure:
    left, right = compiled(node.left), compiled(node.right)

    def elvis(st: EvalState) -> Any:
        a = left(st)
        return right(st) if a is UNDEFINED else a

    return elvis


def _call(node: Call) -> Closure:
    spec = FUNCTIONS.get(node.lname)
    if spec is None or not arity_ok(spec, len(node.args)):
        return _constant(ERROR)
    fn = spec.fn
    if spec.lazy:
        args = node.args
        return lambda st: fn(st, args)
    arg_fns = [compiled(a) for a in node.args]
    return lambda st: fn(st, [a(st) for a in arg_fns])


def _subscript(node: Subscript) -> Closure:
    base, index = compiled(node.base), compiled(node.index)
    return lambda st: subscript(st, base(st), index(st))


def _list(node: ListLit) -> Closure:
    items = node.items

    def make(st: EvalState) -> ClassAdList:
        scope = st.ad
        return ClassAdList(nodes=items, resolve=lambda item: st.eval_in(scope, item))

    return make


def _ad(node: AdLit) -> Closure:
    return lambda st: view(node, st.ad)


def _side(node: MatchSide) -> Closure:
    if node.side == "left":
        return lambda st: st.my
    return lambda st: st.target


_BUILDERS: dict[type, Callable[[Any], Closure]] = {
    Literal: _literal,
    Paren: _paren,
    AttrRef: _attribute,
    Unary: _unary,
    Binary: _binary,
    Cond: _conditional,
    Elvis: _elvis,
    Call: _call,
    Subscript: _subscript,
    ListLit: _list,
    AdLit: _ad,
    MatchSide: _side,
}
