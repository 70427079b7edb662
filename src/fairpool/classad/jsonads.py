"""ClassAds as JSON values, for the live pool's API: HTCondor's JSON ad form (formats.py)
as Python objects, decoded and encoded fast.

Ads cross the API by the thousand (a collector query returns every slot ad), and most of
their expressions are the same few texts over and over, so an expression's text is
parsed once (``Expr``'s cache) and a parsed expression is written once; plain values
become the shared literal expressions ``ClassAd`` uses anyway.

Values: JSON numbers, booleans and strings are ClassAd literals, ``null`` is UNDEFINED,
arrays are lists, objects are nested ads, and any other expression is a string
``"/Expr(<expression>)/"``, as HTCondor writes it.
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import ClassAdSyntaxError
from .ad import ClassAd, Expr, _literal_expr
from .nodes import AdLit, ListLit, Literal, Node
from .unparse import unparse
from .values import Undefined, to_text

__all__ = ["JsonAdError", "ad_from_json", "ad_to_json", "expr_from_json", "expr_to_json"]

_PREFIX, _SUFFIX = "/Expr(", ")/"
_INT64 = (-(2**63), 2**63)  # the parser reads a literal outside it as 0, as HTCondor's does


class JsonAdError(ClassAdSyntaxError):
    """A JSON value that is not a ClassAd value, named by where it is: one line."""

    def __str__(self) -> str:
        return self.message


_UNDEFINED = Expr("undefined")
_written: dict[int, tuple[Node, Any]] = {}  # id(node) -> (node, its JSON value)
_MAX_WRITTEN = 100_000


def ad_from_json(obj: object, where: str = "the ad") -> ClassAd:
    """The ClassAd of a JSON object; ``ClassAdSyntaxError`` naming ``where`` and the
    attribute when it is not one.

    Ads come in thousands of one shape (a pool's slot ads have the same names in the same
    order), so each shape's lower-case keys and spellings are worked out once, and each
    distinct value becomes an expression once (``_value``)."""
    if not isinstance(obj, dict):
        raise JsonAdError(f"{where}: expected a JSON object, not {type(obj).__name__}")
    keys = tuple(obj)
    shape = _shapes.get(keys)
    if shape is None:
        shape = _shape(keys)
    try:
        exprs = dict(zip(shape[0], map(_value, obj.values()), strict=True))
    except JsonAdError:
        for name, value in obj.items():  # again, for the attribute's name in the error
            expr_from_json(value, f"{where}, attribute {name}")
        raise
    return ClassAd._from_tables(exprs, dict(shape[1]), shared=False)


_shapes: dict[tuple[str, ...], tuple[tuple[str, ...], dict[str, str]]] = {}
_strings: dict[str, Expr] = {}
_integers: dict[int, Expr] = {}
_reals: dict[float, Expr] = {}
_TRUE, _FALSE = _literal_expr(bool, True), _literal_expr(bool, False)
_MAX_CACHED = 100_000


def _shape(keys: tuple[str, ...]) -> tuple[tuple[str, ...], dict[str, str]]:
    """The lower-case keys of an ad's names, and each one's first spelling."""
    lowers = tuple(name.lower() for name in keys)
    names: dict[str, str] = {}
    for key, name in zip(lowers, keys, strict=True):
        names.setdefault(key, name)
    if len(_shapes) >= 1000:
        _shapes.clear()
    _shapes[keys] = (lowers, names)
    return lowers, names


def _value(value: Any) -> Expr:
    """``expr_from_json`` of an attribute's value, remembered per type (``1 == True ==
    1.0``), as most of an ad's values are the same few."""
    kind = type(value)
    if kind is str:
        expr = _strings.get(value)
    elif kind is int:
        expr = _integers.get(value)
    elif kind is bool:
        return _TRUE if value else _FALSE
    elif kind is float:
        if value != value or value == 0.0:
            return expr_from_json(value)  # NaN and the two zeros: a dict cannot tell them
        expr = _reals.get(value)
    else:
        return expr_from_json(value)
    return _remember(kind, value) if expr is None else expr


def _remember(kind: type, value: Any) -> Expr:
    expr = expr_from_json(value)
    cache: dict = _strings if kind is str else _integers if kind is int else _reals
    if len(cache) >= _MAX_CACHED:
        cache.clear()
    cache[value] = expr
    return expr


def expr_from_json(value: object, where: str = "the value") -> Expr:
    """The expression a JSON value stands for."""
    kind = type(value)
    if kind is str:
        if value.startswith(_PREFIX) and value.endswith(_SUFFIX):  # type: ignore[union-attr]
            try:
                return Expr(value[len(_PREFIX) : -len(_SUFFIX)])  # type: ignore[index]
            except ClassAdSyntaxError as err:
                raise JsonAdError(f"{where}: {err.message}") from None
        return _literal_expr(str, value)
    if kind is int:
        return _literal_expr(int, value if _INT64[0] <= value < _INT64[1] else 0)  # type: ignore[operator]
    if kind is bool or kind is float:
        return _literal_expr(kind, value)
    if value is None:
        return _UNDEFINED
    if kind is list or kind is dict:
        return Expr._from_node(_node(value, where))
    raise JsonAdError(f"{where}: a {kind.__name__} is not a ClassAd value")


def _node(value: Any, where: str) -> Node:
    if isinstance(value, list):
        return ListLit(tuple(_node(v, where) for v in value))
    if isinstance(value, dict):
        return AdLit(tuple((str(k), _node(v, where)) for k, v in value.items()))
    return expr_from_json(value, where).node


def ad_to_json(ad: ClassAd, projection: set[str] | None = None) -> dict[str, Any]:
    """The JSON object of an ad (only the lower-case names in ``projection``, if given)."""
    out = {}
    names = ad._names
    for key, expr in ad._exprs.items():
        if projection is None or key in projection:
            out[names[key]] = expr_to_json(expr)
    return out


def expr_to_json(expr: Expr) -> Any:
    """The JSON value of an expression."""
    node = expr.node
    if type(node) is Literal and node.text is None:
        value = node.value
        kind = type(value)
        if kind is bool or kind is int:
            return value
        if kind is str:
            text = to_text(value)
            if not (text.startswith(_PREFIX) and text.endswith(_SUFFIX)):
                return text
        elif kind is float and math.isfinite(value):
            return value
        elif kind is Undefined:
            return None
    found = _written.get(id(node))
    if found is not None and found[0] is node:
        return found[1]
    value = _write(node)
    if len(_written) >= _MAX_WRITTEN:
        _written.clear()
    _written[id(node)] = (node, value)
    return value


def _write(node: Node) -> Any:
    if type(node) is Literal and node.text is None:
        value = node.value
        kind = type(value)
        if kind is str:
            text = to_text(value)
            if not (text.startswith(_PREFIX) and text.endswith(_SUFFIX)):
                return text
            # a string that reads as an expression's marker travels as an expression
        elif kind in (bool, int) or (kind is float and math.isfinite(value)):
            return value
        elif kind is Undefined:
            return None
    if type(node) is ListLit:
        return [_write(item) for item in node.items]
    if type(node) is AdLit:
        return {attr: _write(value) for attr, value in node.attrs}
    return f"{_PREFIX}{to_text(unparse(node))}{_SUFFIX}"
