"""Absent ads on real daemons: an execute node killed with kill -9 stops updating, its slot
ads turn absent at CLASSAD_LIFETIME (ABSENT_REQUIREMENTS = True), ``fairpool status
-absent`` lists them while ``fairpool status`` and the negotiator do not see them, they
survive a kill -9 of the central manager (COLLECTOR_PERSISTENT_AD_LOG), and they go after
ABSENT_EXPIRE_ADS_AFTER."""

from __future__ import annotations

from pathlib import Path

from livepool import LivePool, fairpool

# long enough for a restart and three commands between turning absent and expiring, on a
# loaded machine (each command is a Python process of about a second of CPU)
EXPIRE = 25


def test_a_dead_machine_turns_absent_survives_a_collector_kill_and_expires(tmp_path: Path):
    manager = LivePool(
        tmp_path / "cm",
        DAEMON_LIST="MASTER, COLLECTOR, NEGOTIATOR",
        CLASSAD_LIFETIME=2,
        ABSENT_REQUIREMENTS="Memory > 0",
        ABSENT_EXPIRE_ADS_AFTER=EXPIRE,
        COLLECTOR_PERSISTENT_AD_LOG=tmp_path / "cm" / "absent.sqlite3",
        NEGOTIATOR_INTERVAL=1,
    )
    manager.start(wait_for_slots=False)
    node = None
    try:
        address = manager.url.split("//")[1]
        node_knobs = {"DAEMON_LIST": "MASTER, STARTD", "COLLECTOR_HOST": address}
        node = LivePool(tmp_path / "node", UPDATE_INTERVAL=1, **node_knobs)
        node.start(wait_for_slots=False)
        manager.wait(lambda: len(manager.slots()) == 2, 30, "the node's slots")
        node.kill()

        def absent() -> list[dict]:
            return manager.get("/collector/ads", type="Machine", constraint="Absent")["ads"]

        manager.wait(lambda: len(absent()) == 2, 20, "the slots to turn absent")
        went = {ad["LastHeardFrom"] for ad in absent()}
        assert all(ad["ClassAdLifetime"] == EXPIRE and ad["Absent"] is True for ad in absent())

        manager.kill()  # the central manager dies; the absent ads are on disk
        manager.start(wait_for_slots=False)
        assert {ad["LastHeardFrom"] for ad in absent()} == went  # as they were
        out = fairpool("status", "-absent", "--pool", manager.url).stdout.splitlines()
        assert out[0].split()[3:] == ["Went", "Absent", "Will", "Expire"]
        assert sorted(line.split()[0] for line in out[2:]) == sorted(ad["Name"] for ad in absent())
        assert fairpool("status", "--pool", manager.url).stdout == ""
        assert manager.slots() == []
        # the negotiator's cycles see no slot
        manager.wait(
            lambda: _candidate_slots(manager) == 0, 10, "a cycle that counts no candidate slot"
        )
        manager.wait(lambda: absent() == [], EXPIRE + 30, "the absent ads to expire")
        assert fairpool("status", "-absent", "--pool", manager.url).stdout == ""
    finally:
        if node is not None:
            node.stop()
        manager.stop()


def _candidate_slots(pool: LivePool) -> int | None:
    ads = pool.get("/collector/ads", type="Negotiator")["ads"]
    return ads[0].get("LastNegotiationCycleCandidateSlots0") if ads else None
