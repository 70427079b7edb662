"""One negotiator cycle against a pool in memory, with its accounting: the step both
``fairpool negotiate --cycles`` (dryrun.py) and the simulator (runner.py) take.

In order, as the negotiator does: age the priorities to ``now`` (charging the usage held
since the last cycle); negotiate; record each customer's usage (claimed slots plus this
cycle's matches); make sure every submitter has a record (its factor is fixed the first
time it is seen). Carrying out the matches (``Pool.apply``) is left to the caller, which
may save the accountant first.
"""

from __future__ import annotations

from ..accounting.accountant import Accountant
from ..negotiator import CycleResult, NegotiatorParams, run_cycle
from .pool import Pool

__all__ = ["negotiate"]


def negotiate(
    pool: Pool, accountant: Accountant, params: NegotiatorParams, now: float, kept: bool = False
) -> CycleResult:
    """Age, negotiate and record usage for the cycle at ``now``; ``kept``: from the
    pool's ledger (Pool.kept_snapshot), which gives the same decisions with less work."""
    snapshot = pool.kept_snapshot(params, now) if kept else pool.snapshot(now, params)
    accountant.update_priorities(now)
    result = run_cycle(
        snapshot, accountant.view().__getitem__, params, now=now, columns=pool.columns
    )
    accountant.set_usage(result.usage, now)
    for name in result.submitters:
        accountant.customer(name)
    return result
