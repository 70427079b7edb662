"""A cycle leaves no reference cycle behind: its objects (the state, its matches, usage,
priorities, the vector lists) are freed by reference counting as ``run_cycle`` returns,
not left to the garbage collector (cycle.py's _busy_policy and _vector)."""

import gc

from builders import make_job, make_slot
from cycles import NOW, PARAMS
from fairpool.accounting.accountant import Accountant, AccountantPolicy
from fairpool.classad import Expr
from fairpool.negotiator import run_cycle
from fairpool.negotiator.vector_lists import VectorLists
from fairpool.sim.pool import Pool


def test_a_cycle_with_vector_lists_and_busy_slots_leaves_no_garbage_cycle():
    slots = [make_slot(f"slot1@host{n}").build() for n in range(30)]
    slots += [make_slot(f"slot1@busy{n}").claimed_by("bob@d").build() for n in range(5)]
    jobs = [make_job("ann", cluster).build() for cluster in range(1, 21)]
    params = PARAMS.with_(preemption_requirements=Expr("False"))
    pool, accountant = Pool(slots, jobs, "d"), Accountant(AccountantPolicy())
    for user in ("ann@d", "bob@d"):
        accountant.customer(user)
    view = accountant.view().__getitem__
    run_cycle(pool.kept_snapshot(params, NOW), view, params, now=NOW)  # one-off caches
    snapshot = pool.kept_snapshot(params, NOW + 60)
    assert snapshot.standing is not None and snapshot.standing.policy_blocks is not None
    assert len(snapshot.standing.slots) > VectorLists.scalar_rows  # the vector lists made
    gc.collect()
    gc.disable()
    try:
        result = run_cycle(snapshot, view, params, now=NOW + 60)
        assert result.matches
        del result, snapshot
        assert gc.collect() == 0
    finally:
        gc.enable()
