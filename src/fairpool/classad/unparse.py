"""Writing expressions and values back as ClassAd text, the way HTCondor's library does.

This is the form ``string()``, ``unparse()`` and ``strcat()`` produce, so it copies the
library's spacing (``{ 1,2 }``, ``[ a = 1; b = 2 ]``, `` -x`` with a space before a unary
operator) and its real format (``%1.15E``: ``1.000000000000000E-01``). The canonical form
used for comparing results (canonical.py) is different and lossless.
"""

from __future__ import annotations

import math
from typing import Any

from . import timefmt
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
from .tokens import RESERVED
from .values import AbsTime, AdBase, ClassAdList, Error, RelTime, Undefined

__all__ = [
    "quote_name",
    "quote_string",
    "quote_string_old",
    "real_text",
    "unparse",
    "unparse_ad",
    "unparse_laid_out",
    "unparse_value",
]

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}
_IDENT_START = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
# The library's writer also quotes ``parent`` (the canonical form of canonical.py does not).
_WRITER_RESERVED = RESERVED | {"parent"}
_IDENT_CHARS = _IDENT_START | set("0123456789")


def quote_string(raw: str) -> str:
    """A byte string as a ClassAd string literal (non-printable bytes as octal escapes)."""
    out = ['"']
    for ch in raw:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.append(f"\\{ord(ch) & 0xFF:03o}")
    out.append('"')
    return "".join(out)


def quote_name(name: str, reserved: frozenset[str] = _WRITER_RESERVED) -> str:
    """An attribute name, single-quoted when it is not a plain identifier or is reserved."""
    plain = name and name[0] in _IDENT_START and all(c in _IDENT_CHARS for c in name)
    if plain and name.lower() not in reserved:
        return name
    escaped = name.replace("\\", "\\\\").replace("'", "\\'")
    return f"'{escaped}'"


def real_text(value: float) -> str:
    """A real as the library writes it: ``%1.15E``, zero as ``0.0``, ``real("INF")``."""
    if math.isnan(value):
        return 'real("NaN")'
    if math.isinf(value):
        return 'real("INF")' if value > 0 else 'real("-INF")'
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    return f"{value:.15E}"


def unparse_value(value: Any) -> str:
    """A value as ClassAd text."""
    t = type(value)
    if t is bool:
        return "true" if value else "false"
    if t is int:
        return str(value)
    if t is float:
        return real_text(value)
    if t is str:
        return quote_string(value)
    if t is AbsTime:
        return f'absTime("{timefmt.format_abstime(value)}")'
    if t is RelTime:
        return f'relTime("{timefmt.format_reltime(value.secs)}")'
    if t is Undefined:
        return "undefined"
    if t is Error:
        return "error"
    if t is ClassAdList:
        return _list_text(value)
    if isinstance(value, AdBase):
        return unparse_ad(value)
    return str(value)


def _list_text(value: ClassAdList) -> str:
    nodes = value.nodes
    items = [unparse(n) for n in nodes] if nodes is not None else [unparse_value(v) for v in value]
    return "{ " + ",".join(items) + " }"


def unparse_ad(ad: Any) -> str:
    """``[ name = expr; ... ]`` in the ad's own attribute order."""
    items = [f"{quote_name(ad._names[k])} = {unparse(e.node)}" for k, e in ad._exprs.items()]
    return "[ " + "; ".join(items) + " ]"


def unparse(node: Node, old: bool = False) -> str:
    """An expression as ClassAd text (``old``: strings in old-syntax quoting)."""
    return _text(node, old, None)


def unparse_laid_out(node: Node) -> str:
    """An expression as the ``unparse()`` function prints it: lists and nested ads over
    lines, each opening on a new line, indented 3 (lists) or 4 (ads) past the line they
    are written on, their items 3 or 4 further (classad2 25.14.1:
    ``unparse(l)`` of ``l = {a, 2}`` is ``"\n   {\n      a,\n      2\n   }"``)."""
    return _text(node, False, 0)


def _laid_out(opening: str, closing: str, at: int, items: list[str], separator: str) -> str:
    body = "\n" + separator.join(items) if items else ""
    return f"\n{' ' * at}{opening}{body}\n{' ' * at}{closing}"


def _text(node: Node, old: bool, indent: int | None) -> str:
    """``indent``: the column of the line being written when laid out, None when flat."""
    kind = type(node)
    if indent is not None and kind is ListLit:
        at = indent + 3
        items = [" " * (at + 3) + _text(item, old, at + 3) for item in node.items]
        return _laid_out("{", "}", at, items, ",\n")
    if indent is not None and kind is AdLit:
        at = indent + 4
        items = [
            f"{' ' * (at + 4)}{quote_name(name)} = {_text(expr, old, at + 4)}"
            for name, expr in node.attrs
        ]
        return _laid_out("[", "]", at, items, "; \n")
    if kind is Literal:
        if node.text is not None:
            return node.text
        if old and type(node.value) is str:
            return quote_string_old(node.value)
        return unparse_value(node.value)

    if kind is AttrRef:
        if node.scope is not None:  # after a dot only the keywords need quotes
            return f"{_text(node.scope, old, indent)}.{quote_name(node.name, RESERVED)}"
        name = quote_name(node.name)
        return f".{name}" if node.absolute else name
    if kind is Binary:
        return f"{_text(node.left, old, indent)} {node.op} {_text(node.right, old, indent)}"
    if kind is Unary:
        return f" {node.op}{_text(node.operand, old, indent)}"
    if kind is Paren:
        return f"({_text(node.inner, old, indent)})"
    if kind is Cond:
        then, other = _text(node.then, old, indent), _text(node.other, old, indent)
        return f"{_text(node.cond, old, indent)} ? {then} : {other}"
    if kind is Elvis:
        return f"{_text(node.left, old, indent)} ?: {_text(node.right, old, indent)}"
    if kind is Call:
        return f"{node.name}({','.join(_text(a, old, indent) for a in node.args)})"
    if kind is Subscript:
        return f"{_text(node.base, old, indent)}[{_text(node.index, old, indent)}]"
    if kind is ListLit:
        return "{ " + ",".join(_text(i, old, indent) for i in node.items) + " }"
    if kind is AdLit:
        items = [f"{quote_name(name)} = {_text(expr, old, indent)}" for name, expr in node.attrs]
        return "[ " + "; ".join(items) + " ]"
    if kind is MatchSide:
        return node.side.upper()
    raise TypeError(f"not an expression node: {node!r}")


def quote_string_old(raw: str) -> str:
    """A string in old syntax: only the double quote is escaped; bytes are kept as they are."""
    return '"' + raw.replace('"', '\\"') + '"'
