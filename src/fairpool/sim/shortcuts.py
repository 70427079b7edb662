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
2. **Usage is read only from the slots that changed.** Each slot's holder and weight (what
   the negotiator's ``fetch_slots`` reads) are kept per slot and read again only for the
   slots the pool reports touched (claimed, released, added or removed), or for all of them
   after a reconfiguration; the usage is then summed in collector order, as a cycle sums
   it, so the figures are the same to the last bit.
3. **Nothing is done between events.** The event heap jumps from one due event (an arrival,
   a completion, a cycle, a sample) to the next.
"""

from __future__ import annotations

from ..accounting.accountant import Usage
from ..classad import ClassAd
from ..classad.scope import NOT_CONST
from ..negotiator import NegotiatorParams
from ..negotiator.slots import fetch_slots
from .pool import Pool

__all__ = ["PoolWatch", "preemption_possible", "ranks_vary"]

_HELD = ("Claimed", "Preempting")


def ranks_vary(slots: list[ClassAd]) -> bool:
    """Whether some slot's RANK could rank one job above another."""
    return any("Rank" in s and s.lookup("Rank").const is NOT_CONST for s in slots)


def preemption_possible(params: NegotiatorParams, ranked: bool) -> bool:
    """Whether any cycle could preempt a running job (by priority or by slot RANK)."""
    if not params.consider_preemption:
        return False
    requirements = params.preemption_requirements
    if requirements is None or requirements.const is NOT_CONST:
        return True
    return bool(requirements.const) or ranked


class PoolWatch:
    """Answers "could a cycle match?" and "who holds what?", cached by pool version."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self._free: tuple[int, bool] = (-1, True)
        self._held: dict[str, tuple[str, float]] = {}  # slot -> (holder, weight)
        self._params: NegotiatorParams | None = None
        self._usage: tuple[int, dict[str, Usage]] = (-1, {})

    def idle_jobs(self) -> int:
        return len(self.pool.job_by_id) - len(self.pool.job_on_slot)

    def may_match(self, preemptible: bool) -> bool:
        if self.idle_jobs() == 0:
            return False
        return preemptible or self.free_slot()

    def free_slot(self) -> bool:
        version, free = self._free
        if version != self.pool.version:
            free = any(_free(slot) for slot in self.pool.slot_by_name.values())
            self._free = (self.pool.version, free)
        return free

    def usage(self, params: NegotiatorParams, now: float) -> dict[str, Usage]:
        """Each holder's usage from the claimed slots, as a cycle would measure it."""
        if params is not self._params:
            self._params, self._held = params, {}
            self.pool.touched = set(self.pool.slot_by_name)
            self._usage = (-1, {})
        if self._usage[0] == self.pool.version:
            return self._usage[1]
        for name in self.pool.touched:
            self._held.pop(name, None)
            ad = self.pool.slot_by_name.get(name)
            for slot in fetch_slots([ad] if ad is not None else [], params, now):
                if slot.holder is not None:
                    self._held[name] = (slot.holder, slot.weight)
        self.pool.touched = set()
        usage: dict[str, Usage] = {}
        held = self._held
        for name in self.pool.slot_by_name:
            if name in held:
                holder, weight = held[name]
                usage[holder] = usage.get(holder, Usage()) + Usage(1, weight)
        self._usage = (self.pool.version, usage)
        return usage


def _free(slot: ClassAd) -> bool:
    if slot.eval("State") in _HELD:
        return False
    if slot.eval("PartitionableSlot") is True:
        cpus = slot.eval("Cpus")
        return type(cpus) not in (int, float) or cpus > 0
    return True
