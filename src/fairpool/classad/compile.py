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

import math
import operator
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
    children,
)
from .operators import BINARY, UNARY, compare, truth
from .scope import (
    MATCH_SCOPE_NAMES,
    NOT_CONST,
    SPECIAL_NAMES,
    EvalState,
    attribute_of,
    eval_attr,
    lexical,
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
_PLAIN = {"+": operator.add, "-": operator.sub, "*": operator.mul}
_INT_MIN, _INT_MAX = -(1 << 63), (1 << 63) - 1


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
        fn = _fold(node, _BUILDERS[type(node)](node))
        node._compiled = fn
    return fn


# -- constant folding -----------------------------------------------------------------
_FOLDS = (Unary, Binary, Paren, Cond, Elvis, Call)


def _fold(node: Node, fn: Closure) -> Closure:
    """A constant closure for a node whose children are all constant (and, for a call,
    whose function is pure); children are compiled first, so this is linear."""
    kind = type(node)
    if kind not in _FOLDS or hasattr(fn, "constant"):
        return fn
    if kind is Call:
        spec = FUNCTIONS.get(node.lname)
        if spec is None or not spec.pure or spec.lazy:
            return fn
    if not all(hasattr(child._compiled, "constant") for child in children(node)):
        return fn
    value = fn(EvalState(run, now=0))
    return _constant(value) if isinstance(value, _FOLDABLE) else fn


def _constant(value: Any) -> Closure:
    def constant(st: EvalState) -> Any:
        return value

    constant.constant = value  # type: ignore[attr-defined]
    return constant


# -- builders, one per node type -------------------------------------------------------
def _literal(node: Literal) -> Closure:
    if isinstance(node.value, _FOLDABLE):
        return _constant(node.value)
    value = node.value
    return lambda st: value


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
    """An unscoped name. When it is neither special nor a name of the match scopes, a
    top-level ad's scope chain holds nothing for it, so a miss goes straight to the other
    ad of the match (or is UNDEFINED outside a match)."""
    plain = lname not in SPECIAL_NAMES and lname not in MATCH_SCOPE_NAMES

    def ref(st: EvalState) -> Any:
        ad = st.ad
        if ad is not None:
            expr = ad._exprs.get(lname)
            if expr is not None:
                const = expr.const
                return const if const is not NOT_CONST else eval_attr(st, ad, expr)
            if plain and ad.parent is None:
                target = st.target
                if target is None:
                    return UNDEFINED
                other = target if ad is st.my else st.my if ad is target else None
                if other is not None:
                    expr = other._exprs.get(lname)
                    if expr is None:
                        return UNDEFINED
                    const = expr.const
                    return const if const is not NOT_CONST else eval_attr(st, other, expr)
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
            return attribute_of(st, other, lname)
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
    if op == "&&" or op == "||":
        operands = tuple(compiled(n) for n in _chain(node, op))
        return _all_of(operands) if op == "&&" else _any_of(operands)
    left, right = compiled(node.left), compiled(node.right)
    if op in _ORDERING:
        return _comparison(op, node, left, right)
    if op in _PLAIN:
        return _arithmetic(op, left, right)
    fn = BINARY[op]
    return lambda st: fn(left(st), right(st))


def _arithmetic(op: str, left: Closure, right: Closure) -> Closure:
    """``+``, ``-`` or ``*`` of two numbers, the result taken as Python gives it when it
    needs no ClassAd rule (an integer within 64 bits, a real other than +inf: Python
    widens an int beside a real to a real, as the operator table does); anything else
    through the operator table (operators.py), which decides every other case."""
    plain, general = _PLAIN[op], BINARY[op]

    def arithmetic(st: EvalState) -> Any:
        a, b = left(st), right(st)
        ta, tb = type(a), type(b)
        if (ta is int or ta is float) and (tb is int or tb is float):
            value = plain(a, b)
            if ta is int and tb is int:
                if _INT_MIN <= value <= _INT_MAX:
                    return value
            elif value != math.inf:
                return value
        return general(a, b)

    return arithmetic


def _chain(node: Node, op: str) -> list[Node]:
    """The operands of ``a && b && (c && d)``: ``&&`` and ``||`` are associative under
    ClassAd's three-valued logic, so a chain evaluates left to right in one loop."""
    inner = node
    while type(inner) is Paren:
        inner = inner.inner
    if type(inner) is Binary and inner.op == op:
        return _chain(inner.left, op) + _chain(inner.right, op)
    return [node]


def _all_of(operands: tuple[Closure, ...]) -> Closure:
    """``&&`` over a chain: False or ERROR stops it; UNDEFINED is remembered."""

    def all_of(st: EvalState) -> Any:
        result: Any = True
        for operand in operands:
            value = operand(st)
            if value is True:
                continue
            if value is False:
                return False
            kind = type(value)
            if kind is int or kind is float:
                if value == 0:
                    return False
            elif value is UNDEFINED:
                result = UNDEFINED
            else:
                return ERROR
        return result

    return all_of


def _any_of(operands: tuple[Closure, ...]) -> Closure:
    """``||`` over a chain: True or ERROR stops it; UNDEFINED is remembered."""

    def any_of(st: EvalState) -> Any:
        result: Any = False
        for operand in operands:
            value = operand(st)
            if value is False:
                continue
            if value is True:
                return True
            kind = type(value)
            if kind is int or kind is float:
                if value != 0:
                    return True
            elif value is UNDEFINED:
                result = UNDEFINED
            else:
                return ERROR
        return result

    return any_of


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
    if len(arg_fns) == 1:
        (first,) = arg_fns
        return lambda st: fn(st, [first(st)])
    if len(arg_fns) == 2:
        first, second = arg_fns
        return lambda st: fn(st, [first(st), second(st)])
    return lambda st: fn(st, [a(st) for a in arg_fns])


def _subscript(node: Subscript) -> Closure:
    base, index = compiled(node.base), compiled(node.index)
    return lambda st: subscript(st, base(st), index(st))


def _list(node: ListLit) -> Closure:
    items = node.items

    def make(st: EvalState) -> ClassAdList:
        scope = lexical(st)
        return ClassAdList(nodes=items, resolve=lambda i: st.eval_in(scope, i), scope=scope)

    return make


def _ad(node: AdLit) -> Closure:
    return lambda st: view(node, lexical(st))


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
