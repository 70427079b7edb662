"""Must-show 2 of issue 17, the authorization matrix: every endpoint of every daemon,
listed from the application the master builds (so a route added later is in it), is
called with no token, a token signed by another key, an expired token and a good token
of too low a level (and, for the job commands, another user's token): each answers 401
or 403, and the pool's state (queue, history, accountant, ads, slots, the daemons'
last runs, the configuration in force) is as it was, also a moment later. Then the
right token is let through to each.

One pool runs every daemon and requires tokens; nothing happens in it unless asked
(every interval is long, alice's jobs can never match).
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from fairpool.security.levels import Level
from fairpool.security.routes import HTTP_LEVELS, served_routes
from livepool import LivePool, fairpool
from securepool import SECURED, Tokens, every_route_app

READ, WRITE, ADMINISTRATOR, DAEMON, NEGOTIATOR = list(Level)
QUIET = 100_000  # seconds: no timer fires during the test
KNOBS = {
    **SECURED,
    "DAEMON_LIST": "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, STARTD, DEFRAG, GANGLIAD, ADSTASH",
    "NEGOTIATOR_INTERVAL": QUIET,
    "NEGOTIATOR_MIN_INTERVAL": 0,
    "UPDATE_INTERVAL": QUIET,
    "SCHEDD_INTERVAL": QUIET,
    "PERIODIC_EXPR_INTERVAL": QUIET,
    "DEFRAG_INTERVAL": QUIET,
    "DEFRAG_UPDATE_INTERVAL": QUIET,
    "GANGLIAD_INTERVAL": QUIET,
    "GANGLIA_SEND_DATA_FOR_ALL_HOSTS": True,
    "ADSTASH_SAMPLE_INTERVAL": QUIET,
    "ADSTASH_INTERFACE": "jsonfile",
    "KEEP_POOL_HISTORY": True,
    "POOL_HISTORY_SAMPLING_INTERVAL": QUIET,
    "CLASSAD_LIFETIME": QUIET,
}
# who holds each level (and no higher one the route could need) in the pool above
RIGHT = {READ: "alice", WRITE: "alice", ADMINISTRATOR: "admin", DAEMON: "condor"}
RIGHT[NEGOTIATOR] = "condor"
BARE = httpx.Client(timeout=30)  # none of the pool fixture's headers
STATIC = next(p.name for p in (Path(__file__).parents[2] / "src/fairpool/web/static").iterdir())


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    root = tmp_path_factory.mktemp("matrix")
    tokens = Tokens(root / "pool")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))  # gmond's port: nothing listens once it closes
        port = probe.getsockname()[1]
    (root / "gmond.conf").write_text(
        f"udp_send_channel {{\n host = 127.0.0.1\n port = {port}\n}}\n"
    )
    knobs = {**KNOBS, "GANGLIA_CONFIG": root / "gmond.conf"}
    with LivePool(root / "pool", token=tokens.admin, **knobs) as live:
        live.tokens = tokens  # type: ignore[attr-defined]
        live.root = root  # type: ignore[attr-defined]
        _alices_jobs(live, root, tokens)
        # written, not read: a reconfig shows as gangliad's interval (state() reads it)
        live.config.write_text(live.config.read_text() + f"GANGLIAD_INTERVAL = {QUIET - 1}\n")
        # the daemons' first runs are over before anything is compared
        live.wait(lambda: live.get("/adstash/status")["last"], 30, "adstash's first run")
        live.wait(lambda: live.get("/gangliad/status")["last"], 30, "gangliad's first run")
        yield live


def _alices_jobs(pool: LivePool, root: Path, tokens: Tokens) -> None:
    """Two jobs of alice's that no slot will take, submitted with her token by the
    command, which finds it in its SEC_TOKEN_DIRECTORY."""
    folder = root / "alice-tokens"
    folder.mkdir()
    (folder / "mine").write_text(f"# alice's\n{tokens.make('alice')}\n")
    (root / "job.sub").write_text("executable = /bin/true\nrequirements = false\nqueue 2\n")
    environment = {"_CONDOR_SEC_TOKEN_DIRECTORY": str(folder)}
    out = fairpool("submit", "job.sub", "--pool", pool.url, cwd=root, env=environment).stdout
    assert out.endswith("2 job(s) submitted to cluster 1.\n")
    assert {job["Owner"] for job in pool.jobs()} == {"alice"}


def state(pool: LivePool) -> dict[str, Any]:
    """What a request could change, read with the administrator's token."""
    ads = pool.get("/collector/ads", type="Any")["ads"]
    return {
        "jobs": pool.get("/schedd/jobs")["ads"],
        "history": pool.get("/schedd/history")["ads"],
        "accountant": pool.get("/negotiator/accountant"),
        "cycles": len(pool.get("/negotiator/cycles", last=1000)["cycles"]),
        "ads": sorted((a["MyType"], a["Name"], a.get("State"), a.get("Activity")) for a in ads),
        "slots": [(a["Name"], a["State"], a["Activity"]) for a in pool.get("/startd/slots")["ads"]],
        "defrag": pool.get("/defrag/status")["last"],
        "gangliad": pool.get("/gangliad/status"),
        "adstash": pool.get("/adstash/status"),
        "master": pool.get("/master/status")["pid"],
    }


def requests_of(pool: LivePool) -> dict[str, tuple[str, dict[str, Any]]]:
    """A request each route serves, well formed (path, and params or body)."""
    slot = pool.slots()[0]["Name"]
    job = {"MyType": "Job", "Owner": "alice", "RequestCpus": 1, "RequestMemory": 1}
    return {
        "POST /collector/update": ("", {"ads": [{"MyType": "Generic", "Name": "matrix"}]}),
        "POST /collector/invalidate": ("", {"type": "Generic", "names": ["matrix"]}),
        "GET /collector/history": ("", {"kind": "resource"}),
        "GET /collector/history/names": ("", {"kind": "resource"}),
        "GET /collector/ads": ("", {"type": "Machine"}),
        "POST /collector/query": ("", {"type": "Machine"}),
        "GET /negotiator/cycles": ("", {"last": 5}),
        "POST /negotiator/accountant": ("", {"version": -1, "changed": [], "deleted": []}),
        "POST /schedd/submit": ("", {"first_cluster": 0, "clusters": []}),
        "GET /schedd/jobs/{job}": ("/schedd/jobs/1.0", {}),
        "POST /schedd/act": ("", {"action": "hold", "jobs": ["1"]}),
        "POST /schedd/edit": ("", {"jobs": ["1"], "attribute": "Matrix", "value": "1"}),
        "POST /schedd/negotiate": ("", {"significant": ["RequestCpus"], "negotiator": "x"}),
        "POST /schedd/matches": ("", {"matches": [], "negotiator": "x"}),
        "POST /schedd/events": ("", {"events": []}),
        "POST /startd/claim": ("", {"slot": slot, "claim_id": "x", "request": job, "schedd": ""}),
        "POST /startd/activate": ("", {"claim": "x", "job": job}),
        "POST /startd/release": ("", {"claim": "x"}),
        "POST /startd/drain": ("", {"how": "graceful"}),
        "POST /startd/cancel-drain": ("", {}),
        "GET /dashboard/data/{name}": ("/dashboard/data/pool", {}),
        "GET /dashboard/job/{job_id}": ("/dashboard/job/1.0", {}),
        "GET /dashboard/data/job/{job_id}": ("/dashboard/data/job/1.0", {}),
        "GET /dashboard/simulation/{number}": ("/dashboard/simulation/0", {}),
        "GET /dashboard/data/simulation/{number}": ("/dashboard/data/simulation/0", {}),
        "GET /dashboard/static/{path:path}": (f"/dashboard/static/{STATIC}", {}),
    }


def call(pool: LivePool, route: str, token: str | None, request: tuple[str, dict]) -> Any:
    method, template = route.split(" ", 1)
    path, given = request
    headers = {"authorization": f"Bearer {token}"} if token else {}
    url = f"{pool.url}{path or template}"
    if method == "GET":
        return BARE.get(url, params=given, headers=headers)
    headers["content-type"] = "application/json"
    return BARE.post(url, content=json.dumps(given), headers=headers)


def too_low(tokens: Tokens, level: Level) -> str:
    """A good token of a caller who lacks ``level``."""
    if level is READ:
        return tokens.make("stranger", domain="elsewhere.test")  # in no ALLOW list
    if level is WRITE:
        return tokens.make("alice", scope=frozenset({READ}))
    return tokens.make("alice" if level is ADMINISTRATOR else "admin")


def test_every_endpoint_refuses_the_unproved_and_the_unentitled(pool, tmp_path: Path) -> None:
    tokens: Tokens = pool.tokens
    routes = sorted(f"{m} {p}" for m, p in served_routes(every_route_app(tmp_path)))
    assert len(routes) == len(HTTP_LEVELS) > 60
    requests = requests_of(pool)
    before = state(pool)
    refusals = 0
    for route in routes:
        level = HTTP_LEVELS[route]
        owner = RIGHT[level]
        attempts = {
            "no token": (None, 401),
            "another key's token": (tokens.wrong_key(owner), 401),
            "an expired token": (tokens.expired(owner), 401),
            f"a token without {level.value}": (too_low(tokens, level), 403),
        }
        if route in ("POST /schedd/act", "POST /schedd/edit", "POST /schedd/submit"):
            attempts["another user's token"] = (tokens.make("bob"), 403)
        for what, (token, status) in attempts.items():
            request = requests.get(route, ("", {}))
            if route == "POST /schedd/submit" and what == "another user's token":
                request = ("", _submission(pool, tokens, "alice"))
            answer = call(pool, route, token, request)
            assert answer.status_code == status, (route, what, answer.text)
            assert answer.json()["error"]["code"] in ("unauthenticated", "forbidden")
            if status == 401:
                assert answer.headers["www-authenticate"] == 'Bearer realm="matrix.test"'
            refusals += 1
        assert state(pool) == before, f"{route} changed the pool while refusing"
    private = call(pool, "GET /collector/ads", tokens.admin, ("", {"private": "true"}))
    assert private.status_code == 403 and "NEGOTIATOR" in private.json()["error"]["message"]
    time.sleep(1.0)  # what a refused request set going (a cycle, an update) would show now
    assert state(pool) == before
    assert refusals >= 4 * len(routes)


def _submission(pool: LivePool, tokens: Tokens, owner: str) -> dict[str, Any]:
    """A well-formed submission of one job owned by ``owner``."""
    info = call(pool, "GET /schedd/submit-info", tokens.make(owner), ("", {})).json()
    ad = {"Owner": owner, "Cmd": "/bin/true", "Requirements": {"expr": "false"}, "JobUniverse": 5}
    return {
        "first_cluster": info["next_cluster"],
        "clusters": [{"ad": ad, "procs": [{"ProcId": 0}]}],
    }


# the routes whose requests depend on the answers before them, in their order; the
# master's off last of all
IN_TURN = [
    "POST /startd/claim",
    "POST /startd/activate",
    "POST /startd/release",
    "POST /startd/drain",
    "POST /startd/cancel-drain",
    "POST /master/off",
]


def test_the_right_token_is_let_through_everywhere(pool, tmp_path: Path) -> None:
    """Run after the refusals (the module's pool): each route with a caller holding its
    level is served; what it does is its own tests' business."""
    tokens: Tokens = pool.tokens
    served = sorted(f"{m} {p}" for m, p in served_routes(every_route_app(tmp_path)))
    requests = requests_of(pool)
    requests["POST /schedd/submit"] = ("", _submission(pool, tokens, "alice"))
    version = pool.get("/negotiator/accountant")["version"]
    requests["POST /negotiator/accountant"] = ("", {"version": version, "changed": []})
    answers: dict[str, Any] = {}
    for route in [r for r in served if r not in IN_TURN] + IN_TURN:
        request = _in_turn(pool, route, answers) or requests.get(route, ("", {}))
        answer = call(pool, route, tokens.make(RIGHT[HTTP_LEVELS[route]]), request)
        expected = {404} if "/simulation/" in route else {200, 307}  # no simulations here
        assert answer.status_code in expected, (route, answer.text[:300])
        answers[route] = answer.json() if "json" in answer.headers.get("content-type", "") else {}
        if route == "POST /master/reconfig":
            assert pool.get("/gangliad/status")["interval"] == QUIET - 1
    assert answers["POST /startd/claim"]["accepted"] is True
    assert answers["POST /startd/release"] == {"released": True}
    pool.wait(lambda: pool.pid() is None, 30, "the master to stop (POST /master/off)")


def _in_turn(pool: LivePool, route: str, answers: dict[str, Any]) -> tuple[str, dict] | None:
    """The request of a route of IN_TURN, made from the answers before it."""
    if route == "POST /startd/claim":  # the claim id a match would carry
        found = pool.http.get(
            f"{pool.url}/collector/ads",
            params={"type": "Machine", "private": "true"},
            headers={"authorization": f"Bearer {pool.tokens.daemon}"},
        ).json()["ads"][0]
        job = {"MyType": "Job", "Owner": "alice", "RequestCpus": 1, "RequestMemory": 1}
        body = {"slot": found["Name"], "claim_id": found["ClaimId"], "request": job}
        return "", {**body, "schedd": f"{pool.url}/schedd"}
    if route == "POST /startd/activate":
        job = {"MyType": "Job", "Owner": "root", "Cmd": "/bin/true", "Iwd": "/tmp"}
        return "", {"claim": answers["POST /startd/claim"]["claim"], "job": job}
    if route == "POST /startd/release":
        return "", {"claim": answers["POST /startd/claim"]["claim"]}
    return None
