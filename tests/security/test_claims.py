"""A startd takes a claim only with the claim id it made, which only the negotiator can
read (the collector gives private attributes at NEGOTIATOR) and hands to the schedd
with its match: a guessed id, another slot's, or one already used is refused (403) with
nothing changed. And in a pool that requires tokens, a job still runs from submit to
history: its daemons authenticate to each other with tokens of their own."""

from __future__ import annotations

from pathlib import Path

import pytest

from livepool import LivePool, fairpool
from securepool import SECURED, Tokens


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    root = tmp_path_factory.mktemp("claims")
    tokens = Tokens(root / "pool")
    knobs = {**SECURED, "NEGOTIATOR_INTERVAL": 1, "UPDATE_INTERVAL": 100_000}
    with LivePool(root / "pool", token=tokens.admin, **knobs) as live:
        live.tokens = tokens  # type: ignore[attr-defined]
        live.root = root  # type: ignore[attr-defined]
        yield live


def claim_ids(pool: LivePool) -> dict[str, str]:
    """Each slot's claim id, read as the negotiator reads it."""
    found = pool.http.get(
        f"{pool.url}/collector/ads",
        params={"type": "Machine", "private": "true"},
        headers={"authorization": f"Bearer {pool.tokens.daemon}"},
    ).json()["ads"]
    return {ad["Name"]: ad["ClaimId"] for ad in found}


def claim(pool: LivePool, slot: str, claim_id: str):
    request = {"MyType": "Job", "Owner": "alice", "RequestCpus": 1, "RequestMemory": 1}
    body = {"slot": slot, "claim_id": claim_id, "request": request, "schedd": pool.url}
    headers = {"authorization": f"Bearer {pool.tokens.daemon}"}
    return pool.http.post(f"{pool.url}/startd/claim", json=body, headers=headers)


def slot_states(pool: LivePool) -> dict[str, str]:
    return {ad["Name"]: ad["State"] for ad in pool.get("/startd/slots")["ads"]}


def test_only_the_claim_id_of_the_match_claims_its_slot(pool) -> None:
    ids = claim_ids(pool)
    first, second = sorted(ids)
    assert set(slot_states(pool).values()) == {"Unclaimed"}
    reader = pool.http.get(f"{pool.url}/collector/ads", params={"private": "true"})
    assert reader.status_code == 403  # the administrator is no negotiator
    for slot, forged in ((first, "guessed"), (first, ids[second]), (first, "")):
        refused = claim(pool, slot, forged)
        assert refused.status_code in (400, 403), refused.text
        assert set(slot_states(pool).values()) == {"Unclaimed"}
    refused = claim(pool, first, "guessed")
    assert refused.status_code == 403
    assert "not the one the negotiator gave" in refused.json()["error"]["message"]
    taken = claim(pool, first, ids[first])
    assert taken.status_code == 200 and taken.json()["accepted"], taken.text
    states = slot_states(pool)
    again = claim(pool, first, ids[first])  # a match is good for one claim
    assert again.status_code == 403
    assert slot_states(pool) == states and states[first] == "Claimed"
    release = pool.http.post(
        f"{pool.url}/startd/release",
        json={"claim": taken.json()["claim"]},
        headers={"authorization": f"Bearer {pool.tokens.daemon}"},
    )
    assert release.json() == {"released": True}
    pool.wait(lambda: set(slot_states(pool).values()) == {"Unclaimed"}, 10, "the release")


def test_a_job_runs_through_daemons_that_authenticate_with_tokens(pool) -> None:
    """Submitted with a token for root@matrix.test (the job runs as its Owner, and this
    test runs as root), found in the command's SEC_TOKEN_DIRECTORY."""
    root: Path = pool.root
    log = root / "pool" / "log" / "MasterLog"
    seen = len(log.read_text())
    folder = root / "tokens"
    folder.mkdir()
    (folder / "mine").write_text(pool.tokens.make("root") + "\n")
    (root / "job.sub").write_text(
        f"executable = /bin/echo\narguments = hi\noutput = {root}/out\nqueue\n"
    )
    environment = {"_CONDOR_SEC_TOKEN_DIRECTORY": str(folder)}
    fairpool("submit", "job.sub", "--pool", pool.url, cwd=root, env=environment)
    pool.wait(lambda: pool.history(), 60, "the job to finish")
    job = pool.history()[0]
    assert (job["Owner"], job["JobStatus"], job["ExitCode"]) == ("root", 4, 0)
    assert (root / "out").read_text() == "hi\n"
    assert "refused" not in log.read_text()[seen:]  # no daemon was turned away on the way


def test_commands_say_in_one_line_who_is_refused(pool) -> None:
    root: Path = pool.root
    tokens = {}
    for user in ("root", "bob"):
        folder = root / f"{user}.d"
        folder.mkdir()
        (folder / user).write_text(pool.tokens.make(user) + "\n")
        tokens[user] = {"_CONDOR_SEC_TOKEN_DIRECTORY": str(folder)}
    nobody = fairpool("q", "--pool", pool.url, check=False)
    assert nobody.returncode == 1
    assert nobody.stderr.startswith("fairpool: error: GET /collector/ads needs an authenticated")
    assert len(nobody.stderr.splitlines()) == 1
    (root / "idle.sub").write_text("executable = /bin/true\nrequirements = false\nqueue\n")
    fairpool("submit", "idle.sub", "--pool", pool.url, cwd=root, env=tokens["root"])
    (job,) = pool.jobs()
    name = f"{job['ClusterId']}.0"
    refused = fairpool("rm", name, "--pool", pool.url, env=tokens["bob"], check=False)
    assert (refused.returncode, refused.stderr) == (1, f"Permission denied to remove job {name}\n")
    cluster = fairpool(
        "rm", str(job["ClusterId"]), "--pool", pool.url, env=tokens["bob"], check=False
    )
    assert cluster.stderr == f"Couldn't find/remove all jobs in cluster {job['ClusterId']}\n"
    assert pool.jobs() == [job]
    done = fairpool("rm", name, "--pool", pool.url, env=tokens["root"])
    assert done.stdout == f"Job {name} marked for removal\n"
