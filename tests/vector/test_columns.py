"""Slot columns carried from one cycle to the next: ``sync`` re-encodes only the cells
whose expression changed, and a cycle run on carried columns decides as one run on
fresh columns."""

from __future__ import annotations

import numpy as np

from fairpool.accounting.accountant import Accountant, AccountantPolicy
from fairpool.classad import ClassAd, Expr
from fairpool.classad.vector import SlotColumns, VectorMatch
from fairpool.classad.vector.cells import value_at
from fairpool.negotiator import NegotiatorParams, PoolSnapshot, run_cycle

NOW = 1_750_000_000.0


def _slot(k: int, memory: int) -> ClassAd:
    ad = ClassAd()
    ad["MyType"], ad["Name"], ad["Machine"] = "Machine", f"slot{k}@h", "h"
    ad["State"], ad["Activity"] = "Unclaimed", "Idle"
    ad["Cpus"], ad["Memory"] = 1, memory
    ad["Requirements"] = Expr("TARGET.RequestMemory <= Memory")
    return ad


def _job(k: int, memory: int) -> ClassAd:
    ad = ClassAd()
    ad["MyType"], ad["JobStatus"], ad["Owner"] = "Job", 1, "alice"
    ad["ClusterId"], ad["ProcId"] = 1, k
    ad["RequestCpus"], ad["RequestMemory"] = 1, memory
    ad["Requirements"] = Expr("TARGET.Memory >= RequestMemory")
    return ad


def _values(columns: SlotColumns, job: ClassAd, name: str) -> list:
    got = VectorMatch(columns, job, now=NOW).attribute(
        name, np.arange(len(columns)), my_is_slot=True
    )
    return [value_at(got, k, columns.strings) for k in range(len(columns))]


def test_sync_re_encodes_only_changed_cells():
    slots = [_slot(k, 1024 * (k + 1)) for k in range(6)]
    columns = SlotColumns(slots)
    job = _job(0, 3000)
    assert _values(columns, job, "Requirements") == [False, False, True, True, True, True]
    changed = [ad.copy() for ad in slots]
    changed[0]["Memory"] = 8192  # one cell of the Memory column
    assert columns.sync(changed) == 1
    assert _values(columns, job, "Requirements") == [True, False, True, True, True, True]
    assert columns.sync(changed) == 0  # nothing changed since


def test_refresh_reads_one_row_again():
    slots = [_slot(k, 1024) for k in range(3)]
    columns = SlotColumns(slots)
    job = _job(0, 2000)
    assert _values(columns, job, "Requirements") == [False, False, False]
    slots[1]["Memory"] = 4096
    columns.refresh(1)
    assert _values(columns, job, "Requirements") == [False, True, False]


def test_cycles_on_carried_columns_decide_as_on_fresh_ones():
    params = NegotiatorParams(accounting_domain="d")
    # more slots than VectorLists.scalar_rows: a smaller pool is matched on the scalar path
    slots = [_slot(k, 1024 * (k % 4 + 1)) for k in range(24)]
    jobs = [_job(k, 700 * (k % 5 + 1)) for k in range(10)]
    view = Accountant(AccountantPolicy()).view().__getitem__
    columns = SlotColumns([])
    for cycle in range(3):
        snapshot = PoolSnapshot(slots, jobs)
        carried = run_cycle(snapshot, view, params, now=NOW + cycle, columns=columns)
        fresh = run_cycle(snapshot, view, params, now=NOW + cycle)
        assert carried.matches == fresh.matches
        assert carried.rejections == fresh.rejections
        slots = [ad.copy() for ad in slots]
        slots[cycle]["Memory"] = 16384  # the pool changes between cycles
    assert len(columns) == len(slots)


def test_sync_follows_slots_by_name_when_the_pool_changes_shape():
    slots = [_slot(k, 1024 * (k + 1)) for k in range(5)]
    columns = SlotColumns(slots)
    job = _job(0, 2500)
    _values(columns, job, "Requirements")  # the columns this reads are now built
    _values(columns, job, "Memory")
    gone, added = slots[1], _slot(9, 8192)
    reshaped = [slots[4], slots[0], added, slots[3], slots[2]]
    # the Memory and Requirements cells of the new slot: nothing else is encoded again
    assert columns.sync(reshaped) == 2
    fresh = SlotColumns(reshaped)
    for name in ("Requirements", "Memory"):
        assert _values(columns, job, name) == _values(fresh, job, name)
    assert gone not in columns.ads


def test_a_row_keeps_its_stamp_while_its_cells_do():
    """Values kept by stamp (negotiator/kept_values.py) hold while the stamp does."""
    slots = [_slot(k, 1024) for k in range(3)]
    columns = SlotColumns(slots)
    _values(columns, _job(0, 2000), "Requirements")
    before = columns.stamps.tolist()
    copies = [ad.copy() for ad in slots]  # new ads, the same cells
    copies[1]["Memory"] = 4096
    columns.sync(copies)
    after = columns.stamps.tolist()
    assert (after[0], after[2]) == (before[0], before[2])
    assert after[1] > max(before)
