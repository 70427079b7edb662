"""HTCondor's own Python bindings (the ``htcondor`` wheel) as the client of a live fairpool
pool over CEDAR: every call the wheel makes to the collector, the schedd and the
negotiator, each compared with what the pool's HTTP API says.

One pool serves the whole module; the tests run in file order (each wheel script in its
own process, with a time limit: tests/wheel.py).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from livepool import LivePool
from wheel import WheelError, htcondor, wheel, wheel_hostname


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory):
    # the host named as the wheel names it (and so the schedd), for its default Schedd()
    directory = tmp_path_factory.mktemp("cedar") / "pool"
    with LivePool(directory, NUM_CPUS=2, FULL_HOSTNAME=wheel_hostname()) as live:
        yield live


@pytest.fixture
def run(pool: LivePool, tmp_path: Path):
    return lambda script, **kw: wheel(pool.cedar_address(), script, tmp_path, **kw)


def _names(ads: list[dict]) -> list[str]:
    return sorted(str(ad.get("Name")) for ad in ads)


# -- the collector --------------------------------------------------------------------------
def test_the_pool_advertises_its_cedar_address(pool: LivePool):
    address = pool.cedar_address()
    port = address.split(":")[1].split("?")[0]
    assert address == f"<127.0.0.1:{port}?addrs=127.0.0.1-{port}>"
    for kind in ("Collector", "Scheduler", "Negotiator", "Machine", "DaemonMaster"):
        ads = pool.get("/collector/ads", type=kind, projection="MyAddress,CondorVersion")["ads"]
        assert ads and all(ad["MyAddress"] == address for ad in ads), kind
        assert all(ad["CondorVersion"].startswith("$CondorVersion: ") for ad in ads)


def test_collector_query_of_every_ad_type_matches_the_http_api(pool: LivePool, run):
    found = run(
        """
        c = htcondor2.Collector(ADDRESS)
        T = htcondor2.AdTypes
        kinds = {"Machine": T.Startd, "Scheduler": T.Schedd, "Negotiator": T.Negotiator,
                 "Collector": T.Collector, "DaemonMaster": T.Master, "Submitter": T.Submitter,
                 "Any": T.Any}
        out({k: ads(c.query(t, projection=["Name", "MyType"])) for k, t in kinds.items()})
        """
    )
    for kind, ads in found.items():
        expected = pool.get("/collector/ads", type=kind, projection="Name")["ads"]
        assert _names(ads) == _names(expected), kind
        assert all(set(ad) <= {"Name", "MyType"} for ad in ads), "the projection is the server's"
    assert len(found["Machine"]) == 2 and len(found["Any"]) >= 6


def test_collector_constraint_and_projection_are_applied_by_the_server(pool: LivePool, run):
    found = run(
        """
        c = htcondor2.Collector(ADDRESS)
        out(ads(c.query(htcondor2.AdTypes.Startd, constraint='SlotID == 2',
                        projection=["Name", "Cpus", "Memory"])))
        """
    )
    (http,) = pool.get(
        "/collector/ads", type="Machine", constraint="SlotID == 2", projection="Name,Cpus,Memory"
    )["ads"]
    assert found == [http]


def test_locate_and_locate_all(pool: LivePool, run):
    found = run(
        """
        c = htcondor2.Collector(ADDRESS)
        D = htcondor2.DaemonType
        out({"schedd": plain(c.locate(D.Schedd)), "negotiator": plain(c.locate(D.Negotiator)),
             "startds": ads(c.locateAll(D.Startd))})
        """
    )
    (schedd,) = pool.get("/collector/ads", type="Scheduler")["ads"]
    assert found["schedd"]["Name"] == schedd["Name"]
    assert found["schedd"]["MyAddress"] == pool.cedar_address()
    assert found["schedd"]["CondorVersion"] == schedd["CondorVersion"]
    assert found["negotiator"]["MyAddress"] == pool.cedar_address()
    assert _names(found["startds"]) == _names(pool.get("/collector/ads", type="Machine")["ads"])


def test_advertise_updates_and_invalidates(pool: LivePool, run):
    run(
        """
        c = htcondor2.Collector(ADDRESS)
        c.advertise([classad2.ClassAd({"MyType": "Generic", "Name": "probe", "Value": 7})],
                    "UPDATE_AD_GENERIC")
        c.advertise([classad2.ClassAd({"MyType": "Machine", "Name": "slot1@elsewhere",
                                        "Cpus": 4, "State": "Owner"}),
                     classad2.ClassAd({"MyType": "Machine", "Name": "slot2@elsewhere",
                                        "Cpus": 4, "State": "Owner"})])
        out(True)
        """
    )
    # the wheel returns before the collector has read the ads (spec/cedar.md)
    pool.wait(lambda: len(pool.slots('regexp("elsewhere", Name)')) == 2, 10, "the updates")
    (generic,) = pool.get("/collector/ads", type="Generic")["ads"]
    assert generic["Name"] == "probe" and generic["Value"] == 7
    run(
        """
        c = htcondor2.Collector(ADDRESS)
        ad = classad2.ClassAd({"MyType": "Query", "TargetType": "Machine",
                               "Requirements": classad2.ExprTree('Name == "slot1@elsewhere"')})
        c.advertise([ad], "INVALIDATE_STARTD_ADS")
        out(True)
        """
    )
    pool.wait(lambda: len(pool.slots('regexp("elsewhere", Name)')) == 1, 10, "the invalidation")
    assert [s["Name"] for s in pool.slots('regexp("elsewhere", Name)')] == ["slot2@elsewhere"]
    pool.post("/collector/invalidate", {"type": "Machine", "names": ["slot2@elsewhere"]})


# -- the schedd -----------------------------------------------------------------------------
_LOCATE = "htcondor2.Collector(ADDRESS).locate(htcondor2.DaemonType.{})"
_SCHEDD = f"s = htcondor2.Schedd({_LOCATE.format('Schedd')})\n"


def test_submit_runs_to_completion_and_appears_in_history(pool: LivePool, run):
    found = run(
        """
        sub = htcondor2.Submit({"executable": "/bin/echo", "arguments": "hello $(ProcId)",
                                "output": "out.$(ProcId)", "request_memory": "16"})
        result = s.submit(sub, count=2)
        out([result.cluster(), result.num_procs()])
        """,
        connect=_SCHEDD,
    )
    cluster, procs = found
    assert procs == 2
    jobs = {f"{h['ClusterId']}.{h['ProcId']}": h for h in _history(pool, cluster, 2)}
    assert sorted(jobs) == [f"{cluster}.0", f"{cluster}.1"]
    assert all(job["JobStatus"] == 4 and job["ExitCode"] == 0 for job in jobs.values())
    assert {job["Owner"] for job in jobs.values()} == {pool.get("/schedd/submit-info")["owner"]}
    history = run(
        f"""
        out(ads(s.history(constraint="ClusterId == {cluster}",
                          projection=["ClusterId", "ProcId", "JobStatus", "ExitCode"])))
        """,
        connect=_SCHEDD,
    )
    assert sorted((h["ProcId"], h["JobStatus"], h["ExitCode"]) for h in history) == [
        (0, 4, 0),
        (1, 4, 0),
    ]
    assert all(set(h) == {"ClusterId", "ProcId", "JobStatus", "ExitCode"} for h in history)
    limited = run("out(ads(s.history('true', ['ProcId'], match=1)))", connect=_SCHEDD)
    assert len(limited) == 1
    # since: back to (not including) the record a job id names, newest first
    newest, older = pool.get("/schedd/history", projection="ClusterId,ProcId")["ads"][:2]
    since = run(
        f"out(ads(s.history('true', ['ClusterId', 'ProcId'], since='{older['ClusterId']}."
        f"{older['ProcId']}')))",
        connect=_SCHEDD,
    )
    assert since == [newest]
    by_http = pool.get(
        "/schedd/history",
        projection="ClusterId,ProcId",
        since=f"ClusterId == {older['ClusterId']} && ProcId == {older['ProcId']}",
    )["ads"]
    assert by_http == [newest]


def _history(pool: LivePool, cluster: int, count: int) -> list[dict]:
    def done() -> list[dict]:
        ads = pool.get("/schedd/history", constraint=f"ClusterId == {cluster}")["ads"]
        return ads if len(ads) == count else []

    return pool.wait(done, 60, f"cluster {cluster} to finish")


def test_schedd_query_edit_and_act_agree_with_the_http_api(pool: LivePool, run, tmp_path: Path):
    pool.submit("executable = /bin/sleep\narguments = 300\nqueue 3\n", tmp_path / "jobs")
    cluster = max(job["ClusterId"] for job in pool.jobs())
    found = run(
        f"""
        out(ads(s.query(constraint="ClusterId == {cluster} && ProcId >= 1",
                        projection=["ClusterId", "ProcId", "Cmd"])))
        """,
        connect=_SCHEDD,
    )
    http = pool.get(
        "/schedd/jobs",
        constraint=f"ClusterId == {cluster} && ProcId >= 1",
        projection="ClusterId,ProcId,Cmd",
    )["ads"]
    assert all(abs(job.pop("ServerTime") - time.time()) < 60 for job in found)
    assert sorted(found, key=str) == sorted(http, key=str) and len(found) == 2

    edited = run(
        f"""
        by_constraint = s.edit("ClusterId == {cluster}", "Colour", '"blue"')
        by_ids = s.edit(["{cluster}.0", "{cluster}.1"], "Size", "3")
        try:
            s.edit("ClusterId == {cluster}", "ClusterId", "7")
            refused = None
        except Exception as err:
            refused = str(err)
        out([int(by_constraint), int(by_ids), refused])
        """,
        connect=_SCHEDD,
    )
    assert edited[:2] == [3, 2] and "Unable to edit" in edited[2]
    jobs = {job["ProcId"]: job for job in pool.jobs(f"ClusterId == {cluster}")}
    assert {j["Colour"] for j in jobs.values()} == {"blue"}
    assert [jobs[p].get("Size") for p in (0, 1, 2)] == [3, 3, None]

    acted = run(
        f"""
        A = htcondor2.JobAction
        hold = s.act(A.Hold, ["{cluster}.0", "{cluster}.1", "{cluster}.9"])
        release = s.act(A.Release, "ClusterId == {cluster} && ProcId == 1")
        remove = s.act(A.Remove, "ClusterId == {cluster}")
        out([dict(hold), dict(release), dict(remove)])
        """,
        connect=_SCHEDD,
    )
    hold, release, remove = acted
    assert (hold["TotalSuccess"], hold["TotalNotFound"], hold["TotalJobAds"]) == (2, 1, 3)
    assert (release["TotalSuccess"], release["TotalJobAds"]) == (1, 1)
    assert (remove["TotalSuccess"], remove["TotalJobAds"]) == (3, 3)
    assert pool.jobs(f"ClusterId == {cluster}") == []
    removed = pool.get("/schedd/history", constraint=f"ClusterId == {cluster}")["ads"]
    assert sorted(ad["JobStatus"] for ad in removed) == [3, 3, 3]


def test_a_job_may_not_name_an_owner_other_than_its_clusters(pool: LivePool):
    """The schedd core checks the cluster's Owner against the submitting user; a job's
    own Owner may not differ from it (whichever front end the submission came by)."""
    info = pool.get("/schedd/submit-info")
    cluster = {"Owner": info["owner"], "Cmd": "/bin/true", "JobUniverse": 5}
    body = {
        "first_cluster": info["next_cluster"],
        "clusters": [{"ad": cluster, "procs": [{"ProcId": 0, "Owner": "someone-else"}]}],
    }
    response = pool.http.post(f"{pool.url}/schedd/submit", json=body)
    assert response.status_code == 403
    assert "an Owner other than its cluster's" in response.json()["error"]["message"]


# -- the negotiator -------------------------------------------------------------------------
_NEGOTIATOR = f"n = htcondor2.Negotiator({_LOCATE.format('Negotiator')})\n"


def test_negotiator_edits_and_priorities_agree_with_the_http_api(pool: LivePool, run):
    found = run(
        """
        n.setFactor("alice@example.org", 5.0)
        n.setPriority("alice@example.org", 7.25)
        n.setUsage("alice@example.org", 100.5)
        n.setBeginUsage("alice@example.org", 1000)
        n.setLastUsage("alice@example.org", 2000)
        n.setCeiling("alice@example.org", 4)
        n.setFactor("bob@example.org", 2.0)
        n.setFactor("carol@example.org", 3.0)
        n.deleteUser("carol@example.org")
        out(True)
        """,
        connect=_NEGOTIATOR,
    )
    assert found is True  # the edits have no answer
    # the edits have no answer either: wait for the last of them (the deletion)
    records = _accountant_when(
        pool,
        lambda r: "bob@example.org" in r and "carol@example.org" not in r,
        "the edits, the last one the deletion",
    )
    alice, bob = records["alice@example.org"], records["bob@example.org"]
    assert (alice["factor"], alice["priority"], alice["weighted_accumulated_usage"]) == (
        5.0,
        7.25,
        100.5,
    )
    assert (alice["begin_usage_time"], alice["last_usage_time"], alice["ceiling"]) == (
        1000,
        2000,
        4,
    )
    assert bob["factor"] == 2.0

    listed = run("out([ads(n.getPriorities()), ads(n.getPriorities(True))])", connect=_NEGOTIATOR)
    for records_seen in listed:
        by_name = {r["Name"]: r for r in records_seen}
        for name, record in pool.accountant().items():
            seen = by_name[name]
            assert seen["PriorityFactor"] == record["factor"]
            assert seen["Priority"] == pytest.approx(record["priority"])
            assert seen["Ceiling"] == record["ceiling"]
            assert seen["IsAccountingGroup"] is False
        assert set(by_name) == set(pool.accountant())

    run(
        """
        n.resetUsage("alice@example.org")
        out(True)
        """,
        connect=_NEGOTIATOR,
    )
    records = _accountant_when(
        pool, lambda r: r["alice@example.org"]["weighted_accumulated_usage"] == 0, "the reset"
    )
    assert records["alice@example.org"]["begin_usage_time"] > time.time() - 60


def _accountant_when(pool: LivePool, condition, what: str) -> dict:
    """The accountant's records once ``condition`` holds of them (edits have no answer)."""

    def records() -> dict:
        found = pool.accountant()
        return found if condition(found) else {}

    return pool.wait(records, 10, what)


def test_resource_usage_lists_the_slots_a_submitter_holds(pool: LivePool, run, tmp_path: Path):
    pool.submit("executable = /bin/sleep\narguments = 300\nqueue 1\n", tmp_path / "one")
    slot = pool.wait(lambda: pool.slots('State == "Claimed"'), 30, "a claimed slot")[0]
    user = slot["RemoteUser"]
    used = run(f"out(ads(n.getResourceUsage({user!r})))", connect=_NEGOTIATOR)
    assert [u["Name"] for u in used] == [slot["Name"]]
    assert run("out(ads(n.getResourceUsage('nobody@nowhere')))", connect=_NEGOTIATOR) == []
    pool.post("/schedd/act", {"action": "remove", "constraint": "true"})


# -- security -------------------------------------------------------------------------------
def test_a_client_requiring_integrity_is_refused_not_served_in_plaintext(pool: LivePool, run):
    script = "out(len(htcondor2.Collector(ADDRESS).query(htcondor2.AdTypes.Collector)))"
    assert run(script) == 1
    for knob in ("SEC_CLIENT_INTEGRITY", "SEC_CLIENT_ENCRYPTION"):
        with pytest.raises(WheelError, match="Failed communication with collector"):
            run(script, env={f"_CONDOR_{knob}": "REQUIRED"})
    log = (pool.directory / "log" / "CedarLog").read_text()
    assert "offers no authentication and integrity on its CEDAR port" in log
    assert "encryption" in log


# -- the htcondor command-line tool ---------------------------------------------------------
def test_the_htcondor_tool(pool: LivePool, tmp_path: Path):
    collector = pool.cedar_address().split("?")[0].strip("<")
    assert "Good" in htcondor(collector, "cm", "status", cwd=tmp_path)
    (schedd,) = pool.get("/collector/ads", type="Scheduler")["ads"]
    listed = htcondor(collector, "ap", "status", cwd=tmp_path).splitlines()
    assert listed[0].split() == ["Access", "Point", "Health", "DutyCycle"]
    assert listed[1].split()[:2] == [schedd["Machine"], "Good"]
    machine = pool.slots()[0]["Machine"]
    slots = htcondor(collector, "ep", "status", machine, cwd=tmp_path)
    assert all(slot["Name"] in slots for slot in pool.slots())
    (tmp_path / "hello.sub").write_text(
        "executable = /bin/echo\narguments = hello\noutput = hello.out\n"
        "request_memory = 16\nqueue\n"
    )
    submitted = htcondor(collector, "job", "submit", "hello.sub", cwd=tmp_path)
    cluster = int(submitted.split("Job ")[1].split()[0])
    _history(pool, cluster, 1)
    status = htcondor(collector, "job", "status", f"{cluster}.0", cwd=tmp_path)
    assert f"Job {cluster}.0 has completed." in status
    assert (tmp_path / "hello.out").read_text() == "hello\n"
