"""Sums that do not depend on the order of their terms: a cycle that reads all slots and
one that adds running totals (negotiator/ledger.py) to the slots it reads must agree to
the last bit."""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

__all__ = ["exact_sum"]


def exact_sum(values: Iterable[float], base: Fraction | None = None) -> float:
    """The sum correctly rounded, plus an exact ``base`` (a running total kept elsewhere)."""
    if base is None:
        return math.fsum(values)
    return float(sum((Fraction(v) for v in values), base))
