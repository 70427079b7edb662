"""The defrag daemon on a live pool (DAEMON_LIST with DEFRAG): a one-core job fragments a
two-core partitionable slot, the daemon's poll drains the startd gracefully (the job, with
no retirement time, is evicted and runs again later), the startd resumes once drained, and
the Defrag ad (``fairpool status -any -constraint 'MyType == "Defrag"'``) reports the drain
and the pool's average draining badput. Its counters survive a restart
(DEFRAG_STATE_FILE)."""

from __future__ import annotations

from pathlib import Path

from livepool import LivePool, events, fairpool

KNOBS = {
    "DAEMON_LIST": "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, STARTD, DEFRAG",
    "NUM_CPUS": 2,
    "MEMORY": 2048,
    "NUM_SLOTS": 1,
    "SLOT_TYPE_1": "100%",
    "NUM_SLOTS_TYPE_1": 1,
    "SLOT_TYPE_1_PARTITIONABLE": "True",
    "NEGOTIATOR_INTERVAL": 1,
    "UPDATE_INTERVAL": 1,
    "DEFRAG_INTERVAL": 2,
    "DEFRAG_UPDATE_INTERVAL": 2,
    "DEFRAG_DRAINING_MACHINES_PER_HOUR": 1800,
    "DEFRAG_MAX_CONCURRENT_DRAINING": 1,
    "DEFRAG_NAME": "cm-defrag",
    # the job has run 3 s before a drain may pick its machine (600 s: MachineMaxVacateTime's
    # default): a drain in the job's first second would cost no whole second of badput
    "DEFRAG_REQUIREMENTS": "ExpectedMachineQuickDrainingBadput >= 603",
}


def defrag_ad(pool: LivePool) -> dict | None:
    ads = pool.get("/collector/ads", type="Any", constraint='MyType == "Defrag"')["ads"]
    return ads[0] if ads else None


def test_the_defrag_daemon_drains_a_fragmented_startd_and_reports_it(tmp_path: Path):
    work = tmp_path / "work"
    state = tmp_path / "defrag.state"
    pool = LivePool(tmp_path / "pool", DEFRAG_STATE_FILE=state, **KNOBS)
    with pool:
        pool.submit(
            "executable = /bin/sleep\narguments = 60\nrequest_cpus = 1\nrequest_memory = 128\n"
            "log = job.log\nqueue\n",
            work,
        )
        pool.wait(lambda: pool.jobs("JobStatus == 2"), 30, "the job to run")
        pool.wait(lambda: "4" in _events(work), 40, "the job evicted by draining")
        ad = pool.wait(
            lambda: (a := defrag_ad(pool)) and a["DrainSuccesses"] >= 1 and a, 20, "a drain"
        )
        assert ad["Name"] == "cm-defrag" and ad["DrainFailures"] == 0
        assert "slot1@" in str(ad["RecentDrainsList"])
        # the startd counts the killed job's time as badput; the daemon averages it
        pool.wait(lambda: (defrag_ad(pool) or {}).get("AvgDrainingBadput", 0) > 0, 20, "badput")
        # once drained, the startd takes jobs again (resume on completion): it runs again
        pool.wait(lambda: pool.jobs("JobStatus == 2"), 30, "the job to run again")
        out = fairpool(
            "status", "-any", "-constraint", 'MyType == "Defrag"', "--pool", pool.url
        ).stdout
        assert "Defrag" in out and "cm-defrag" in out
        fairpool("rm", "-all", "--pool", pool.url)
        pool.wait(lambda: not pool.jobs(), 30, "the job removed")
        # the last poll's counters are in DEFRAG_STATE_FILE once the pool stops
        pool.wait(lambda: not (defrag_ad(pool) or {}).get("MachinesDraining"), 20, "no drain")
    before = (defrag_ad_from_state(state))["successes"]
    assert before >= 1
    with LivePool(tmp_path / "pool", DEFRAG_STATE_FILE=state, **KNOBS) as again:
        ad = again.wait(lambda: defrag_ad(again), 20, "the Defrag ad")
        assert ad["DrainSuccesses"] == before  # not from zero


def _events(work: Path) -> list[str]:
    log = work / "job.log"
    return [str(n) for numbers in events(log).values() for n in numbers] if log.exists() else []


def defrag_ad_from_state(path: Path) -> dict:
    import json

    return json.loads(path.read_text())["stats"]
