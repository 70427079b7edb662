"""``fairpool simulate --from-pool``: a live pool's slots, queue, accountant and
configuration as the simulation's start, kept in the results so the run can be repeated."""

from __future__ import annotations

import json
from pathlib import Path

from fairpool.classad import parse_ads
from fairpool.store.classadlog import read_accountant_log
from livepool import LivePool, fairpool

SCENARIO = """
[simulation]
duration = "1h"
negotiator_interval = "1m"
[config]
text = "PRIORITY_HALFLIFE = $(PRIORITY_HALFLIFE) / 2"
[snapshot]
runtime = "10m"
"""


def test_a_live_pool_is_the_simulations_start(tmp_path: Path) -> None:
    work = tmp_path / "work"
    submit = "executable = /bin/sleep\narguments = 120\nrequest_memory = 64\nqueue 6\n"
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(SCENARIO)
    out = tmp_path / "out"
    knobs = {"PRIORITY_HALFLIFE": 4000, "SIMULATION_API_TOKEN": "not-for-the-snapshot"}
    with LivePool(tmp_path / "pool", NUM_CPUS=2, **knobs) as pool:
        pool.submit(submit, work)
        pool.wait(lambda: len(pool.jobs("JobStatus == 2")) == 2, 30, "two running jobs")
        pool.wait(
            lambda: any(c["resources_used"] == 2 for c in pool.accountant().values()),
            30,
            "the accountant to charge the running jobs",
        )
        ran = fairpool(
            "simulate", str(scenario), "--pool", pool.url, "--out", str(out), check=False
        )
        assert ran.returncode != 0 and "--pool goes with --from-pool" in ran.stderr
        fairpool(
            "simulate", str(scenario), "--from-pool", "--pool", pool.url, "--out", str(out),
            "--quiet", "--no-plots",
        )  # fmt: skip
        (user,) = [name for name, c in pool.accountant().items() if c["resources_used"] == 2]
    snapshot = out / "snapshot"
    slots = list(parse_ads((snapshot / "machines.ads").read_text()))
    host = slots[0].eval("Machine")
    assert sorted(slot.eval("Name") for slot in slots) == [f"slot1@{host}", f"slot2@{host}"]
    queue = list(parse_ads((snapshot / "queue.ads").read_text()))
    assert sorted(job.eval("JobStatus") for job in queue) == [1, 1, 1, 1, 2, 2]
    _, records = read_accountant_log((snapshot / "Accountantnew.log").read_text())
    assert {r.name: r.resources_used for r in records}[user] == 2
    config = (snapshot / "pool_config").read_text()
    assert "PRIORITY_HALFLIFE = 4000" in config
    assert "not-for-the-snapshot" not in config  # a knob that may hold a secret is left out
    summary = json.loads((out / "summary.json").read_text())
    # the queue's six jobs, two at a time for ten simulated minutes each, all done in 1 h
    assert summary["pool"]["jobs"]["submitted"] == 6
    assert summary["pool"]["jobs"]["completed"] == 6
    assert not list(tmp_path.glob(".out.snapshot-*"))  # nothing left beside the results
    # the kept snapshot runs again as a scenario's [snapshot] directory
    again = tmp_path / "again.toml"
    again.write_text(SCENARIO.replace("[snapshot]\n", f'[snapshot]\ndirectory = "{snapshot}"\n'))
    fairpool("simulate", str(again), "--out", str(tmp_path / "again"), "--quiet", "--no-plots")
    repeated = json.loads((tmp_path / "again" / "summary.json").read_text())
    assert {**repeated, "scenario": ""} == {**summary, "scenario": ""}
