"""A pool in two processes, as on two machines: a central manager (collector,
negotiator, startd) and a submit host (its own master running only a schedd, found
through COLLECTOR_HOST). A job submitted at the submit host runs at the manager's
startd; each process publishes its own daemons' OpenAPI schemas."""

from __future__ import annotations

from pathlib import Path

from livepool import LivePool


def test_a_schedd_in_its_own_process_runs_jobs_through_the_central_manager(tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    manager_knobs = {"DAEMON_LIST": "MASTER, COLLECTOR, NEGOTIATOR, STARTD", "NUM_CPUS": 1}
    with LivePool(tmp_path / "manager", **manager_knobs) as manager:
        address = manager.url.split("//")[1]
        host_knobs = {"DAEMON_LIST": "MASTER, SCHEDD", "COLLECTOR_HOST": address}
        submit_host = LivePool(tmp_path / "submit", **host_knobs)
        submit_host.start(wait_for_slots=False)
        try:
            assert submit_host.url != manager.url  # two processes, two ports
            out = manager.submit("executable = /bin/echo\narguments = hi\nqueue\n", work)
            assert "1 job(s) submitted to cluster 1." in out
            schedd = manager.get("/collector/ads", type="Scheduler")["ads"][0]
            assert schedd["ApiAddress"].startswith(submit_host.url)
            manager.wait(lambda: submit_host.get("/schedd/history")["ads"], 60, "the job to finish")
            record = submit_host.get("/schedd/history")["ads"][0]
            assert record["ExitCode"] == 0 and record["RemoteHost"].startswith("slot1@")
            schemas = {
                name: submit_host.get(f"/{name}/openapi.json")["info"]["title"]
                for name in ("schedd", "master")
            }
            assert schemas == {"schedd": "fairpool schedd", "master": "fairpool master"}
            assert "/ads" in manager.get("/collector/openapi.json")["paths"]
        finally:
            submit_host.stop()
