"""Negotiation cycles over real pool data, with the accountant kept in a state directory:
what ``fairpool negotiate`` runs.

Each cycle is negotiation.py's step (age, negotiate, record usage), after which the
accountant is saved in one transaction.
Between cycles the pool moves on: matched jobs start on their slots, preempted jobs go
back to idle. A run killed at any moment leaves the state of its last completed cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..accounting.accountant import AccountantPolicy
from ..classad import ClassAd
from ..negotiator import CycleResult, NegotiatorParams
from ..store.accountant_store import AccountantStore
from .negotiation import group_assigner, negotiate
from .pool import Pool

__all__ = ["DryRun", "pool_time"]


def pool_time(slots: list[ClassAd]) -> float | None:
    """When the ads were taken: the latest ``LastHeardFrom`` (or ``MyCurrentTime``)."""
    times = [
        value
        for ad in slots
        for value in (ad.eval("LastHeardFrom"), ad.eval("MyCurrentTime"))
        if type(value) in (int, float)
    ]
    return float(max(times)) if times else None


@dataclass
class DryRun:
    """A pool, a negotiator configuration and the accountant's store."""

    pool: Pool
    params: NegotiatorParams
    policy: AccountantPolicy
    store: AccountantStore

    def group_of(self) -> Callable[[str], str | None]:
        """The group each customer is charged to (None without groups)."""
        return group_assigner(self.params)

    def cycles(
        self, count: int, start: float, interval: float, resume: bool = False
    ) -> Iterator[CycleResult]:
        """Run ``count`` cycles from ``start``, ``interval`` seconds apart. ``resume``: a
        state that has already reached ``start`` goes on from its last cycle (one
        interval later) instead of going back in time."""
        accountant = self.store.load(self.policy, self.group_of())
        if resume and 0 < start <= accountant.last_update:
            start = accountant.last_update + interval
        for number in range(count):
            now = start + number * interval
            result = negotiate(self.pool, accountant, self.params, now)
            self.store.save(accountant, result.groups if self.params.groups.enabled else None)
            self.pool.apply(result, now)
            yield result
