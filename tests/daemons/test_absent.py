"""Absent and offline ads in the collector's core (seed 002, "Absent ClassAds"): a slot ad
that would expire turns absent when ABSENT_REQUIREMENTS holds, is seen only by queries that
name ``Absent``, never by the negotiator, is kept in the persistent ad log across a new
collector on the same database, and is dropped after ABSENT_EXPIRE_ADS_AFTER. The live
test (test_absent_live.py) does the same through real daemons and a kill -9."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairpool.classad import Expr
from fairpool.config import parse_config_text
from fairpool.daemons.collector import Collector
from fairpool.daemons.context import Context, PoolPaths
from fairpool.errors import ConfigError
from fairpool.runtime.realtime import RealtimeEnvironment
from fairpool.store.database import open_database

T0 = 1_000.0
KNOBS = "CLASSAD_LIFETIME = 10\nABSENT_REQUIREMENTS = Memory > 100\nABSENT_EXPIRE_ADS_AFTER = 100\n"


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def collector_at(tmp_path: Path, clock: Clock, config: str = KNOBS) -> Collector:
    paths = PoolPaths(tmp_path, tmp_path / "spool", tmp_path / "log", tmp_path / "execute")
    paths.make()
    ctx = Context(
        parse_config_text(config, env={}),
        RealtimeEnvironment(clock=clock),
        paths,
        open_database(paths.spool),
        url="http://127.0.0.1:9618",
        host="cm.example.org",
        started=T0,
    )
    return Collector(ctx)


def slot(name: str, memory: int = 1024, **attrs) -> dict:
    return {"MyType": "Machine", "Name": name, "State": "Unclaimed", "Memory": memory, **attrs}


def names(collector: Collector, constraint: str | None = None, projection=None) -> list[str]:
    expr = Expr(constraint) if constraint else None
    found = collector.query("Machine", expr, projection, False, collector.ctx.env.now)
    return sorted(str(ad.get("Name")) for ad in found)


def absent_names(collector: Collector) -> list[str]:
    return names(collector, "Absent == true", ["Name"])


def test_an_expiring_slot_turns_absent_when_absent_requirements_hold(tmp_path: Path):
    clock = Clock(T0)
    collector = collector_at(tmp_path, clock)
    collector.update([slot("slot1@a"), slot("slot1@b", memory=50)], {"slot1@a": {"C": 1}}, T0)
    clock.now = T0 + 11  # past CLASSAD_LIFETIME
    assert collector.expire(clock.now) == 1  # slot1@b: Memory 50 fails the requirements
    assert names(collector) == []  # invisible to an ordinary query
    assert absent_names(collector) == ["slot1@a"]
    assert names(collector, "TARGET.Absent =?= true || true", ["Name"]) == ["slot1@a"]
    assert names(collector, projection=["Name", "absent"]) == ["slot1@a"]
    assert collector.slot_ads() == []  # the negotiator never sees it
    ad = collector.query("Machine", Expr("Absent"), None, True, clock.now)[0]
    assert ad["Absent"] is True and ad["LastHeardFrom"] == int(T0 + 11)
    assert ad["ClassAdLifetime"] == 100 and "C" not in ad  # private attributes dropped
    assert collector.own_ad(clock.now)["HostsTotal"] == 0


def test_absent_ads_survive_a_new_collector_and_expire_after_their_time(tmp_path: Path):
    clock = Clock(T0)
    first = collector_at(tmp_path, clock)
    first.update([slot("slot1@a")], None, T0)
    clock.now = T0 + 11
    first.expire(clock.now)
    first.ctx.engine.dispose()
    again = collector_at(tmp_path, clock)  # the same database: a restart
    assert absent_names(again) == ["slot1@a"]
    clock.now = T0 + 11 + 99
    again.expire(clock.now)
    assert absent_names(again) == ["slot1@a"]
    clock.now = T0 + 11 + 100  # ABSENT_EXPIRE_ADS_AFTER later
    assert again.expire(clock.now) == 1
    assert absent_names(again) == []
    assert absent_names(collector_at(tmp_path, clock)) == []  # gone from the log too


def test_the_machine_coming_back_replaces_its_absent_ad(tmp_path: Path):
    clock = Clock(T0)
    collector = collector_at(tmp_path, clock)
    collector.update([slot("slot1@a")], None, T0)
    clock.now = T0 + 11
    collector.expire(clock.now)
    collector.update([slot("slot1@a", State="Claimed")], None, clock.now)
    assert names(collector) == ["slot1@a"] and absent_names(collector) == []
    assert absent_names(collector_at(tmp_path, clock)) == []  # and from the log


def test_an_invalidation_that_says_absent_marks_the_ad_absent(tmp_path: Path):
    clock = Clock(T0)
    collector = collector_at(tmp_path, clock, "")  # no ABSENT_REQUIREMENTS at all
    collector.update([slot("slot1@a"), slot("slot2@a")], None, T0)
    assert collector.invalidate("Machine", ["slot1@a"], None, absent=True) == 1
    assert collector.invalidate("Machine", ["slot2@a"], None) == 1
    assert absent_names(collector) == ["slot1@a"]  # the UPS example: kept as absent
    assert names(collector) == []
    # an invalidation by name of an absent ad removes it
    assert collector.invalidate("Machine", ["slot1@a"], None) == 1
    assert absent_names(collector) == []


def test_expire_invalidated_ads_sends_invalidations_through_absent_requirements(
    tmp_path: Path,
):
    clock = Clock(T0)
    collector = collector_at(tmp_path, clock, KNOBS + "EXPIRE_INVALIDATED_ADS = True\n")
    collector.update([slot("slot1@a"), slot("slot1@b", memory=50)], None, T0)
    collector.invalidate("Machine", ["slot1@a", "slot1@b"], None)
    assert absent_names(collector) == ["slot1@a"]


def test_offline_ads_are_kept_and_persisted_but_not_negotiated(tmp_path: Path):
    clock = Clock(T0)
    config = "CLASSAD_LIFETIME = 10\nOFFLINE_EXPIRE_ADS_AFTER = 50\n"
    collector = collector_at(tmp_path, clock, config)
    collector.update([slot("slot1@a", Offline=True), slot("slot2@a")], None, T0)
    assert names(collector, "Offline == true") == ["slot1@a"]
    assert [ad["Name"] for ad in collector.slot_ads()] == ["slot2@a"]
    clock.now = T0 + 20
    collector.expire(clock.now)
    assert names(collector) == ["slot1@a"]  # past CLASSAD_LIFETIME, still there
    assert names(collector_at(tmp_path, clock, config)) == ["slot1@a"]
    clock.now = T0 + 50
    collector.expire(clock.now)
    assert names(collector) == []


def test_a_bad_absent_requirements_names_the_knob(tmp_path: Path):
    with pytest.raises(ConfigError, match="ABSENT_REQUIREMENTS"):
        collector_at(tmp_path, Clock(T0), "ABSENT_REQUIREMENTS = Memory >\n")
