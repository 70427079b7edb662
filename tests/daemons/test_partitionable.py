"""A partitionable slot in the live pool (HTCondor 23's default layout: one slot holding
the whole machine): each job gets a dynamic slot carved to its request, the schedd starts
the submitter's other jobs on what is left (CLAIM_PARTITIONABLE_LEFTOVERS), and the
resources go back to the partitionable slot when the jobs are done."""

from __future__ import annotations

import time
from pathlib import Path

from livepool import LivePool


def test_jobs_run_side_by_side_in_dynamic_slots_of_one_partitionable_slot(tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    submit = "executable = /bin/sleep\narguments = 2\nrequest_cpus = 1\nrequest_memory = 256\n"
    knobs = {"NUM_CPUS": 4, "MEMORY": 4096, "NUM_SLOTS": 1, "SLOT_TYPE_1": "100%",
             "NUM_SLOTS_TYPE_1": 1, "SLOT_TYPE_1_PARTITIONABLE": "True"}  # fmt: skip
    with LivePool(tmp_path / "pool", **knobs) as pool:
        (pslot,) = pool.slots()
        assert pslot["PartitionableSlot"] is True and pslot["Cpus"] == 4
        pool.submit(submit + "queue 6\n", work)
        busy = pool.wait(lambda: len(pool.jobs("JobStatus == 2")) == 4 and pool.jobs(
            "JobStatus == 2"), 30, "four jobs running at once")  # fmt: skip
        hosts = {job["RemoteHost"] for job in busy}
        assert len(hosts) == 4 and all(h.startswith("slot1_") for h in hosts)
        dynamic = pool.wait(lambda: pool.slots("DynamicSlot =?= true"), 10, "dynamic slots")
        assert all(slot["Cpus"] == 1 and slot["Memory"] == 256 for slot in dynamic)
        deadline = time.monotonic() + 60
        while pool.jobs() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(pool.history()) == 6
        back = pool.wait(
            lambda: [s for s in pool.slots() if s["Cpus"] == 4 and not s.get("DynamicSlot")],
            30, "the cores back in the partitionable slot")  # fmt: skip
    assert back[0]["Name"] == pslot["Name"]
