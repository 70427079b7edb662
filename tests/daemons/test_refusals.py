"""What the pool refuses, and how it says so: one line and a non-zero exit for a
command, a JSON error body with the status of daemons/errors.py for the API, and
nothing queued or changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from livepool import LivePool, events, fairpool


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    root = tmp_path_factory.mktemp("refusals")
    with LivePool(root / "pool", NUM_CPUS=1, START="False") as live:  # nothing runs
        yield live


def test_a_missing_executable_is_refused_at_submit_and_nothing_queued(pool, tmp_path: Path):
    (tmp_path / "job.sub").write_text("executable = no_such_program\nqueue 2\n")
    refused = fairpool("submit", "job.sub", "--pool", pool.url, cwd=tmp_path, check=False)
    assert refused.returncode == 1
    missing = tmp_path / "no_such_program"
    assert refused.stderr == f"fairpool: error: Executable file {missing} does not exist\n"
    assert not pool.jobs('Cmd =!= undefined && regexp("no_such_program", Cmd)')


def test_a_malformed_submit_file_names_its_line_and_queues_nothing(pool, tmp_path: Path):
    before = len(pool.jobs())
    (tmp_path / "bad.sub").write_text("executable = /bin/true\nrequest_memory = 3 parsecs\nqueue\n")
    refused = fairpool("submit", "bad.sub", "--pool", pool.url, cwd=tmp_path, check=False)
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1
    assert "bad.sub:2: request_memory = 3 parsecs" in refused.stderr
    assert len(pool.jobs()) == before


def test_an_executable_gone_before_the_job_runs_holds_the_job(tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    program = work / "vanishes.sh"
    program.write_text("#!/bin/sh\necho never\n")
    program.chmod(0o755)
    submit = "executable = vanishes.sh\nshould_transfer_files = NO\nlog = job.log\nqueue\n"
    with LivePool(tmp_path / "pool", NUM_CPUS=1, START="False") as live:
        live.submit(submit, work)
        os.unlink(program)
        live.set_knobs(START="True")
        held = live.wait(lambda: live.jobs("JobStatus == 5"), 30, "the job held")[0]
    assert held["HoldReasonCode"] == 6  # FailedToCreateProcess
    assert held["HoldReasonSubCode"] == 2  # ENOENT
    assert str(program) in held["HoldReason"]
    assert events(work / "job.log")["1.0"] == [0, 1, 12]


def test_commands_on_jobs_that_are_not_there_fail_with_one_line(pool):
    gone = fairpool("rm", "77.3", "--pool", pool.url, check=False)
    assert gone.returncode == 1 and gone.stderr.strip().count("\n") == 0
    assert "77.3" in gone.stderr
    edit = fairpool("qedit", "77.3", "Foo", "1", "--pool", pool.url, check=False)
    assert edit.returncode == 1 and "77.3" in edit.stderr


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "code"),
    [
        ("GET", "/schedd/jobs/99.9", None, 404, "not_found"),
        ("POST", "/schedd/act", {"action": "explode", "jobs": ["1.0"]}, 400, "bad_request"),
        ("GET", "/schedd/jobs?constraint=1%20%2B", None, 400, "bad_request"),
        (
            "POST",
            "/schedd/edit",
            {"constraint": "true", "attribute": "Owner", "value": '"x"'},
            403,
            "forbidden",
        ),
        ("POST", "/schedd/submit", {"first_cluster": 10**6, "clusters": []}, 409, "conflict"),
        ("POST", "/collector/update", {"ads": [{"MyType": "Machine"}]}, 400, "bad_request"),
        (
            "POST",
            "/startd/claim",
            {"slot": "slot1@x", "claim_id": "forged", "schedd": "s", "request": {}},
            404,
            "not_found",
        ),
        ("POST", "/negotiator/accountant", {"version": -1, "changed": []}, 409, "conflict"),
        ("POST", "/schedd/matches", {"matches": "many"}, 400, "bad_request"),
    ],
)
def test_api_refusals_are_json_errors_with_their_status(pool, method, path, body, status, code):
    response = pool.http.request(method, f"{pool.url}{path}", json=body)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code and error["message"]


def test_a_claim_needs_the_claim_id_the_negotiator_gave(pool):
    slot = pool.slots()[0]
    body = {"slot": slot["Name"], "claim_id": "forged", "schedd": "x", "request": {}}
    response = pool.http.post(f"{slot['ApiAddress']}/claim", json=body)
    assert response.status_code == 403
    assert pool.slots()[0]["State"] == "Unclaimed"


def test_a_cluster_without_jobs_is_refused_and_nothing_queued(pool):
    """A submission whose cluster has no jobs (HTTP, or a CEDAR transaction committed
    after NewCluster alone) is a 400 naming the cluster; the queue and the next cluster
    number are as they were."""
    info = pool.get("/schedd/submit-info")
    before = pool.get("/schedd/jobs")["ads"]
    body = {
        "first_cluster": info["next_cluster"],
        "clusters": [{"ad": {"Owner": info["owner"], "Cmd": "/bin/true"}, "procs": []}],
    }
    response = pool.http.post(f"{pool.url}/schedd/submit", json=body)
    assert response.status_code == 400, response.text
    message = response.json()["error"]["message"]
    assert f"cluster {info['next_cluster']}: expected at least one job" in message
    assert pool.get("/schedd/jobs")["ads"] == before
    assert pool.get("/schedd/submit-info")["next_cluster"] == info["next_cluster"]
