"""Several negotiators in one pool (seed 002, "Running Multiple Negotiators in One Pool"):
two negotiators over one collector, each with its NEGOTIATOR_NAME, its own accountant, its
half of the slots (NEGOTIATOR_SLOT_CONSTRAINT) and its submitter
(NEGOTIATOR_SUBMITTER_CONSTRAINT). They never match the same slot, each charges only its
own submitter, and ``fairpool userprio`` needs ``-name`` to pick one."""

from __future__ import annotations

from pathlib import Path

from livepool import LivePool, fairpool

JOBS = 4
SUBMIT = f"""
executable = /bin/sleep
arguments = 1
request_memory = 64
accounting_group_user = alice
queue {JOBS}
accounting_group_user = bob
queue {JOBS}
"""


def test_two_negotiators_partition_one_pool_and_keep_their_own_accounts(tmp_path: Path):
    work = tmp_path / "work"
    east = {
        "NUM_CPUS": 4,
        "MEMORY": 4096,
        "CLAIM_WORKLIFE": 0,
        "NEGOTIATOR_INTERVAL": 1,
        "NEGOTIATOR_NAME": "east",
        "NEGOTIATOR_CYCLES_KEPT": 500,
        "NEGOTIATOR_SLOT_CONSTRAINT": "SlotID <= 2",
        "NEGOTIATOR_SUBMITTER_CONSTRAINT": 'regexp("^alice@", Name)',
    }
    with LivePool(tmp_path / "cm", **east) as pool:
        west = LivePool(
            tmp_path / "west",
            DAEMON_LIST="MASTER, NEGOTIATOR",
            COLLECTOR_HOST=pool.url.split("//")[1],
            NEGOTIATOR_INTERVAL=1,
            NEGOTIATOR_NAME="west",
            NEGOTIATOR_CYCLES_KEPT=500,
            NEGOTIATOR_SLOT_CONSTRAINT="SlotID > 2",
            NEGOTIATOR_SUBMITTER_CONSTRAINT='regexp("^bob@", Name)',
        )
        west.start(wait_for_slots=False)
        try:
            pool.wait(lambda: len(pool.get("/collector/ads", type="Negotiator")["ads"]) == 2, 20)
            pool.submit(SUBMIT, work)
            pool.wait(lambda: len(pool.history()) == 2 * JOBS, 90, "every job to finish")
            ran = {(str(ad["User"]).split("@")[0], str(ad["RemoteHost"])) for ad in pool.history()}
            assert {host.split("@")[0] for user, host in ran if user == "alice"} <= {
                "slot1",
                "slot2",
            }
            assert {host.split("@")[0] for user, host in ran if user == "bob"} <= {
                "slot3",
                "slot4",
            }
            matched = {name: _matched(api) for name, api in (("east", pool), ("west", west))}
            assert matched["east"] and matched["west"]
            assert not (matched["east"] & matched["west"])  # never the same slot
            accounts = {"east": pool.accountant(), "west": west.accountant()}
            charged = {
                name: {user.split("@")[0] for user, c in acc.items() if c["accumulated_usage"] > 0}
                for name, acc in accounts.items()
            }
            assert charged == {"east": {"alice"}, "west": {"bob"}}

            refused = fairpool("userprio", "-allusers", "--pool", pool.url, check=False)
            assert refused.returncode != 0 and "-name" in refused.stderr
            assert "Traceback" not in refused.stderr
            out = fairpool("userprio", "-allusers", "-name", "west", "--pool", pool.url).stdout
            assert "bob@" in out and "alice@" not in out
        finally:
            west.stop()


def _matched(pool: LivePool) -> set[str]:
    cycles = pool.get("/negotiator/cycles", last=1000)["cycles"]
    return {match["slot"] for cycle in cycles for match in cycle["matches"]}
