"""Conversions between types: int(), real(), string(), bool(), floor/ceiling/round, pow,
quantize, random(); and the string/number helpers other builtins use."""

from __future__ import annotations

import math
import random as _random
import re
from typing import Any

from .. import timefmt
from ..scope import elements
from ..unparse import real_text, unparse_value
from ..values import (
    ERROR,
    UNDEFINED,
    AbsTime,
    AdBase,
    ClassAdList,
    Error,
    RelTime,
    trunc32,
    trunc64,
    wrap,
)
from .registry import builtin

__all__ = ["number_prefix", "to_string"]

_STRTOD = re.compile(
    r"\s*[+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?"
    r"|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)",
    re.IGNORECASE,
)
# A private generator: expressions' random() must not touch Python's global one.
_RNG = _random.Random(20250614)


def number_prefix(text: str) -> float | None:
    """The number at the start of text, as C's strtod reads it (None if there is none)."""
    m = _STRTOD.match(text)
    if m is None:
        return None
    literal = m.group(0).strip()
    body = literal.lstrip("+-")
    if body[:2].lower() == "0x":
        value = float.fromhex(literal if "p" in literal.lower() else literal + "p0")
        return value
    return float(literal)


def to_string(value: Any) -> str | None:
    """A value as string() converts it; None for UNDEFINED and ERROR."""
    t = type(value)
    if t is str:
        return value
    if t is bool:
        return "true" if value else "false"
    if t is int:
        return str(value)
    if t is float:
        return real_text(value)
    if t is AbsTime:
        return timefmt.format_abstime(value)
    if t is RelTime:
        return timefmt.format_reltime(value.secs)
    if t is ClassAdList or isinstance(value, AdBase):
        return unparse_value(value)
    return None


def _to_int(value: Any) -> Any:
    t = type(value)
    if t is int:
        return value
    if t is bool:
        return int(value)
    if t is float:
        return trunc64(value)
    if t is str:
        number = number_prefix(value)
        return ERROR if number is None else trunc64(number)
    if t is AbsTime:
        return value.secs
    if t is RelTime:
        return trunc32(value.secs)  # relative times convert through a C int
    if value is UNDEFINED:
        return UNDEFINED
    return ERROR


def _to_real(value: Any) -> Any:
    t = type(value)
    if t is float:
        return value
    if t is int or t is bool:
        return float(value)
    if t is str:
        number = number_prefix(value)
        return ERROR if number is None else number
    if t is AbsTime:
        return float(value.secs)
    if t is RelTime:
        return float(trunc32(value.secs))
    if value is UNDEFINED:
        return UNDEFINED
    return ERROR


@builtin("int")
def _int(st: Any, args: list[Any]) -> Any:
    return _to_int(args[0])


@builtin("real")
def _real(st: Any, args: list[Any]) -> Any:
    return _to_real(args[0])


@builtin("string")
def _string(st: Any, args: list[Any]) -> Any:
    value = args[0]
    if value is UNDEFINED:
        return UNDEFINED
    text = to_string(value)
    return ERROR if text is None else text


@builtin("bool")
def _bool(st: Any, args: list[Any]) -> Any:
    value = args[0]
    t = type(value)
    if t is bool:
        return value
    if t is int or t is float:
        return value != 0
    if t is RelTime:
        return value.secs != 0
    if t is str:
        lowered = value.lower()
        if lowered == "true":
            return True
        if lowered == "false":
            return False
        return UNDEFINED
    if value is UNDEFINED:
        return UNDEFINED
    return ERROR


def _rounding(value: Any, how: Any) -> Any:
    t = type(value)
    if t is int:
        return value
    if t is bool:
        return int(value)
    real = _to_real(value)
    if type(real) is not float:
        return ERROR
    if real != real or math.isinf(real):
        return trunc64(real)
    return trunc64(float(how(real)))


@builtin("floor")
def _floor(st: Any, args: list[Any]) -> Any:
    return _rounding(args[0], math.floor)


@builtin("ceiling", "ceil")
def _ceiling(st: Any, args: list[Any]) -> Any:
    return _rounding(args[0], math.ceil)


@builtin("round")
def _round(st: Any, args: list[Any]) -> Any:
    return _rounding(args[0], round)


@builtin("pow", args=2)
def _pow(st: Any, args: list[Any]) -> Any:
    base, exponent = args
    if type(base) is Error or type(exponent) is Error:
        return ERROR
    if type(base) is int and type(exponent) is int and exponent >= 0:
        # HTCondor computes the double power and adds 0.5 before truncating, so a
        # negative odd power comes out one too high: pow(-2, 3) is -7.
        return trunc64(_real_power(float(base), float(exponent)) + 0.5)
    b, e = _to_real(base), _to_real(exponent)
    if type(b) is not float or type(e) is not float:
        return ERROR
    return _real_power(b, e)


def _real_power(b: float, e: float) -> float:
    try:
        return math.pow(b, e)
    except ZeroDivisionError:
        return math.inf
    except (OverflowError, ValueError):
        if b < 0 and not float(e).is_integer():
            return math.nan
        return math.inf if abs(b) > 1 or b == 0 else 0.0


def _quantity(value: Any) -> tuple[int | float, bool] | None:
    """quantize()'s view of a value: (number, is an integer); booleans, times and
    numeric strings count as reals."""
    t = type(value)
    if t is int:
        return value, True
    if t is float or t is bool:
        return float(value), False
    if t is AbsTime or t is RelTime:
        return float(value.secs), False
    if t is str:
        number = number_prefix(value)
        return None if number is None else (number, False)
    return None


@builtin("quantize", args=2)
def _quantize(st: Any, args: list[Any]) -> Any:
    """The smallest multiple of b not below a; with a list, the first element not below
    a, else a multiple of the last element. A zero quantum (or an empty list) gives a."""
    a, b = args
    amount = _quantity(a)
    if amount is None:
        return ERROR
    if type(b) is ClassAdList:
        if len(b) == 0:
            return a
        for item in elements(st, b):
            bound = _quantity(item)
            if bound is None:
                return ERROR
            if bound[0] >= amount[0]:
                return item
        b = item
    step = _quantity(b)
    if step is None:
        return ERROR
    if step[0] == 0:
        return a
    if amount[1] and step[1]:
        x, y = amount[0], step[0]
        total = wrap(x + y - 1)
        quotient = abs(total) // abs(y) * (1 if (total < 0) == (y < 0) else -1)
        return wrap(quotient * y)
    return _ceiling(amount[0] / step[0]) * step[0]


def _ceiling(value: float) -> float:
    """C's ceil(): keeps the sign of zero, NaN and the infinities."""
    if not math.isfinite(value):
        return value
    return math.copysign(float(math.ceil(value)), value)


@builtin("random", args=(0, 1), pure=False)
def _rand(st: Any, args: list[Any]) -> Any:
    if not args:
        return _RNG.random()
    limit = args[0]
    if type(limit) is int:
        return _RNG.randrange(limit) if limit > 0 else 0
    if type(limit) is float:
        return _RNG.random() * limit
    return ERROR
