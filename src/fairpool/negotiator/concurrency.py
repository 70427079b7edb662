"""Concurrency limits (seed 002 "Concurrency Limits"; spec negotiator.md §6).

A job names the limits it consumes, ``concurrency_limits = sw, large.db:2, lic:0.5``:
names of letters, digits and underscores, not starting with a digit, with at most one
period, without case; an amount after a colon (fractions allowed, 1 when absent or not a
positive number). A limit's capacity is ``<NAME>_LIMIT``, else, for ``SET.member``,
``CONCURRENCY_LIMIT_DEFAULT_<SET>``, else ``CONCURRENCY_LIMIT_DEFAULT``, else (the seed's
rule, spec/README.md) no limit at all. What is in use is counted from the running slots
this negotiator sees, plus this cycle's matches. A job starts only if every one of its
limits has room for it; running jobs are never killed to get back under a limit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..classad import ClassAd
from ..classad.match import evaluate
from ..classad.scope import NOT_CONST
from .sums import Exact, exact_sum

__all__ = [
    "LimitConfig",
    "LimitCounter",
    "held_limits",
    "job_limits",
    "parse_limits",
    "valid_limit_name",
]

_PART = r"[A-Za-z_][A-Za-z0-9_]*"
_NAME = re.compile(rf"{_PART}(?:\.{_PART})?")
_UNLIMITED = float("inf")


def valid_limit_name(name: str) -> bool:
    return _NAME.fullmatch(name) is not None


def parse_limits(text: str) -> list[tuple[str, float]]:
    """``(name, amount)`` for each well-formed limit in a job's list (lower-cased names);
    malformed names are skipped, as the negotiator ignores them."""
    limits = []
    for token in re.split(r"[,\s]+", text.strip()):
        if not token:
            continue
        name, _, amount = token.partition(":")
        if not valid_limit_name(name):
            continue
        limits.append((name.lower(), _amount(amount)))
    return limits


def _amount(text: str) -> float:
    match = re.match(r"\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?", text, re.IGNORECASE)
    if not match:
        return 1.0
    value = float(match.group(0))
    return value if value > 0 else 1.0


@dataclass(frozen=True)
class LimitConfig:
    """Capacities from the configuration (names lower-cased)."""

    explicit: Mapping[str, float] = field(default_factory=dict)  # <NAME>_LIMIT
    default: float | None = None  # CONCURRENCY_LIMIT_DEFAULT
    set_defaults: Mapping[str, float] = field(default_factory=dict)  # ..._DEFAULT_<SET>

    def capacity(self, name: str) -> float:
        if name in self.explicit:
            return self.explicit[name]
        if "." in name:
            group = name.rsplit(".", 1)[0]
            if group in self.set_defaults:
                return self.set_defaults[group]
        return _UNLIMITED if self.default is None else self.default

    @property
    def active(self) -> bool:
        return bool(self.explicit or self.set_defaults or self.default is not None)


def job_limits(job: ClassAd, slot: ClassAd | None, now: float) -> list[tuple[str, float]] | None:
    """The limits a job takes on ``slot``; None when they depend on a slot not given."""
    expr = job._exprs.get("concurrencylimitsexpr")  # read at every turn, match and start
    if expr is None:
        expr = job._exprs.get("concurrencylimits")
        if expr is None:
            return []
    if expr.const is not NOT_CONST:
        return parse_limits(expr.const) if isinstance(expr.const, str) else []
    if slot is None:
        return None
    value = evaluate(expr, job, slot, now=now)
    return parse_limits(value) if isinstance(value, str) else []


class LimitCounter:
    """How much of each limit is in use, as the cycle goes on."""

    def __init__(self, config: LimitConfig, in_use: Mapping[str, float] | None = None) -> None:
        self.config = config
        self.in_use: dict[str, float] = dict(in_use or {})

    @classmethod
    def from_slots(
        cls,
        config: LimitConfig,
        slots: Iterable[ClassAd],
        base: Mapping[str, Exact] | None = None,
    ) -> LimitCounter:
        """Count the limits of the jobs running on the slots (and of preempting ones),
        plus ``base`` (limit -> exact amount held on slots not given), summed exactly."""
        amounts: dict[str, list[float]] = {name: [] for name in base or {}}
        for slot in slots:
            limits = held_limits(slot)
            if limits and slot.eval("State") in ("Claimed", "Preempting"):
                for name, amount in limits:
                    amounts.setdefault(name, []).append(amount)
        base = base or {}
        return cls(config, {n: exact_sum(a, base.get(n)) for n, a in amounts.items()})

    def blocked(self, limits: Iterable[tuple[str, float]]) -> list[str]:
        """The limits that have no room for these amounts (all must fit)."""
        return [
            name
            for name, amount in limits
            if self.in_use.get(name, 0.0) + amount > self.config.capacity(name)
        ]

    def add(self, limits: Iterable[tuple[str, float]]) -> None:
        for name, amount in limits:
            self.in_use[name] = self.in_use.get(name, 0.0) + amount


def held_limits(slot: ClassAd) -> list[tuple[str, float]]:
    """The limits a slot's ad says its job (and a preempting one) hold."""
    found: list[tuple[str, float]] = []
    for attribute in ("ConcurrencyLimits", "PreemptingConcurrencyLimits"):
        value = slot.eval(attribute) if attribute in slot else None
        if isinstance(value, str):
            found.extend(parse_limits(value))
    return found


def rejection(blocked: list[str]) -> str:
    """The reason HTCondor gives: ``concurrency limit a, b reached``."""
    return f"concurrency limit {', '.join(blocked)} reached"
