"""Work the simulator skips because it cannot change anything (``shortcuts = true``, the
default; ``shortcuts = false`` runs the plain loop, and tests/sim compare the two).

1. **A cycle that cannot match is not negotiated.** ``run_cycle`` is skipped when there is
   no idle job, or when no slot is free (every static slot Claimed or Preempting and every
   partitionable slot out of cores) and no preemption is possible. Preemption is possible
   when ``NEGOTIATOR_CONSIDER_PREEMPTION`` is true and either ``PREEMPTION_REQUIREMENTS`` is
   unset or not a constant false, or some slot's ``Rank`` is not a constant (a constant
   RANK ranks every job the same as the running one, so it never preempts). The skipped
   cycle still does the accounting a cycle without matches does: age every priority to
   ``now`` and set each customer's usage from the claimed slots, and give new submitters
   their record (with ``NEGOTIATOR_JOB_CONSTRAINT`` set, a new submitter's record waits for
   the next negotiated cycle, which only matters if a ``config`` event changes its factor
   in between). So priorities are aged exactly as in the plain loop, cycle by cycle (the
   ageing is cheap: one multiplication per customer), and the results are identical.
   Assumption: jobs ask for at least one core (a partitionable slot with no cores left is
   taken as full).
2. **Slots are read only when they changed, and busy slots no cycle can take only
   count.** The pool logs every slot it changes; the negotiator's ``SlotLedger``
   (negotiator/ledger.py) keeps each slot's fetched view and the running totals of the
   *standing* slots (claimed, and out of reach of both kinds of preemption), and a cycle
   negotiates over the other slots only, with the totals for the pie, usage, limits and
   autoclusters (``Pool.kept_snapshot``). Sums are exact, so every figure is the plain
   cycle's to the last bit. The vector evaluator's columns re-encode only the changed
   slots, and the running jobs' run times are brought up to date only on the slots a
   cycle reads. Skipped cycles and samples take their usage from the ledger too.
3. **Nothing is done between events.** The event heap jumps from one due event (an arrival,
   a completion, a cycle, a sample) to the next.
"""

from __future__ import annotations

from ..classad import ClassAd
from ..classad.scope import NOT_CONST
from ..negotiator import NegotiatorParams
from ..negotiator.candidates import priority_preemption_ruled_out

__all__ = ["preemption_possible", "ranks_vary"]


def ranks_vary(slots: list[ClassAd]) -> bool:
    """Whether some slot's RANK could rank one job above another."""
    return any("Rank" in s and s.lookup("Rank").const is NOT_CONST for s in slots)


def preemption_possible(params: NegotiatorParams, ranked: bool) -> bool:
    """Whether any cycle could preempt a running job (by priority or by slot RANK)."""
    if not params.consider_preemption:
        return False
    return not priority_preemption_ruled_out(params) or ranked
