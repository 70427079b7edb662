"""Sums that do not depend on the order of their terms: a cycle that reads all slots and
one that adds running totals (negotiator/ledger.py) to the slots it reads must agree to
the last bit."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from fractions import Fraction

__all__ = ["Exact", "exact_sum"]

_WHOLE = 2**53  # integers up to this are floats exactly
Exact = Fraction | int  # an exact total (an int when whole: without a Fraction's cost)


def exact_sum(values: Iterable[float], base: Exact | None = None) -> float:
    """The sum correctly rounded, plus an exact ``base`` (a running total kept elsewhere)."""
    if base is None:
        return math.fsum(values)
    return math.fsum(itertools.chain(values, _as_floats(base)))


def _as_floats(value: Exact) -> list[float]:
    """Floats whose exact sum is ``value`` (a sum of floats: its binary expansion ends)."""
    if value.denominator == 1 and abs(value.numerator) <= _WHOLE:
        return [float(value.numerator)] if value else []  # the common case, without Fractions
    terms = []
    while value:
        term = float(value)
        terms.append(term)
        value -= Fraction(term)
    return terms
