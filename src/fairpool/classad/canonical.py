"""The canonical text of a value, used to compare results with HTCondor's (spec §4).

Unlike the library's own printer (unparse.py) it is lossless: reals are the shortest text
that reads back as the same double, every list element and ad attribute is evaluated in
its own scope, and ad attributes are sorted by name.
"""

from __future__ import annotations

import math
from typing import Any

from . import timefmt
from .scope import EvalState, select
from .tokens import RESERVED
from .unparse import quote_name, quote_string
from .values import AbsTime, AdBase, ClassAdList, Error, RelTime, Undefined

__all__ = ["canonical", "canonical_real"]

_MAX_NESTING = 12
# Values printed in one text at most: a value that contains itself several times (an ad
# whose attributes are all MY) has as many as attributes ** nesting; past this, "...".
_MAX_ITEMS = 50_000


def canonical_real(value: float) -> str:
    """Shortest round-trip digits, Python's repr layout; NaN and infinities spelled out."""
    if math.isnan(value):
        return 'real("NaN")'
    if math.isinf(value):
        return 'real("INF")' if value > 0 else 'real("-INF")'
    return repr(value)


def canonical(value: Any, st: EvalState, depth: int = 0) -> str:
    """The canonical text of ``value`` (lists and ads evaluated with ``st``)."""
    return _text(value, st, depth, [_MAX_ITEMS])


def _text(value: Any, st: EvalState, depth: int, left: list[int]) -> str:
    t = type(value)
    if t is bool:
        return "true" if value else "false"
    if t is int:
        return str(value)
    if t is float:
        return canonical_real(value)
    if t is str:
        return quote_string(value)
    if t is Undefined:
        return "undefined"
    if t is Error:
        return "error"
    if t is AbsTime:
        return f'absTime("{timefmt.format_abstime(value)}")'
    if t is RelTime:
        return f"relTime({canonical_real(float(value.secs))})"
    if depth >= _MAX_NESTING or left[0] <= 0:
        return "..."
    if t is ClassAdList:
        left[0] -= len(value)
        return "{" + ", ".join(_text(v, st, depth + 1, left) for v in value) + "}"
    if isinstance(value, AdBase):
        return _ad(value, st, depth, left)
    return repr(value)


def _ad(ad: Any, st: EvalState, depth: int, left: list[int]) -> str:
    names = sorted(ad._names.values(), key=lambda n: (n.lower(), n))
    left[0] -= len(names)
    items = [
        f"{quote_name(name, RESERVED)} = {_text(select(st, ad, name.lower()), st, depth + 1, left)}"
        for name in names
    ]
    return "[" + "; ".join(items) + "]"
