"""What each ClassAd operator does to values, shared by every evaluator.

The rules are HTCondor's library's (spec/classad.md §7): ERROR wins over UNDEFINED in the
strict operators; booleans act as integers in arithmetic and ordinary comparison but not in
``=?=``; ``==`` and ``<`` compare strings without case; integers wrap at 64 bits; a real
result of +infinity is ERROR (the library checks ``== HUGE_VAL`` only); integer division by
zero is ERROR; lists and ads take part in no operator.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .values import (
    ERROR,
    UNDEFINED,
    AbsTime,
    AdBase,
    ClassAdList,
    Error,
    RelTime,
    ascii_lower,
    trunc32,
    wrap,
)

__all__ = [
    "BINARY",
    "UNARY",
    "compare",
    "identical",
    "logical_and",
    "logical_or",
    "truth",
]

_INT_MIN = -(1 << 63)
_MASK64 = (1 << 64) - 1
_INF = math.inf


def _strict(a: Any, b: Any) -> Any:
    """ERROR if either operand is ERROR, else UNDEFINED if either is, else None."""
    if type(a) is Error or type(b) is Error:
        return ERROR
    if a is UNDEFINED or b is UNDEFINED:
        return UNDEFINED
    return None


def _numeric(value: Any) -> int | float | None:
    """The number an operand stands for in arithmetic (booleans are 0/1), else None."""
    t = type(value)
    if t is int or t is float:
        return value
    if t is bool:
        return int(value)
    return None


def _real_result(value: float) -> Any:
    return ERROR if value == _INF else value


def _int_div(a: int, b: int) -> Any:
    if b == 0:
        return ERROR
    if a == _INT_MIN and b == -1:
        return -(_INT_MIN + 1)
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _int_mod(a: int, b: int) -> Any:
    if b == 0:
        return ERROR
    if b == -1:
        return 0
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _real_div(a: float, b: float) -> Any:
    if b == 0:
        if a == 0 or a != a:
            return math.nan
        return _real_result(math.copysign(_INF, a) * math.copysign(1.0, b))
    return _real_result(a / b)


def _arith(op: str, a: Any, b: Any) -> Any:
    bad = _strict(a, b)
    if bad is not None:
        return bad
    x, y = _numeric(a), _numeric(b)
    if x is None or y is None:
        return _time_arith(op, a, b)
    if type(x) is int and type(y) is int:
        if op == "+":
            return wrap(x + y)
        if op == "-":
            return wrap(x - y)
        if op == "*":
            return wrap(x * y)
        if op == "/":
            return _int_div(x, y)
        return _int_mod(x, y)
    x, y = float(x), float(y)
    if op == "+":
        return _real_result(x + y)
    if op == "-":
        return _real_result(x - y)
    if op == "*":
        return _real_result(x * y)
    if op == "/":
        return _real_div(x, y)
    return ERROR


def _time_arith(op: str, a: Any, b: Any) -> Any:
    """Arithmetic on absolute and relative times; anything else is ERROR."""
    ta, tb = type(a), type(b)
    if ta is AbsTime:
        if tb is RelTime and op in "+-":
            delta = trunc32(b.secs)  # the library adds the seconds as a C int
            return AbsTime(a.secs + delta if op == "+" else a.secs - delta, a.offset)
        if tb is AbsTime and op == "-":
            return RelTime(float(a.secs - b.secs))
        return ERROR
    if ta is RelTime:
        if tb is RelTime and op in "+-":
            return RelTime(a.secs + b.secs if op == "+" else a.secs - b.secs)
        if tb is AbsTime and op == "+":
            return AbsTime(b.secs + trunc32(a.secs), b.offset)
        y = _numeric(b)
        if y is not None and op in "*/":
            if op == "*":
                return RelTime(a.secs * y)
            return RelTime(_rel_div(a.secs, float(y)))
        return ERROR
    if tb is RelTime and op == "*":
        x = _numeric(a)
        if x is not None:
            return RelTime(x * b.secs)
    return ERROR


def _rel_div(a: float, b: float) -> float:
    if b == 0:
        return math.nan if a == 0 or a != a else math.copysign(_INF, a)
    return a / b


def _bitwise(op: str, a: Any, b: Any) -> Any:
    bad = _strict(a, b)
    if bad is not None:
        return bad
    if type(a) is not int or type(b) is not int:
        return ERROR
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    count = b & 63
    if op == "<<":
        return wrap(a << count)
    if op == ">>":
        return a >> count
    if count == 0 and a < 0:
        return 0  # classad2 on x86-64: a negative number shifted by 0 (or 64, 128, ...) is 0
    return wrap((a & _MASK64) >> count)


def compare(op: str, a: Any, b: Any) -> Any:
    """``< <= > >= == !=``: numbers by value, strings without case, times by instant."""
    bad = _strict(a, b)
    if bad is not None:
        return bad
    ta, tb = type(a), type(b)
    if ta is str or tb is str:
        if ta is not tb:
            return ERROR
        return _ordered(op, ascii_lower(a), ascii_lower(b))
    x, y = _numeric(a), _numeric(b)
    if x is not None and y is not None:
        if type(x) is not type(y):
            x, y = float(x), float(y)
        return _ordered(op, x, y)
    if ta is AbsTime and tb is AbsTime:
        return _ordered(op, a.secs, b.secs)
    if ta is RelTime and tb is RelTime:
        return _ordered(op, a.secs, b.secs)
    return ERROR


def _ordered(op: str, x: Any, y: Any) -> bool:
    if op == "==":
        return x == y
    if op == "!=":
        return x != y
    if op == "<":
        return x < y
    if op == "<=":
        return x <= y
    if op == ">":
        return x > y
    return x >= y


def identical(a: Any, b: Any) -> Any:
    """``=?=``/``is``: same type and same value, strings with case; two lists or two ads
    cannot be compared (ERROR)."""
    ta, tb = type(a), type(b)
    if (ta is ClassAdList and tb is ClassAdList) or (
        isinstance(a, AdBase) and isinstance(b, AdBase)
    ):
        return ERROR
    if ta is not tb:
        return False
    if a is UNDEFINED or ta is Error:
        return True
    return a == b


def _not_identical(a: Any, b: Any) -> Any:
    result = identical(a, b)
    return result if type(result) is Error else not result


def truth(value: Any) -> Any:
    """A value as a condition: True/False, UNDEFINED, or ERROR (strings, lists, ads, times)."""
    t = type(value)
    if t is bool:
        return value
    if t is int or t is float:
        return value != 0
    if value is UNDEFINED:
        return UNDEFINED
    return ERROR


def logical_and(a: Any, right: Callable[[], Any]) -> Any:
    """``&&``: left to right, non-strict; ERROR on the left always wins."""
    x = truth(a)
    if x is False or type(x) is Error:
        return x
    y = truth(right())
    if x is True or type(y) is Error or y is False:
        return y
    return UNDEFINED


def logical_or(a: Any, right: Callable[[], Any]) -> Any:
    """``||``: left to right, non-strict; ERROR on the left always wins."""
    x = truth(a)
    if x is True or type(x) is Error:
        return x
    y = truth(right())
    if x is False or type(y) is Error or y is True:
        return y
    return UNDEFINED


def _negate(a: Any) -> Any:
    t = type(a)
    if t is int:
        return wrap(-a)
    if t is float:
        return -a
    if t is RelTime:
        return RelTime(-a.secs)
    if a is UNDEFINED:
        return UNDEFINED
    return ERROR


def _plus(a: Any) -> Any:
    t = type(a)
    if t is int or t is float or t is RelTime or a is UNDEFINED:
        return a
    return ERROR


def _not_value(a: Any) -> Any:
    x = truth(a)
    if x is True:
        return False
    if x is False:
        return True
    return x


def _complement(a: Any) -> Any:
    if type(a) is int:
        return ~a
    if a is UNDEFINED:
        return UNDEFINED
    return ERROR


def _binary(op: str, fn: Callable[[str, Any, Any], Any]) -> Callable[[Any, Any], Any]:
    return lambda a, b: fn(op, a, b)


UNARY: dict[str, Callable[[Any], Any]] = {
    "-": _negate,
    "+": _plus,
    "!": _not_value,
    "~": _complement,
}

BINARY: dict[str, Callable[[Any, Any], Any]] = {
    **{op: _binary(op, _arith) for op in ("+", "-", "*", "/", "%")},
    **{op: _binary(op, _bitwise) for op in ("&", "|", "^", "<<", ">>", ">>>")},
    **{op: _binary(op, compare) for op in ("<", "<=", ">", ">=", "==", "!=")},
    "is": identical,
    "isnt": _not_identical,
}
