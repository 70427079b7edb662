"""The wheel against a pool in two processes (a central manager, and a submit host
running only a schedd): each process has its own CEDAR listener, and the schedd's ad
in the manager's collector names the submit host's, so ``Schedd(locate(...))`` reaches
the right process (the jobs are held: tests/daemons/test_split.py runs one across the
processes)."""

from __future__ import annotations

from pathlib import Path

from livepool import LivePool
from wheel import wheel


def test_the_wheel_finds_a_schedd_in_another_process(tmp_path: Path):
    manager_knobs = {"DAEMON_LIST": "MASTER, COLLECTOR, NEGOTIATOR, STARTD", "NUM_CPUS": 1}
    with LivePool(tmp_path / "manager", **manager_knobs) as manager:
        address = manager.url.split("//")[1]
        host_knobs = {"DAEMON_LIST": "MASTER, SCHEDD", "COLLECTOR_HOST": address}
        submit_host = LivePool(tmp_path / "submit", **host_knobs)
        submit_host.start(wait_for_slots=False)
        try:
            assert submit_host.cedar_address() != manager.cedar_address()
            manager.wait(
                lambda: manager.get("/collector/ads", type="Scheduler")["ads"], 20, "the schedd"
            )
            found = wheel(
                manager.cedar_address(),
                """
                c = htcondor2.Collector(ADDRESS)
                ad = c.locate(htcondor2.DaemonType.Schedd)
                s = htcondor2.Schedd(ad)
                sub = htcondor2.Submit({"executable": "/bin/true", "hold": "true"})
                cluster = s.submit(sub, count=2).cluster()
                out([ad["MyAddress"], cluster, ads(s.query("true", ["ClusterId", "ProcId"]))])
                """,
                tmp_path / "work",
            )
            assert found[0] == submit_host.cedar_address()
            cluster, queued = found[1], found[2]
            assert sorted(j["ProcId"] for j in queued) == [0, 1]
            in_queue = submit_host.get("/schedd/jobs", projection="ClusterId,JobStatus")["ads"]
            assert in_queue == [{"ClusterId": cluster, "JobStatus": 5}] * 2
        finally:
            submit_host.stop()
