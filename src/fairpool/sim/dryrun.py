"""Negotiation cycles over real pool data, with the accountant kept in a state directory:
what ``fairpool negotiate`` runs.

Each cycle does what the negotiator does, in order: age the priorities to ``now`` and
charge the usage held since the last cycle; negotiate; record each customer's usage
(claimed slots plus this cycle's matches) and save the accountant in one transaction.
Between cycles the pool moves on: matched jobs start on their slots, preempted jobs go
back to idle. A run killed at any moment leaves the state of its last completed cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..accounting.accountant import AccountantPolicy
from ..classad import ClassAd
from ..negotiator import CycleResult, NegotiatorParams, run_cycle
from ..negotiator.groups import assigned_group, build_tree
from ..store.accountant_store import AccountantStore
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
        if not self.params.groups.enabled:
            return lambda name: None
        tree = build_tree(self.params.groups)
        return lambda name: assigned_group(tree, name).name

    def cycles(self, count: int, start: float, interval: float) -> Iterator[CycleResult]:
        """Run ``count`` cycles from ``start``, ``interval`` seconds apart."""
        accountant = self.store.load(self.policy, self.group_of())
        for number in range(count):
            now = start + number * interval
            self.pool.advance(now)
            accountant.update_priorities(now)
            result = run_cycle(
                self.pool.snapshot(), accountant.view().__getitem__, self.params, now=now
            )
            accountant.set_usage(result.usage)
            for name in result.submitters:
                accountant.customer(name)  # a factor is fixed the first time a name is seen
            self.store.save(accountant, result.groups if self.params.groups.enabled else None)
            self.pool.apply(result, now)
            yield result
