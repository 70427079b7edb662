"""Times, durations, rates and run-time distributions as scenarios write them.

A duration is a number of seconds or a string with a unit: ``"90s"``, ``"10m"``,
``"72h"``, ``"2d"``, ``"1w"``. A rate is ``"<number>/<unit>"`` (``"100/h"``). A run time
is a duration, or a table naming a distribution:

* ``{ distribution = "exponential", mean = "1h" }``
* ``{ distribution = "lognormal", median = "1h", sigma = 1.0 }``
* ``{ distribution = "uniform", low = "5m", high = "2h" }``

Samples come from a ``random.Random`` the caller seeds (one named stream per source), so
the same scenario and seed always draw the same run times.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..errors import ScenarioError

__all__ = ["Runtime", "parse_duration", "parse_epoch", "parse_rate", "parse_runtime"]

UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}
Fail = Callable[[str], ScenarioError]


def parse_duration(value: Any, fail: Fail, allow_zero: bool = True) -> float:
    """Seconds from ``value``; ``fail(expected)`` builds the error naming the key."""
    seconds = _seconds(value)
    if seconds is None:
        raise fail(f'expected a duration such as 90, "10m" or "72h", not {value!r}')
    if seconds < 0 or (seconds == 0 and not allow_zero):
        raise fail(f"expected a positive duration, not {value!r}")
    return seconds


def _seconds(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().lower()
    unit = UNITS.get(text[-1])
    number = text[:-1] if unit else text
    try:
        amount = float(number)
    except ValueError:
        return None
    return amount * (unit or 1.0) if math.isfinite(amount) else None


_LAST_EPOCH = 253402300799  # 9999-12-31T23:59:59Z: the outputs write dates


def parse_epoch(value: Any, fail: Fail) -> float:
    """A start time: epoch seconds or an ISO 8601 date-time (UTC unless it says), from 1970
    to the end of the year 9999."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not 0 <= value <= _LAST_EPOCH:
            raise fail(f"expected epoch seconds from 0 to {_LAST_EPOCH}, not {value!r}")
        return float(value)
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise fail(
                f"expected epoch seconds or a date such as 2024-01-01T00:00:00Z, not {value!r}"
            ) from None
    else:
        raise fail(f"expected epoch seconds or a date, not {value!r}")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return parse_epoch(moment.timestamp(), fail)


def parse_rate(value: Any, fail: Fail) -> float:
    """Arrivals per second from ``"100/h"`` (or a number: per second)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    if isinstance(value, str) and "/" in value:
        count, _, unit = value.partition("/")
        per = _seconds(f"1{unit.strip()}") if unit.strip() in UNITS else None
        try:
            amount = float(count)
        except ValueError:
            amount = -1.0
        if per and amount > 0:
            return amount / per
    raise fail(f'expected a rate such as "100/h", not {value!r}')


@dataclass(frozen=True)
class Runtime:
    """A run-time distribution: ``kind`` and its parameters in seconds."""

    kind: str
    a: float
    b: float = 0.0

    def sample(self, rng: random.Random) -> float:
        if self.kind == "fixed":
            return self.a
        if self.kind == "exponential":
            return rng.expovariate(1.0 / self.a)
        if self.kind == "lognormal":
            return rng.lognormvariate(math.log(self.a), self.b)
        return rng.uniform(self.a, self.b)

    def mean(self) -> float:
        """Expected run time (used to size arrival processes in the docs and tests)."""
        if self.kind == "lognormal":
            return self.a * math.exp(self.b**2 / 2)
        if self.kind == "uniform":
            return (self.a + self.b) / 2
        return self.a


_PARAMETERS = {
    "exponential": ("mean",),
    "lognormal": ("median", "sigma"),
    "uniform": ("low", "high"),
}


def parse_runtime(value: Any, fail: Fail) -> Runtime:
    """A fixed duration or a distribution table (see the module docstring)."""
    if not isinstance(value, dict):
        return Runtime("fixed", parse_duration(value, fail, allow_zero=False))
    kind = value.get("distribution")
    if kind not in _PARAMETERS:
        raise fail(f"expected distribution = one of {', '.join(sorted(_PARAMETERS))}, not {kind!r}")
    wanted = _PARAMETERS[kind]
    extra = sorted(set(value) - {"distribution", *wanted})
    missing = [k for k in wanted if k not in value]
    if extra or missing:
        raise fail(f"a {kind} run time takes {', '.join(wanted)}" + _listed(extra, missing))
    if kind == "lognormal":
        sigma = value["sigma"]
        if isinstance(sigma, bool) or not isinstance(sigma, int | float) or sigma < 0:
            raise fail(f"expected sigma, a number of 0 or more, not {sigma!r}")
        return Runtime(kind, parse_duration(value["median"], fail, False), float(sigma))
    numbers = [parse_duration(value[k], fail, allow_zero=False) for k in wanted]
    if kind == "uniform" and numbers[1] < numbers[0]:
        raise fail("a uniform run time needs low <= high")
    return Runtime(kind, *numbers)


def _listed(extra: list[str], missing: list[str]) -> str:
    parts = []
    if missing:
        parts.append(f"missing {', '.join(missing)}")
    if extra:
        parts.append(f"unknown {', '.join(extra)}")
    return f" ({'; '.join(parts)})"
