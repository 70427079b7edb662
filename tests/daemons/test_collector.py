"""The collector's core (daemons/collector.py), without HTTP: ads kept by type and name,
queries, private attributes, invalidation, expiry and the collector's own ad. The clock
is the context's environment, here a wall clock the test sets.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairpool.classad import Expr
from fairpool.config import parse_config_text
from fairpool.daemons.collector import Collector
from fairpool.daemons.context import Context, PoolPaths
from fairpool.daemons.errors import BadRequest
from fairpool.runtime.realtime import RealtimeEnvironment
from fairpool.store.database import open_database

T0 = 1_000.0


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


def make_collector(tmp_path: Path, clock: Clock, config: str = "") -> Collector:
    paths = PoolPaths(tmp_path, tmp_path / "spool", tmp_path / "log", tmp_path / "execute")
    paths.make()
    ctx = Context(
        parse_config_text(config, env={}),
        RealtimeEnvironment(clock=clock),
        paths,
        open_database(paths.spool),
        url="http://127.0.0.1:9618",
        host="cm.example.org",
        started=T0 - 5,
    )
    return Collector(ctx)


@pytest.fixture
def collector(tmp_path: Path, clock: Clock) -> Collector:
    made = make_collector(tmp_path, clock)
    yield made
    made.ctx.engine.dispose()


def slot(name: str, state: str = "Unclaimed", **attrs) -> dict:
    return {"MyType": "Machine", "Name": name, "State": state, "Memory": 1024, **attrs}


def submitter(name: str, schedd: str, idle: int) -> dict:
    return {"MyType": "Submitter", "Name": name, "ScheddName": schedd, "IdleJobs": idle}


def names(found: list[dict]) -> list[str]:
    return sorted(str(ad.get("Name")) for ad in found)


def query(collector: Collector, kind: str, constraint: str | None = None, **options) -> list:
    """The ads a query finds; the body ``/ads`` sends (each whole ad's JSON kept from
    one query to the next until the ad changes) says the same."""
    expr = Expr(constraint) if constraint else None
    asked = (kind, expr, options.get("projection"), options.get("private", False), T0)
    found = collector.query(*asked)
    assert json.loads(collector.query_json(*asked)) == {"ads": found}
    return found


def test_an_update_replaces_the_ad_of_its_type_and_name(collector):
    assert collector.update([slot("slot1@a"), slot("slot2@a")], None, T0) == 2
    assert collector.update([slot("slot1@a", "Claimed")], None, T0) == 1
    found = query(collector, "Machine")
    assert names(found) == ["slot1@a", "slot2@a"]
    assert {ad["Name"]: ad["State"] for ad in found}["slot1@a"] == "Claimed"
    # the type is not case-sensitive, in updates and queries
    collector.update([{"mytype": "MACHINE", "name": "slot2@a", "State": "Owner"}], None, T0)
    found = query(collector, "machine")
    assert len(found) == 2
    assert {str(ad.get("Name", ad.get("name"))): ad["State"] for ad in found}["slot2@a"] == "Owner"
    assert collector.stats.all.total == 4


def test_submitter_ads_are_also_keyed_by_their_schedd(collector):
    collector.update(
        [submitter("alice@d", "schedd1", 3), submitter("alice@d", "schedd2", 5)], None, T0
    )
    collector.update([submitter("alice@d", "schedd1", 7)], None, T0)
    found = query(collector, "Submitter")
    assert sorted((ad["ScheddName"], ad["IdleJobs"]) for ad in found) == [
        ("schedd1", 7),
        ("schedd2", 5),
    ]
    # two Machine ads of one name from two places are one ad (only Submitters split)
    collector.update([slot("x", ScheddName="s1"), slot("x", ScheddName="s2")], None, T0)
    assert len(query(collector, "Machine")) == 1


def test_queries_by_constraint_and_projection(collector):
    collector.update(
        [slot("slot1@a", Memory=512), slot("slot2@a", "Claimed"), slot("slot3@b")], None, T0
    )
    assert names(query(collector, "Machine", 'State == "Unclaimed"')) == ["slot1@a", "slot3@b"]
    assert names(query(collector, "Machine", 'memory > 600 && STATE =!= "Claimed"')) == ["slot3@b"]
    assert query(collector, "Machine", "NoSuchAttribute > 1") == []  # undefined is not true
    projected = query(collector, "Machine", 'Name == "slot1@a"', projection=["name", "MEMORY"])
    assert projected == [{"Name": "slot1@a", "Memory": 512}]  # as the ad spells them
    assert query(collector, "Machine", projection=["Nothing"]) == [{}, {}, {}]
    assert query(collector, "Schedd") == []  # no ad of that type


def test_any_spans_every_type_and_the_collectors_own_ad(collector):
    collector.update([slot("slot1@a"), submitter("alice@d", "s", 1)], None, T0)
    collector.update([{"MyType": "Scheduler", "Name": "s"}], None, T0)
    found = query(collector, "Any")
    assert sorted(ad["MyType"] for ad in found) == [
        "Collector",
        "Machine",
        "Scheduler",
        "Submitter",
    ]
    assert names(query(collector, "any", 'MyType == "Machine" || MyType == "Scheduler"')) == [
        "s",
        "slot1@a",
    ]


def test_private_attributes_only_when_asked(collector):
    collector.update([slot("slot1@a"), slot("slot2@a")], {"slot1@a": {"ClaimId": "<secret#1>"}}, T0)
    public = query(collector, "Machine")
    assert all("ClaimId" not in ad for ad in public)
    private = {ad["Name"]: ad.get("ClaimId") for ad in query(collector, "Machine", private=True)}
    assert private == {"slot1@a": "<secret#1>", "slot2@a": None}
    assert "ClaimId" not in query(collector, "Machine", 'Name == "slot1@a"')[0]
    # the next update without private attributes drops them
    collector.update([slot("slot1@a")], None, T0)
    assert all("ClaimId" not in ad for ad in query(collector, "Machine", private=True))


def test_slot_ads_for_a_negotiator_in_the_process_are_copies_with_private_attributes(
    collector,
):
    collector.update([slot("slot1@a"), slot("slot2@a")], {"slot1@a": {"ClaimId": "c1"}}, T0)
    collector.update([submitter("alice@d", "s", 1)], None, T0)
    ads = {ad["Name"]: ad for ad in collector.slot_ads()}
    assert set(ads) == {"slot1@a", "slot2@a"}  # slots only
    assert ads["slot1@a"]["ClaimId"] == "c1" and "ClaimId" not in ads["slot2@a"]
    ads["slot1@a"]["State"] = "Matched"  # the cycle annotates its copy
    again = {ad["Name"]: ad for ad in collector.slot_ads()}
    assert again["slot1@a"]["State"] == "Unclaimed"
    assert query(collector, "Machine", 'State == "Matched"') == []


def test_invalidate_by_names_and_by_constraint(collector):
    collector.update([slot(f"slot{i}@a", Memory=i * 100) for i in range(1, 6)], None, T0)
    collector.update([submitter("slot1@a", "s", 1)], None, T0)  # same name, other type
    assert collector.invalidate("Machine", ["slot1@a", "slot9@z"], None) == 1
    assert names(query(collector, "Submitter")) == ["slot1@a"]  # another type: kept
    assert collector.invalidate("MACHINE", None, Expr("Memory >= 400")) == 2
    assert names(query(collector, "Machine")) == ["slot2@a", "slot3@a"]
    assert collector.invalidate("Machine", ["slot2@a"], Expr("Memory == 300")) == 2  # either
    assert query(collector, "Machine") == []
    assert collector.invalidate("Machine", ["slot2@a"], None) == 0  # nothing left
    assert collector.invalidate("Any", None, Expr('MyType == "Submitter"')) == 1
    assert query(collector, "Submitter") == []


def test_ads_expire_after_classad_lifetime_or_their_own(tmp_path, clock):
    collector = make_collector(tmp_path, clock, "CLASSAD_LIFETIME = 900\n")
    collector.update([slot("slot1@a"), slot("short", ClassAdLifetime=60)], None, T0)
    collector.update([slot("odd", ClassAdLifetime=-5), slot("text", ClassAdLifetime="9")], None, T0)
    assert collector.expire(T0 + 59) == 0
    assert collector.expire(T0 + 60) == 1  # its own lifetime: 60 s
    assert names(query(collector, "Machine")) == ["odd", "slot1@a", "text"]
    collector.update([slot("slot1@a")], None, T0 + 500)  # refreshed: 900 s from now
    assert collector.expire(T0 + 900) == 2  # "odd" and "text" fall back to 900 s
    assert names(query(collector, "Machine")) == ["slot1@a"]
    assert collector.expire(T0 + 1399) == 0
    assert collector.expire(T0 + 1400) == 1
    assert query(collector, "Machine") == []
    assert len(query(collector, "Collector")) == 1  # its own ad never expires
    collector.ctx.engine.dispose()


def test_the_collectors_own_ad(tmp_path, clock):
    collector = make_collector(tmp_path, clock, "COLLECTOR_NAME = central\n")
    collector.update(
        [
            slot("slot1@a", "Claimed"),
            slot("slot2@a"),
            slot("slot3@a"),
            slot("slot4@b", "Owner"),
            submitter("alice@d", "s", 1),
        ],
        None,
        T0,
    )
    clock.now = T0 + 30.7
    (own,) = query(collector, "Collector")
    assert own["MyType"] == "Collector" and own["Name"] == "central"
    assert own["Machine"] == "cm.example.org"
    assert own["MyAddress"] == "<127.0.0.1:9618>"
    assert own["ApiAddress"] == "http://127.0.0.1:9618/collector"
    assert own["DaemonStartTime"] == int(T0 - 5)
    assert own["MyCurrentTime"] == int(T0 + 30.7)  # the clock when asked
    assert (own["HostsTotal"], own["HostsClaimed"], own["HostsUnclaimed"], own["HostsOwner"]) == (
        4,
        1,
        2,
        1,
    )
    assert own["SubmitterAds"] == 1
    assert own["UpdatesTotal"] == 5
    collector.ctx.engine.dispose()


def test_the_default_collector_name_names_the_host(collector):
    (own,) = query(collector, "Collector")
    assert own["Name"] == "fairpool@cm.example.org"


@pytest.mark.parametrize(
    ("ads", "message"),
    [
        ([slot("a"), 5], "ads[1]: expected a JSON object"),
        ([{"MyType": "Machine"}], "ads[0]: an ad needs MyType and Name strings"),
        ([slot("a"), {"Name": "b"}], "ads[1]: an ad needs MyType and Name strings"),
        ([{"MyType": "Machine", "Name": 7}], "ads[0]: an ad needs MyType and Name strings"),
    ],
)
def test_bad_ads_are_refused_naming_their_place(collector, ads, message):
    with pytest.raises(BadRequest) as caught:
        collector.update(ads, None, T0)
    assert str(caught.value) == message
    assert caught.value.status == 400


def test_an_ad_that_is_not_a_classad_is_refused_at_update(collector):
    collector.update([slot("good")], None, T0)
    try:
        collector.update([slot("bad", Requirements="/Expr(1 +)/")], None, T0)
    except BadRequest as err:
        assert "ads[0]" in str(err)
    assert names(query(collector, "Machine", "Memory > 0")) == ["good"]
    assert [ad["Name"] for ad in collector.slot_ads()] == ["good"]


def test_classad_lifetime_is_found_in_any_case(collector):
    collector.update([slot("short", classadlifetime=60)], None, T0)
    assert collector.expire(T0 + 60) == 1
