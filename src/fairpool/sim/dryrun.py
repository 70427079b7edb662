"""Negotiation cycles over real pool data, with the accountant kept in a state directory:
what ``fairpool negotiate`` runs.

Each cycle is negotiation.py's step (age, negotiate, record usage), after which the
accountant is saved in one transaction. A caller with an output file (``--json``) writes it
for the cycle before the save (``prepare``), and the save renames it into place as part of
committing (store/accountant_store.py): a cycle whose output cannot be written is never
committed, and state and output always describe the same cycles.
Between cycles the pool moves on: matched jobs start on their slots, preempted jobs go
back to idle. A run killed at any moment leaves the state of its last completed cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..accounting.accountant import AccountantPolicy
from ..classad import ClassAd
from ..negotiator import CycleResult, NegotiatorParams
from ..negotiator.groups import group_assigner
from ..store.accountant_store import AccountantStore
from .negotiation import negotiate
from .pool import Pool

__all__ = ["DryRun", "Prepare", "pool_time"]

Prepare = Callable[[CycleResult], tuple[str, str] | None]


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
        return group_assigner(self.params.groups)

    def cycles(
        self,
        count: int,
        start: float,
        interval: float,
        prepare: Prepare | None = None,
        resume: bool = False,
    ) -> Iterator[CycleResult]:
        """Run ``count`` cycles from ``start``, ``interval`` seconds apart; ``prepare(result)``
        writes a cycle's output and returns (written file, final name) to commit with it.
        ``resume``: a state that has already reached ``start`` goes on from its last cycle
        (one interval later) instead of going back in time."""
        accountant = self.store.load(self.policy, self.group_of())
        if resume and 0 < start <= accountant.last_update:
            start = accountant.last_update + interval
        for number in range(count):
            now = start + number * interval
            result = negotiate(self.pool, accountant, self.params, now)
            output = prepare(result) if prepare is not None else None
            groups = result.groups if self.params.groups.enabled else None
            self.store.save(accountant, groups, output)
            self.pool.apply(result, now)
            yield result
