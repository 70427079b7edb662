"""Type tests, conditionals, membership and comparison over lists, and the functions that
work on expressions rather than values: eval, unparse, unresolved, evalInEachContext,
countMatches, debug."""

from __future__ import annotations

from typing import Any

from ...errors import ClassAdSyntaxError
from ..nodes import AttrRef, Node
from ..operators import BINARY, compare, identical, truth
from ..scope import elements, lookup
from ..unparse import unparse_value
from ..values import ERROR, UNDEFINED, AbsTime, AdBase, ClassAdList, Error, RelTime
from .regex import compile_pattern
from .registry import builtin

__all__: list[str] = []


def _type_test(name: str, test: Any) -> None:
    builtin(name)(lambda st, args: test(args[0]))


_type_test("isUndefined", lambda v: v is UNDEFINED)
_type_test("isError", lambda v: type(v) is Error)
_type_test("isString", lambda v: type(v) is str)
_type_test("isInteger", lambda v: type(v) is int)
_type_test("isReal", lambda v: type(v) is float)
_type_test("isBoolean", lambda v: type(v) is bool)
_type_test("isList", lambda v: type(v) is ClassAdList)
_type_test("isClassAd", lambda v: isinstance(v, AdBase))
_type_test("isAbsTime", lambda v: type(v) is AbsTime)
_type_test("isRelTime", lambda v: type(v) is RelTime)


@builtin("ifThenElse", args=3, lazy=True)
def _if_then_else(st: Any, args: tuple[Node, ...]) -> Any:
    test = truth(st.run(args[0], st))
    if test is True:
        return st.run(args[1], st)
    if test is False:
        return st.run(args[2], st)
    return test


@builtin("debug")
def _debug(st: Any, args: list[Any]) -> Any:
    return args[0]


def _is_scalar(value: Any) -> bool:
    return type(value) is not ClassAdList and not isinstance(value, AdBase)


def _membership(st: Any, args: list[Any], identity: bool) -> Any:
    """member() compares with ``==`` (ERROR/UNDEFINED items are not looked for);
    identicalMember() with ``=?=``, which finds ERROR and UNDEFINED too."""
    item, items = args
    if items is UNDEFINED or (item is UNDEFINED and not identity):
        return UNDEFINED
    if not _is_scalar(item) or (type(item) is Error and not identity):
        return ERROR
    if type(items) is not ClassAdList:
        return ERROR
    for element in elements(st, items):
        same = identical(item, element) if identity else compare("==", item, element)
        if same is True:
            return True
    return False


@builtin("member", args=2)
def _member(st: Any, args: list[Any]) -> Any:
    return _membership(st, args, identity=False)


@builtin("identicalMember", args=2)
def _identical_member(st: Any, args: list[Any]) -> Any:
    return _membership(st, args, identity=True)


_COMPARE_OPS = {"<", "<=", "==", "!=", ">", ">=", "is", "isnt"}


def _list_compare(st: Any, args: list[Any], want_all: bool) -> Any:
    op, items, value = args
    if op is UNDEFINED:
        return UNDEFINED
    if type(op) is not str or op.lower() not in _COMPARE_OPS:
        return ERROR  # checked before the list: a bad operator beats an undefined list
    if items is UNDEFINED:
        return UNDEFINED
    if type(items) is not ClassAdList:
        return ERROR
    fn = BINARY[op.lower()]
    for element in elements(st, items):
        result = fn(element, value)
        if type(result) is Error:
            return ERROR
        if result is UNDEFINED:
            return False
        if want_all and result is not True:
            return False
        if not want_all and result is True:
            return True
    return want_all


@builtin("anyCompare", args=3)
def _any_compare(st: Any, args: list[Any]) -> Any:
    return _list_compare(st, args, want_all=False)


@builtin("allCompare", args=3)
def _all_compare(st: Any, args: list[Any]) -> Any:
    return _list_compare(st, args, want_all=True)


@builtin("eval", pure=False)
def _eval(st: Any, args: list[Any]) -> Any:
    """A string is parsed and evaluated; any other value goes through its text, as
    HTCondor's library does: a real keeps the 16 digits the writer prints
    (``eval(0.30000000000000004)`` is 0.3), a list written with names evaluates them here
    (classad2 25.14.1)."""
    value = args[0]
    if value is UNDEFINED or type(value) in (AbsTime, RelTime):
        return ERROR  # HTCondor's eval() does not pass these through (other values it does)
    from ..parser import parse_expr

    text = value if type(value) is str else unparse_value(value)
    try:
        node = parse_expr(text)
    except ClassAdSyntaxError:
        return ERROR
    return st.run(node, st)


@builtin("unparse", lazy=True, pure=False)
def _unparse(st: Any, args: tuple[Node, ...]) -> Any:
    """The text of the expression a plain name refers to, lists and nested ads laid out
    over lines as HTCondor's library prints them there; ``""`` for a scoped or absolute
    name (``unparse(MY.x)``) and a name found nowhere (classad2 25.14.1)."""
    node = args[0]
    if type(node) is not AttrRef:
        return ERROR
    if node.scope is not None or node.absolute or st.ad is None:
        return ""
    found = lookup(st, st.ad, node.lname)
    if found is None or found[0] is None:
        return ""
    from ..unparse import unparse_laid_out

    return unparse_laid_out(found[1].node)


def _referenced_expr(st: Any, node: Node) -> Any:
    """The expression an attribute-reference argument names (None when not found)."""
    if type(node) is not AttrRef:
        return ERROR
    return _named_expr(st, node)


def _named_expr(st: Any, node: AttrRef) -> Any:
    """The expression an attribute reference names, from its own scope (None when it
    names none)."""
    if node.scope is not None:
        base = st.run(node.scope, st)
        if not isinstance(base, AdBase):
            return None
        found = lookup(st, base, node.lname)
    else:
        start = st.root if node.absolute else st.ad
        found = None if start is None else lookup(st, start, node.lname)
    if found is None or found[0] is None:
        return None
    return found[1]


@builtin("unresolved", args=(1, 2), lazy=True, pure=False)
def _unresolved(st: Any, args: tuple[Node, ...]) -> Any:
    expr = _referenced_expr(st, args[0])
    if expr is ERROR:
        return ERROR
    if expr is None:
        return UNDEFINED
    from ..refs import references, unresolved_text

    text = unresolved_text(references(expr.node, st.ad))
    if len(args) == 1:
        return text
    pattern = st.run(args[1], st)
    if type(pattern) is not str:
        return ERROR
    regex = compile_pattern(pattern)
    if regex is None:
        return ERROR
    return any(regex.search(name) for name in text.split(",") if name)


def _in_each(st: Any, node: Node) -> Node:
    """What evalInEachContext and countMatches evaluate in each context. A name given
    as the expression is looked up from the calling ad first, and what it names is
    evaluated in each context: with ``a = q`` in the caller, ``evalInEachContext(a,
    {[q = 9; a = 5]})`` is ``{9}`` (classad2 25.14.1). A name found nowhere is itself
    evaluated in each context."""
    if type(node) is not AttrRef:
        return node
    if node.scope is None and not node.absolute and st.ad is not None:
        found = lookup(st, st.ad, node.lname)
        other = st.target if st.ad is st.my else st.my if st.ad is st.target else None
        if found is None and other is not None:
            found = lookup(st, other, node.lname)
        return node if found is None or found[0] is None else found[1].node
    expr = _named_expr(st, node)
    return node if expr is None else expr.node


@builtin("evalInEachContext", args=2, lazy=True, pure=False)
def _eval_in_each_context(st: Any, args: tuple[Node, ...]) -> Any:
    contexts = st.run(args[1], st)
    if contexts is UNDEFINED:
        return UNDEFINED
    if type(contexts) is not ClassAdList:
        return ERROR
    expr, results = _in_each(st, args[0]), []
    for context in elements(st, contexts):
        if isinstance(context, AdBase):
            results.append(st.eval_in(context, expr))
        else:  # an element that is not an ad gives its own UNDEFINED or ERROR
            results.append(UNDEFINED if context is UNDEFINED else ERROR)
    return ClassAdList(results)


@builtin("countMatches", args=2, lazy=True, pure=False)
def _count_matches(st: Any, args: tuple[Node, ...]) -> Any:
    contexts = st.run(args[1], st)
    if contexts is UNDEFINED:
        return 0
    if type(contexts) is not ClassAdList:
        return ERROR
    expr, count = _in_each(st, args[0]), 0
    for context in elements(st, contexts):
        if isinstance(context, AdBase) and truth(st.eval_in(context, expr)) is True:
            count += 1
    return count
