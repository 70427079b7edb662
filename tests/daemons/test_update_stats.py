"""The collector's update statistics (daemons/update_stats.py), from each ad's
UpdateSequenceNumber, as HTCondor administrators read them: each ad's UpdatesTotal,
UpdatesSequenced and UpdatesLost, and the collector ad's sums overall and by class.

The figures are HTCondor's own: a slot ad of a real pool that sent numbers 0 to 8
(tests/data/ads/htcondor-tests/basic4slot.machine.ads) shows UpdatesTotal 9,
UpdatesSequenced 8, UpdatesLost 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fairpool.config import parse_config_text
from fairpool.daemons.collector import Collector
from fairpool.daemons.context import Context, PoolPaths
from fairpool.runtime.realtime import RealtimeEnvironment
from fairpool.store.database import open_database

T0 = 1_000.0
DATA = Path(__file__).parents[1] / "data" / "ads" / "htcondor-tests" / "basic4slot.machine.ads"


def collector_of(tmp_path: Path, text: str = "") -> Collector:
    paths = PoolPaths(tmp_path, tmp_path / "spool", tmp_path / "log", tmp_path / "execute")
    paths.make()
    ctx = Context(
        parse_config_text(text, env={}),
        RealtimeEnvironment(clock=lambda: T0),
        paths,
        open_database(paths.spool),
        url="http://127.0.0.1:9618",
    )
    return Collector(ctx)


@pytest.fixture
def collector(tmp_path: Path):
    made = collector_of(tmp_path)
    yield made
    made.ctx.engine.dispose()


def send(collector: Collector, kind: str, name: str, *numbers: int | None) -> dict:
    for number in numbers:
        ad = {"MyType": kind, "Name": name}
        if number is not None:
            ad["UpdateSequenceNumber"] = number
        collector.update([ad], None, T0)
    return next(ad for ad in collector.query(kind, None, None, False, T0) if ad["Name"] == name)


def own(collector: Collector) -> dict:
    return collector.query("Collector", None, None, False, T0)[0]


def test_a_slot_that_sent_nine_updates_shows_what_htcondor_shows(collector):
    expected = {}
    for line in DATA.read_text().split("\n\n")[0].splitlines():
        name, _, value = line.partition(" = ")
        if name in ("UpdateSequenceNumber", "UpdatesTotal", "UpdatesSequenced", "UpdatesLost"):
            expected[name] = int(value)
    assert expected["UpdateSequenceNumber"] == 8  # numbers 0 to 8 arrived
    ad = send(collector, "Machine", "slot1@h", *range(9))
    assert {name: ad[name] for name in expected} == expected
    assert ad["LastHeardFrom"] == int(T0)


def test_gaps_in_the_numbers_are_updates_lost(collector):
    ad = send(collector, "Machine", "slot1@h", 0, 1, 4, 5, 9)  # 2, 3 and 6, 7, 8 lost
    assert (ad["UpdatesTotal"], ad["UpdatesSequenced"], ad["UpdatesLost"]) == (10, 4, 5)
    stats = own(collector)
    # the collector's own counts: updates received, and those lost besides
    assert (stats["UpdatesTotal"], stats["UpdatesLost"], stats["UpdatesSequenced"]) == (5, 5, 4)
    assert stats["UpdatesInitial"] == 1 and stats["UpdatesLostMax"] == 3
    assert stats["UpdatesLostRatio"] == pytest.approx(5 / 10)
    assert stats["UpdatesTotal_Start"] == 5 and stats["UpdatesLost_Start"] == 5


def test_a_daemon_that_restarts_counts_from_zero_again(collector):
    ad = send(collector, "Scheduler", "sub1@h", 0, 1, 2, 0, 1)
    # the 0 after 2 cannot be checked (the daemon started again): nothing lost
    assert (ad["UpdatesTotal"], ad["UpdatesSequenced"], ad["UpdatesLost"]) == (5, 3, 0)
    ad = send(collector, "Scheduler", "sub2@h", None, None)  # no numbers: counted only
    assert (ad["UpdatesTotal"], ad["UpdatesSequenced"], ad["UpdatesLost"]) == (2, 0, 0)
    stats = own(collector)
    assert stats["UpdatesTotal_Schedd"] == 7 and stats["UpdatesInitial_Schedd"] == 2


def test_each_class_of_ad_is_counted_apart(collector):
    send(collector, "Machine", "slot1@h", 0, 1)
    send(collector, "Submitter", "alice@d", 0)
    send(collector, "DaemonMaster", "h", 0, 2)
    send(collector, "Negotiator", "h", 0)
    stats = own(collector)
    totals = {k: v for k, v in stats.items() if k.startswith("UpdatesTotal_")}
    assert totals == {
        "UpdatesTotal_Master": 2,
        "UpdatesTotal_Negotiator": 1,
        "UpdatesTotal_Start": 2,
        "UpdatesTotal_Submittor": 1,
    }
    assert stats["UpdatesLost_Master"] == 1 and stats["UpdatesLost"] == 1


def test_without_collector_daemon_stats_the_ads_are_kept_as_sent(tmp_path: Path):
    collector = collector_of(tmp_path, "COLLECTOR_DAEMON_STATS = False")
    try:
        ad = send(collector, "Machine", "slot1@h", 0, 2)
        assert "UpdatesLost" not in ad and "LastHeardFrom" not in ad
        assert own(collector)["UpdatesLost"] == 1  # the collector still counts
    finally:
        collector.ctx.engine.dispose()
