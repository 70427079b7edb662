"""Running negotiation cycles in tests: one call, counts per submitter back."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from fairpool.accounting.accountant import Accountant, AccountantPolicy
from fairpool.classad import ClassAd
from fairpool.negotiator import CycleResult, NegotiatorParams, PoolSnapshot, run_cycle

NOW = 1_750_000_000.0
PARAMS = NegotiatorParams(accounting_domain="d")


def cycle(
    slot_ads: Sequence[ClassAd],
    job_ads: Sequence[ClassAd],
    accountant: Accountant | None = None,
    params: NegotiatorParams = PARAMS,
    now: float = NOW,
) -> tuple[Counter, CycleResult]:
    """One cycle; (matches per submitter without the domain, the whole result)."""
    accountant = accountant or Accountant(AccountantPolicy())
    result = run_cycle(
        PoolSnapshot(slot_ads, job_ads), accountant.view().__getitem__, params, now=now
    )
    counts = Counter(m.submitter.rpartition("@")[0] for m in result.matches)
    return counts, result
