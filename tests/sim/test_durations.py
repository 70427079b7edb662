"""Durations, rates and run-time distributions as scenarios write them."""

import random
import statistics

import pytest

from fairpool.errors import ScenarioError
from fairpool.sim.durations import parse_duration, parse_epoch, parse_rate, parse_runtime


def fail(message):
    return ScenarioError(message, "s.toml", key="k")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        (90, 90.0),
        ("90s", 90.0),
        ("10m", 600.0),
        ("72h", 259200.0),
        ("2d", 172800.0),
        ("1w", 604800.0),
        ("1.5h", 5400.0),
    ],
)
def test_durations(text, seconds):
    assert parse_duration(text, fail) == seconds


@pytest.mark.parametrize("text", ["", "h", "3x", "-1h", True, "nan", [1]])
def test_bad_durations(text):
    with pytest.raises(ScenarioError):
        parse_duration(text, fail)


def test_rates_and_epochs():
    assert parse_rate("100/h", fail) == pytest.approx(100 / 3600)
    assert parse_rate(0.5, fail) == 0.5
    assert parse_epoch("2024-01-01T00:00:00Z", fail) == 1704067200
    assert parse_epoch("2024-01-01T01:00:00+01:00", fail) == 1704067200
    for bad in ("100", "0/h", "5/fortnight"):
        with pytest.raises(ScenarioError):
            parse_rate(bad, fail)


def test_distributions_have_their_means():
    rng = random.Random("test:runtime")
    cases = [
        ({"distribution": "exponential", "mean": "1h"}, 3600),
        ({"distribution": "uniform", "low": "10m", "high": "30m"}, 1200),
        ({"distribution": "lognormal", "median": "1h", "sigma": 0.5}, 3600 * 2.718281828**0.125),
    ]
    for table, mean in cases:
        runtime = parse_runtime(table, fail)
        assert runtime.mean() == pytest.approx(mean, rel=1e-6)
        draws = [runtime.sample(rng) for _ in range(20000)]
        assert statistics.fmean(draws) == pytest.approx(mean, rel=0.05)
        assert min(draws) > 0
    assert parse_runtime("5m", fail).sample(rng) == 300
