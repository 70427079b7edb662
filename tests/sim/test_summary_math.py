"""The arithmetic behind summary.json: entitlement by water-filling and Jain's index."""

import itertools
import math

import pytest

from fairpool.sim.summary import jain_index, water_fill


def test_inverse_eup_shares_without_caps():
    # EUPs 500 and 1000: shares 2/3 and 1/3 of 90
    assert water_fill(90, {"a": (1000, 500), "b": (1000, 1000)}) == pytest.approx(
        {"a": 60, "b": 30}
    )


def test_what_one_cannot_use_goes_to_the_others():
    # a wants only 10 of its 50: b and c share the other 90 equally
    out = water_fill(100, {"a": (10, 1), "b": (500, 1), "c": (500, 1), "d": (0, 1)})
    assert out == pytest.approx({"a": 10, "b": 45, "c": 45, "d": 0})


def test_jain_index():
    assert jain_index([1, 1, 1]) == 1
    assert jain_index([1, 0, 0, 0]) == 0.25
    assert jain_index([2, 1]) == pytest.approx(9 / 10)
    assert jain_index([]) is None


def test_water_fill_does_not_depend_on_the_order_of_a_set():
    """1/3 + 1/7 + 1/2.9 rounds differently in different orders, and a set of names is
    iterated in an order PYTHONHASHSEED decides: the shares are the exact sum's."""
    eups = {"a": 3.0, "b": 7.0, "c": 2.9}
    weights = [1 / e for e in eups.values()]
    assert len({sum(p) for p in itertools.permutations(weights)}) > 1
    out = water_fill(100, {n: (1000, e) for n, e in eups.items()})
    total = math.fsum(weights)
    assert out == {n: 100 * (1 / e) / total for n, e in eups.items()}
