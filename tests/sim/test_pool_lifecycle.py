"""Pool: finishing jobs releases their slots (static back to Unclaimed, dynamic back into
the partitionable slot), removed machines send their jobs back to idle."""

from builders import jobs_of, make_slot
from fairpool.negotiator import CycleResult, Match
from fairpool.sim.pool import Pool

NOW = 1_700_000_000


def _match(job: str, slot: str) -> Match:
    return Match(job, "alice@d", slot, "NoPreemption", None, 1.0)


def test_finish_releases_a_static_slot():
    pool = Pool([make_slot("slot1@a").build()], jobs_of("alice", 2, 1), "d")
    pool.apply(CycleResult(NOW, matches=[_match("1.0", "slot1@a")]), NOW)
    assert pool.slot_by_name["slot1@a"].eval("State") == "Claimed"
    pool.changes.clear()
    pool.finish("1.0")
    slot = pool.slot_by_name["slot1@a"]
    assert (slot.eval("State"), slot.eval("Activity"), "RemoteUser" in slot) == (
        "Unclaimed",
        "Idle",
        False,
    )
    assert [j.eval("ProcId") for j in pool.jobs] == [1]
    assert "slot1@a" in pool.changes  # logged for the ledger and the columns


def test_finish_gives_a_dynamic_slot_back():
    pslot = make_slot("slot1@big").partitionable().cpus(4).memory(4096).build()
    pool = Pool(
        [pslot], jobs_of("alice", 3, 1, RequestCpus=1, RequestMemory=512, RequestDisk=1024), "d"
    )
    pool.apply(CycleResult(NOW, matches=[_match("1.0", "slot1@big")]), NOW)
    # the leftovers were claimed at once for alice's other jobs
    assert pslot.eval("Cpus") == 1 and len(pool.job_on_slot) == 3
    pool.finish("1.1")
    assert pslot.eval("Cpus") == 2 and pslot.eval("NumDynamicSlots") == 2
    assert "slot1_2@big" not in pool.slot_by_name


def test_removed_machines_send_their_jobs_back():
    pool = Pool([make_slot(f"slot1@m{n}").build() for n in range(2)], jobs_of("alice", 2, 1), "d")
    pool.apply(
        CycleResult(NOW, matches=[_match("1.0", "slot1@m0"), _match("1.1", "slot1@m1")]), NOW
    )
    displaced = pool.remove_slots(["slot1@m1"], NOW)
    assert displaced == ["1.1"] and list(pool.slot_by_name) == ["slot1@m0"]
    assert pool.queue.jobs["1.1"].eval("JobStatus") == 1
    assert pool.vacated == [("1.1", float(NOW))]
