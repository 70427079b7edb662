"""The live commands against a real pool: ``fairpool q`` (and ``-better-analyze``), ``rm``,
``hold``, ``release``, ``qedit``, ``history``, ``status``, ``userprio`` and ``drain``.

One personal pool serves the module (started by ``fairpool pool start --background`` on a
free loopback port, two slots, a negotiation cycle every 2 s; always stopped). Its queue is
set up once: job 1.0 (/bin/echo) has finished; cluster 2, two ``sleep 300``, fills both
slots; job 3.0 asks for more memory than any slot has; clusters 4 and 5 wait (their user
already has the whole pool). Every command's output is checked against the queue's state
read from the daemons' API. The commands run in this process (click's runner), as the
user running the tests.

HTCondor's texts the tests expect, and where they were seen: ``All jobs in cluster 9647386
have been marked for removal`` (a published log of a condor_rm run, 2026) and ``Couldn't
find/remove all jobs in cluster 1351043`` (DIRAC's HTCondor tests); ``All jobs matching
constraint (ClusterId == 3764857 || ClusterId == 3764858) have been marked for removal``
(alphatwirl's tests); ``All jobs matching constraint (...) have been released`` (a CMS
ansible log); one job's lines (``Job 939091.0 released``, ``Job 1.0 not found``, ``... not
held to be released``: the HTCondor DRMAA library's notes of condor_release output);
condor_qedit's ``Set attribute "X" for N matching jobs.`` and condor_drain's two messages
are the tools' own wording (no published transcript of them was found).
"""

from __future__ import annotations

import os
import pwd
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from fairpool.classad import ClassAd, Expr, parse_ads
from fairpool.classad.jsonads import ad_to_json
from fairpool.cli.main import main
from fairpool.negotiator.candidates import REJECT_LIMIT
from livepool import LivePool

IDLE, RUNNING, REMOVED, COMPLETED, HELD = 1, 2, 3, 4, 5
LETTERS = {IDLE: "I", RUNNING: "R", HELD: "H"}
ME = pwd.getpwuid(os.getuid()).pw_name
ROOT = os.getuid() == 0

ECHO = "executable = /bin/echo\narguments = hello\noutput = echo.out\nqueue\n"
SLEEP = "executable = /bin/sleep\narguments = 300\nrequest_memory = 64\nqueue {}\n"
HUGE = "executable = /bin/sleep\narguments = 1\nrequest_memory = 100000\nqueue\n"


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    base = tmp_path_factory.mktemp("live")
    work = base / "work"
    with LivePool(base / "pool") as live:
        submit(live, work / "echo.sub", ECHO)
        live.wait(lambda: live.history(), 30, "job 1.0 to finish")
        submit(live, work / "fill.sub", SLEEP.format(2))
        live.wait(lambda: len(live.jobs("JobStatus == 2")) == 2, 30, "cluster 2 to run")
        # the negotiator matches against the collector's ads: until the startd has said
        # both slots are claimed, a cycle could still offer them to the jobs queued next
        claimed = 'State == "Claimed"'
        live.wait(lambda: len(live.slots(claimed)) == 2, 30, "the collector to see them claimed")
        submit(live, work / "huge.sub", HUGE)
        submit(live, work / "wait.sub", SLEEP.format(3))
        submit(live, work / "act.sub", SLEEP.format(2))
        if ROOT:
            _queue_for_another_user(live, "alice")
        yield live


def submit(live: LivePool, path: Path, text: str) -> None:
    """``fairpool submit`` in this process (a new one costs seconds on a busy machine)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    here = os.getcwd()
    os.chdir(path.parent)  # condor_submit's Iwd: the directory it runs in
    try:
        assert " job(s) submitted to cluster " in run(live, "submit", path.name).stdout
    finally:
        os.chdir(here)


def _queue_for_another_user(live: LivePool, owner: str) -> None:
    """A job of another user (root may queue one): it matches no slot, so nothing runs as
    a user the machine may not have."""
    info = live.get("/schedd/submit-info")
    ad = ClassAd(
        {
            "MyType": "Job",
            "Owner": owner,
            "Cmd": "/bin/sleep",
            "Args": "300",
            "Iwd": "/tmp",
            "JobUniverse": 5,
            "JobPrio": 0,
            "RequestCpus": 1,
            "RequestMemory": 64,
            "Requirements": Expr("false"),
        }
    )
    cluster = {"ad": ad_to_json(ad), "procs": [{"ProcId": 0}]}
    live.post("/schedd/submit", {"first_cluster": info["next_cluster"], "clusters": [cluster]})


def run(pool: LivePool, command: str, *args: str, code: int = 0):
    result = CliRunner(env={"COLUMNS": "80"}).invoke(main, [command, "--pool", pool.url, *args])
    assert result.exit_code == code, f"{result.output}\n{result.exception!r}"
    assert "Traceback" not in result.output
    return result


def ids(jobs: list[ClassAd]) -> list[str]:
    return sorted((f"{j['ClusterId']}.{j['ProcId']}" for j in jobs), key=_order)


def _order(job_id: str) -> tuple[int, int]:
    cluster, proc = job_id.split(".")
    return int(cluster), int(proc)


def counts(jobs: list[ClassAd]) -> str:
    status = [j["JobStatus"] for j in jobs]
    return (
        f"{len(jobs)} jobs; {status.count(COMPLETED)} completed, {status.count(REMOVED)} removed, "
        f"{status.count(IDLE)} idle, {status.count(RUNNING)} running, {status.count(HELD)} held, "
        "0 suspended"
    )


# -- fairpool q -------------------------------------------------------------------------------
def test_q_prints_batches_and_totals_of_the_queue(pool):
    answer = pool.get("/schedd/jobs")
    queue = pool.jobs()
    mine = queue if ROOT else [j for j in queue if j["Owner"] == ME]  # root sees every job
    lines = run(pool, "q").stdout.splitlines()
    assert lines[:2] == ["", ""]
    assert lines[2].startswith(f"-- Schedd: {answer['schedd']} : {answer['address']} @ ")
    rows = {row.split()[2]: row.split() for row in lines[4:] if " ID: " in row}
    assert set(rows) == {str(j["ClusterId"]) for j in mine}
    run_idle = {c: row[6:8] for c, row in rows.items()}
    assert run_idle["2"] == ["2", "_"]  # both sleeps run
    assert run_idle["4"] == ["_", "3"]
    assert rows["4"][-1] == "4.0-2" and rows["3"][-1] == "3.0"
    totals = [line for line in lines if line.startswith("Total for")]
    assert totals[0] == f"Total for query: {counts(mine)} "
    assert totals[-1] == f"Total for all users: {counts(queue)}"
    assert (f"Total for {ME}: {counts(mine)} " in totals) == (not ROOT)


def test_nobatch_shows_every_job_with_its_status(pool):
    queue = {f"{j['ClusterId']}.{j['ProcId']}": j for j in pool.jobs()}
    lines = run(pool, "q", "-nobatch", "-allusers").stdout.splitlines()
    assert lines[3].split() == ["ID", "OWNER", "SUBMITTED", "RUN_TIME", "ST", "PRI", "SIZE", "CMD"]
    rows = [line.split() for line in lines[4 : 4 + len(queue)]]
    assert [r[0] for r in rows] == ids(list(queue.values()))
    for row in rows:
        job = queue[row[0]]
        assert row[1] == job["Owner"] and row[5] == LETTERS[job["JobStatus"]]


def test_af_l_and_restrictions_select_the_jobs_the_schedd_has(pool):
    running = pool.jobs("JobStatus == 2")
    out = run(pool, "q", "-constraint", "JobStatus == 2", "-af:j", "Owner", "RemoteHost").stdout
    assert out.splitlines() == [
        f"{j['ClusterId']}.{j['ProcId']} {ME} {j['RemoteHost']}" for j in running
    ]
    out = run(pool, "q", "2", "4.1", "-af:j", "JobStatus").stdout  # -af takes what follows
    assert out.splitlines() == ["2.0 2", "2.1 2", "4.1 1"]
    long = run(pool, "q", "-l", "3.0").stdout
    (ad,) = parse_ads(long)
    assert ad == pool.jobs("ClusterId == 3")[0]
    lines = run(pool, "q", "-run", "-allusers").stdout.splitlines()
    assert [line.split()[-1] for line in lines[4:]] == [j["RemoteHost"] for j in running]
    assert not any(line.startswith("Total") for line in lines)
    totals = run(pool, "q", "-totals", "-allusers", "-constraint", "ClusterId == 4").stdout
    assert totals.splitlines()[0] == f"Total for query: {counts(pool.jobs('ClusterId == 4'))} "


def test_only_your_own_jobs_unless_all_users_are_asked_for(pool):
    if not ROOT:
        owners = set(run(pool, "q", "-af", "Owner").stdout.split())
        assert owners == {ME}
        pytest.skip("queuing another user's job needs root")
    everyone = ids(pool.jobs())
    assert run(pool, "q", "-af:j", "Owner").stdout.count(" alice") == 1  # root sees all
    listed = run(pool, "q", "-allusers", "-af:j", "Owner").stdout.splitlines()
    assert [line.split()[0] for line in listed] == everyone
    alice = run(pool, "q", "alice", "-af:j", "Owner").stdout.splitlines()
    assert alice == [f"{j['ClusterId']}.0 alice" for j in pool.jobs('Owner == "alice"')]


def test_better_analyze_names_the_submitters_limit_for_a_job_the_pool_could_run(pool):
    info = _negotiated(pool, "4.0")
    lines = run(pool, "q", "-better-analyze", "4.0").stdout.splitlines()
    assert lines[2] == f"-- Schedd: {info['schedd']} : <{info['schedd_address'].split('/')[2]}>"
    assert lines[3] == "The Requirements expression for job 4.000 is"
    slots = pool.slots()
    summary = "004.000:  Run analysis summary ignoring user priority.  "
    assert f"{summary}Of {len(slots)} slots on 1 machines," in lines
    # both slots run the same submitter's sleeps: they match, and are already its
    assert f"  {len(slots):5d} slots match and are already running your jobs" in lines
    assert "Reason for last match failure: " + REJECT_LIMIT in lines
    assert any(f"the submitter's limit: {info['submitter']}" in line for line in lines)


def test_better_analyze_counts_the_slots_each_clause_rejects(pool):
    info = _negotiated(pool, "3.0")
    reason = _last_reason(pool, info)
    text = run(pool, "q", "-better-analyze", "3.0").stdout
    slots = len(pool.slots())
    assert "[5]           0  TARGET.Memory >= RequestMemory\n" in text
    assert f'[0]  {slots:10d}  TARGET.Arch == "X86_64"\n' in text
    assert "    RequestMemory = 100000 (mb)\n" in text
    assert f"  {slots:5d} slots are rejected by your job's requirements\n" in text
    assert f"Reason for last match failure: {reason}\n" in text
    assert text.endswith("WARNING:  Be advised:\n   No machines matched the jobs's constraints\n")
    running = run(pool, "q", "-better-analyze", "2.0").stdout
    matched = pool.jobs("ClusterId == 2 && ProcId == 0")[0]["LastMatchTime"]
    assert "002.000:  Job is running.\n" in running
    assert f"Last successful match: {time.asctime(time.gmtime(matched))}\n" in running


def _negotiated(pool: LivePool, job: str) -> dict:
    """The job's queue entry, once a negotiation cycle has turned its autocluster down
    (read again each time: while a match of it is being claimed it has no autocluster)."""
    found: dict = {}

    def rejected() -> str | None:
        found.update(pool.get(f"/schedd/jobs/{job}"))
        return _last_reason(pool, found)

    pool.wait(rejected, 20, f"a cycle to reject {job}")
    return found


def _last_reason(pool: LivePool, info: dict) -> str | None:
    reasons = [
        r["reason"]
        for cycle in pool.get("/negotiator/cycles", last=20)["cycles"]
        for r in cycle["rejections"]
        if r["schedd"] == info["schedd_address"] and r["autocluster"] == info["autocluster"]
    ]
    return reasons[-1] if reasons else None


# -- rm, hold, release, qedit ----------------------------------------------------------------
def status_of(pool: LivePool, cluster: int) -> list[int]:
    return [j["JobStatus"] for j in pool.jobs(f"ClusterId == {cluster}")]


def test_hold_and_release_jobs_clusters_users_and_constraints(pool):
    assert run(pool, "hold", "5.0", "-reason", "checking").stdout == "Job 5.0 held\n"
    assert status_of(pool, 5) == [HELD, IDLE]
    assert pool.jobs("ClusterId == 5 && ProcId == 0")[0]["HoldReason"] == "checking"
    again = run(pool, "hold", "5.0", code=1)
    assert again.stderr == "Job 5.0 already held\n" and again.stdout == ""
    held = run(pool, "q", "-hold").stdout.splitlines()
    assert held[4].split()[:2] == ["5.0", ME] and held[4].endswith(" checking")
    assert run(pool, "release", "5").stdout == "All jobs in cluster 5 have been released\n"
    assert status_of(pool, 5) == [IDLE, IDLE]
    assert (
        run(pool, "release", "5", code=1).stderr == "Couldn't find/release all jobs in cluster 5\n"
    )
    assert run(pool, "release", "5.1", code=1).stderr == "Job 5.1 not held to be released\n"
    out = run(pool, "hold", "-constraint", "ClusterId == 5").stdout
    assert out == "All jobs matching constraint (ClusterId == 5) have been held\n"
    assert status_of(pool, 5) == [HELD, HELD]
    assert run(pool, "release", ME).stdout == f'All jobs of user "{ME}" have been released\n'
    assert status_of(pool, 5) == [IDLE, IDLE]


def test_rm_removes_jobs_into_the_history_and_says_which_it_could_not(pool):
    result = run(pool, "rm", "5.1", "9.9", code=1)
    assert result.stdout == "Job 5.1 marked for removal\n"
    assert result.stderr == "Job 9.9 not found\n"
    assert status_of(pool, 5) == [IDLE]
    removed = pool.history()[0]
    assert (removed["ClusterId"], removed["ProcId"], removed["JobStatus"]) == (5, 1, REMOVED)
    assert run(pool, "rm", "77", code=1).stderr == "Couldn't find/remove all jobs in cluster 77\n"
    out = run(pool, "rm", "5", "77").stdout
    either = "(ClusterId == 5 || ClusterId == 77)"
    assert out == f"All jobs matching constraint {either} have been marked for removal\n"
    assert status_of(pool, 5) == []
    if ROOT:
        assert (
            run(pool, "rm", "alice").stdout
            == 'All jobs of user "alice" have been marked for removal\n'
        )
        assert pool.jobs('Owner == "alice"') == []
        assert (
            run(pool, "rm", "alice", code=1).stderr
            == "Couldn't find/remove all of user alice's jobs\n"
        )


def test_qedit_sets_attributes_and_refuses_protected_ones(pool):
    out = run(pool, "qedit", "4", "Foo", "40 + 2", 'Bar="x"').stdout
    assert (
        out
        == 'Set attribute "Foo" for 3 matching jobs.\nSet attribute "Bar" for 3 matching jobs.\n'
    )
    assert [(j.eval("Foo"), j["Bar"]) for j in pool.jobs("ClusterId == 4")] == [(42, "x")] * 3
    out = run(pool, "qedit", "-constraint", "ClusterId == 4 && ProcId == 2", "Foo", "7").stdout
    assert out == 'Set attribute "Foo" for 1 matching jobs.\n'
    assert [j.eval("Foo") for j in pool.jobs("ClusterId == 4")] == [42, 42, 7]
    refused = run(pool, "qedit", "4.1", "ClusterId", "9", code=1)
    assert refused.stderr.startswith('Update of attribute "ClusterId" is not allowed')
    assert refused.stderr.endswith("Transaction failed.  No attributes were set.\n")
    missing = run(pool, "qedit", "99", "Foo", "1", code=1)
    assert missing.stderr.startswith('Failed to set attribute "Foo"')
    bad = run(pool, "qedit", "4", "Foo", "1 +", code=1)
    assert bad.stderr.splitlines()[0] == "Update aborted, illegal value for : Foo"
    assert [j.eval("Foo") for j in pool.jobs("ClusterId == 4")] == [42, 42, 7]


# -- fairpool history ---------------------------------------------------------------------
def test_history_lists_finished_jobs_newest_first(pool):
    gone = pool.history()  # newest first
    lines = run(pool, "history").stdout.splitlines()
    assert lines[0].split() == ["ID", "OWNER", "SUBMITTED", "RUN_TIME", "ST", "COMPLETED", "CMD"]
    assert [line.split()[0] for line in lines[1:]] == [
        f"{j['ClusterId']}.{j['ProcId']}" for j in gone
    ]
    first = run(pool, "history", "-limit", "1", "-af:j", "JobStatus").stdout
    assert first == f"{gone[0]['ClusterId']}.{gone[0]['ProcId']} {gone[0]['JobStatus']}\n"
    done = run(pool, "history", "1", "-af", "JobStatus", "Cmd", "Args").stdout
    assert done == f"{COMPLETED} /bin/echo hello\n"
    only = run(pool, "history", "-constraint", "JobStatus == 4", "-match", "5", "-af:j", "Cmd")
    assert only.stdout == "1.0 /bin/echo\n"
    (ad,) = parse_ads(run(pool, "history", "-l", "1.0").stdout)
    assert ad["ExitCode"] == 0 and ad["ClusterId"] == 1


# -- fairpool status ----------------------------------------------------------------------
def test_status_lists_slots_and_their_summary(pool):
    slots = sorted(pool.slots(), key=lambda s: s["Name"])
    lines = run(pool, "status").stdout.splitlines()
    assert lines[0].split() == [
        "Name",
        "OpSys",
        "Arch",
        "State",
        "Activity",
        "LoadAv",
        "Mem",
        "ActvtyTime",
    ]
    rows = [line.split() for line in lines[2 : 2 + len(slots)]]
    assert [(r[0], r[3], r[4]) for r in rows] == [
        (s["Name"], s["State"], s["Activity"]) for s in slots
    ]
    assert lines[-1].split()[:2] == ["Total", str(len(slots))]
    total = run(pool, "status", "-total").stdout.splitlines()
    assert total[0].split()[:2] == ["Total", "Owner"] and total == lines[-len(total) :]
    one = slots[0]["Name"]
    assert run(pool, "status", one, "-af", "Name", "State").stdout == f"{one} {slots[0]['State']}\n"
    claimed = run(pool, "status", "-constraint", 'State == "Claimed"', "-af", "Name").stdout
    assert claimed.split() == [s["Name"] for s in slots if s["State"] == "Claimed"]
    (ad,) = parse_ads(run(pool, "status", "-l", one).stdout)
    assert ad["Name"] == one and ad["Memory"] == slots[0]["Memory"]


def test_status_of_the_daemons(pool):
    schedd = pool.get("/collector/ads", type="Scheduler")["ads"][0]
    row = run(pool, "status", "-schedd").stdout.splitlines()[2].split()
    jobs = [schedd[a] for a in ("TotalRunningJobs", "TotalIdleJobs", "TotalHeldJobs")]
    assert row == [schedd["Name"], schedd["Machine"], *map(str, jobs)]
    submitters = {ad["Name"] for ad in pool.get("/collector/ads", type="Submitter")["ads"]}
    rows = run(pool, "status", "-submitters").stdout.splitlines()[2 : 2 + len(submitters)]
    assert {r.split()[0] for r in rows} == submitters
    negotiator = run(pool, "status", "-negotiator").stdout.splitlines()
    assert negotiator[0].split()[:2] == ["Name", "LastCycleEnd"] and len(negotiator) == 3
    kinds = {line.split()[0] for line in run(pool, "status", "-any").stdout.splitlines()[2:]}
    # the negotiator's Accounting ads are among them, as condor_status -any shows them
    assert kinds == {
        *("Collector", "Scheduler", "Negotiator", "Machine", "DaemonMaster", "Submitter"),
        "Accounting",
    }


# -- fairpool userprio against the negotiator -----------------------------------------------
def test_userprio_shows_and_edits_the_live_negotiators_records(pool):
    submitter = pool.get("/schedd/jobs/2.0")["submitter"]
    listing = run(pool, "userprio", "-allusers").stdout
    assert any(line.split()[:1] == [submitter] for line in listing.splitlines())
    out = run(pool, "userprio", "-setfactor", submitter, "7").stdout
    assert out == f"The priority factor of {submitter} was set to 7.000000\n"
    assert pool.accountant()[submitter]["factor"] == 7.0
    row = next(
        line
        for line in run(pool, "userprio", "-allusers").stdout.splitlines()
        if line.startswith(submitter)
    )
    assert row.split()[2] == "7.00"
    # as condor_userprio: an edit creates the record of a submitter not seen yet
    new = run(pool, "userprio", "-setfactor", "nobody@nowhere", "2").stdout
    assert new == "The priority factor of nobody@nowhere was set to 2.000000\n"
    assert pool.accountant()["nobody@nowhere"]["factor"] == 2.0


# -- refusals and drain (last: it changes the slots) ----------------------------------------
def test_an_unreachable_pool_is_one_line_and_a_failure():
    result = CliRunner().invoke(main, ["q", "--pool", "http://127.0.0.1:1"])
    assert result.exit_code == 1
    assert result.stderr.startswith("fairpool: error: cannot reach http://127.0.0.1:1")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output


def test_drain_and_cancel_a_machine(pool):
    slot = pool.slots()[0]
    machine, address = slot["Machine"], slot["MyAddress"]
    # -fast: the running sleeps are killed (and wait again), so the slots drain at once
    out = run(pool, "drain", "-fast", "-verbose", "-reason", "test", machine).stdout.splitlines()
    assert out[0] == (
        f"Sent request to drain the startd {address} with {machine}. This only affects the "
        "single startd; any other startds running on the same host will not be drained."
    )
    assert out[1].startswith("\tRequest id: ")
    pool.wait(lambda: all(s["State"] == "Drained" for s in pool.slots()), 20, "the slots to drain")
    states = run(pool, "status", "-af", "State").stdout.split()
    assert states == ["Drained"] * len(pool.slots())
    assert (
        run(pool, "drain", "-cancel", machine).stdout
        == f"Sent request to cancel draining on {machine}\n"
    )
    pool.wait(
        lambda: not any(s["State"] == "Drained" for s in pool.slots()), 20, "draining to stop"
    )
    refused = run(pool, "drain", "-cancel", machine, code=1).stderr
    assert refused.startswith(f"Attempt to send CANCEL_DRAIN_JOBS to startd {address} failed: ")
    assert refused.count("\n") == 1
    assert "no startd on nowhere" in run(pool, "drain", "nowhere", code=1).stderr


def test_every_live_command_has_help():
    for command in ("q", "rm", "hold", "release", "qedit", "history", "status", "drain"):
        result = CliRunner().invoke(main, [command, "--help"])
        assert result.exit_code == 0 and "HTCondor's condor_" in result.output
