"""Must-show 1 of issue 17: a pool over five "hosts" on this machine, each a process with
its own directory, all on 127.0.0.1 with free ports: a central manager (collector and
negotiator), two execute hosts (a startd of two slots each, STARTD_NAME exec1 and
exec2) and two submit hosts (a schedd each, SCHEDD_NAME sub1 and sub2).

alice and bob each queue jobs on both submit hosts, more than the four slots. The jobs of
both schedds run on both startds, and while both users wait the negotiator gives each
half of the pool (equal priority factors: the pie cut in two at every cycle), one
submitter per user over the two schedds. With CLAIM_WORKLIFE = 0 every start goes
through the negotiator.

It runs twice: each host with its own SQLite state, and with the central manager and both
submit hosts sharing one PostgreSQL database (``DATABASE_URL``; each schedd's queue and
history under its name, the accountant the negotiator's), as a pool over real hosts would.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from hosts import Hosts

JOBS = 6  # per user and submit host: 24 jobs for 4 slots
PROGRAM = "#!/bin/sh\nsleep 2\necho done\n"  # 2 s: samples enough on a loaded machine
SUBMIT = f"""
executable = work.sh
request_cpus = 1
request_memory = 64
output = out/$(accounting_group_user).$(Cluster).$(Process)
log = jobs.log

accounting_group_user = alice
queue {JOBS}

accounting_group_user = bob
queue {JOBS}
"""


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_knobs(request: pytest.FixtureRequest) -> dict[str, object]:
    """The knobs of the hosts that keep state (the central manager and the submit hosts):
    none (each its own SQLite in SPOOL), or one PostgreSQL database for all of them."""
    if request.param == "sqlite":
        return {}
    return {"DATABASE_URL": request.getfixturevalue("postgres_url")}


def test_two_submit_hosts_share_two_execute_hosts_fairly(
    tmp_path: Path, shared_knobs: dict[str, object]
) -> None:
    work = tmp_path / "work"
    (work / "out").mkdir(parents=True)
    (work / "work.sh").write_text(PROGRAM)
    (work / "work.sh").chmod(0o755)
    with Hosts(tmp_path / "hosts", CLAIM_WORKLIFE=0) as pool:
        cm = pool.host("cm", "COLLECTOR, NEGOTIATOR", **shared_knobs)
        pool.start(cm)
        executes = [pool.host(n, "STARTD", STARTD_NAME=n) for n in ("exec1", "exec2")]
        submits = [pool.host(n, "SCHEDD", SCHEDD_NAME=n, **shared_knobs) for n in ("sub1", "sub2")]
        pool.start(*executes, *submits)
        host = cm.http.get(f"{cm.url}/master/status").json()
        assert host["daemons"] == ["MASTER", "COLLECTOR", "NEGOTIATOR"]
        cm.wait(lambda: len(pool.ads("Machine")) == 4, 30, "four slots in the collector")
        slots = pool.names("Machine")
        machine = pool.ads("Machine")[0]["Machine"]
        assert slots == {f"slot{i}@exec{e}@{machine}" for i in (1, 2) for e in (1, 2)}
        cm.wait(lambda: len(pool.names("Scheduler")) == 2, 30, "both schedds' ads")
        assert pool.names("Scheduler") == {f"sub1@{machine}", f"sub2@{machine}"}
        for schedd in ("sub1", "sub2"):  # by the short name, as condor_submit -name takes it
            out = pool.submit(schedd, SUBMIT, work)
            assert out.endswith(f"{2 * JOBS} job(s) submitted to cluster 1.\n")
        shares = []
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            jobs = [job for sub in submits for job in sub.jobs()]
            if not jobs:
                break
            idle = Counter(j["AcctGroupUser"] for j in jobs if j["JobStatus"] == 1)
            running = Counter(j["AcctGroupUser"] for j in jobs if j["JobStatus"] == 2)
            if idle["alice"] and idle["bob"] and sum(running.values()) == 4:
                shares.append((running["alice"], running["bob"]))
            time.sleep(0.2)
        histories = {sub.directory.name: sub.history() for sub in submits}
        accountant = cm.accountant()
    assert not jobs, "every job finished within the time allowed"
    for name, history in histories.items():
        assert len(history) == 2 * JOBS
        assert all(job["JobStatus"] == 4 and job["ExitCode"] == 0 for job in history)
        assert all(job["GlobalJobId"].startswith(f"{name}@{machine}#1.") for job in history)
        ran_on = {job["LastRemoteHost"].split("@", 1)[1] for job in history}
        assert ran_on == {f"exec1@{machine}", f"exec2@{machine}"}, (name, ran_on)
    # each user held about half the pool while both waited: never all of it
    assert len(shares) >= 3, shares  # fewer on a loaded machine: a sample asks both schedds
    assert all(1 <= a <= 3 and 1 <= b <= 3 for a, b in shares), shares
    mean_alice = sum(a for a, _ in shares) / len(shares)
    assert 1.5 <= mean_alice <= 2.5, shares
    # one accountant record per user, over both schedds, each charged for its 12 runs
    users = {name.split("@")[0]: record for name, record in accountant.items() if "@" in name}
    assert {"alice", "bob"} <= set(users)
    usage = {user: users[user]["accumulated_usage"] for user in ("alice", "bob")}
    assert all(value >= 4 * JOBS for value in usage.values()), usage  # 12 runs of 2 s
    assert abs(usage["alice"] - usage["bob"]) <= 0.25 * max(usage.values()), usage
