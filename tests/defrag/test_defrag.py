"""condor_defrag: the rate table of defrag.md §D5 and the scenarios of §D12 (D-1 ... D-13).

Fixture: machine mNN has one p-slot slot1@mNN with TotalSlotCpus 8, Cpus = 8 - used
(used 4: fragmented) and ExpectedMachineGracefulDrainingBadput = 1000*(NN+1), so m00 ranks
best under the default DEFRAG_RANK (-badput). Defrag Name "cm". D is a UTC midnight.
Drains never complete unless stated: a drained machine advertises Draining=True,
DrainReason="Defrag cm"."""

from pathlib import Path

import pytest

from fairpool.classad import ClassAd
from fairpool.defrag import Defrag, DefragConfig, prorate, quota
from fairpool.errors import ConfigError

D = 19675 * 86400  # a UTC midnight
HOUR = 3600
EXAMPLE = Path(__file__).parents[2] / "examples" / "defrag.config"


def example_knobs(**extra: str) -> dict[str, str]:
    knobs = {}
    for line in EXAMPLE.read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            name, _, value = line.partition("=")
            knobs[name.strip()] = value.strip()
    return {**knobs, "DEFRAG_NAME": "cm", **extra}


def machine(n: int, used: int = 4, **attrs) -> ClassAd:
    return ClassAd(
        {
            "Name": f"slot1@m{n:02d}",
            "SlotID": 1,
            "PartitionableSlot": True,
            "TotalSlotCpus": 8,
            "Cpus": 8 - used,
            "ExpectedMachineGracefulDrainingBadput": 1000 * (n + 1),
            **attrs,
        }
    )


class Pool:
    """The collector's ads and the startds' answers to drain and cancel requests."""

    def __init__(self, ads, refuse=()):
        self.ads = {ad["Name"]: ad for ad in ads}
        self.refuse = set(refuse)
        self.drained: list[str] = []
        self.cancelled: list[str] = []

    def drain(self, machine, slot, request):
        if machine in self.refuse:
            return False
        for ad in self.ads.values():
            if ad["Name"].endswith("@" + machine):
                ad.update({"Draining": True, "DrainReason": request.reason})
        self.drained.append(machine)
        return True

    def cancel(self, machine):
        self.cancelled.append(machine)

    def list(self):
        return list(self.ads.values())


def defrag(**knobs) -> Defrag:
    return Defrag(DefragConfig.from_knobs(knobs))


@pytest.mark.parametrize(
    ("rate", "interval", "split"),
    [
        (1.0, 3600, (1, 0, 0)),
        (1.0, 600, (0, 1, 0)),
        (2.0, 600, (0, 2, 0)),
        (6.0, 600, (1, 0, 0)),
        (10.0, 600, (1, 4, 0)),
        (2.5, 600, (0, 2, 12)),
        (1.5, 3600, (1, 0, 12)),
        (0.5, 600, (0, 0, 12)),
        (0.1, 600, (0, 0, 2)),
        (0.04, 600, (0, 0, 1)),
        (0.02, 600, (0, 0, 0)),
        (3.0, 300, (0, 3, 0)),
    ],
)
def test_rate_split(rate, interval, split):
    # e.g. 2.5/h every 600 s: 0.4166 per poll -> 0; 2.5 - 0 = 2.5/h -> 2 per hour; the
    # leftover 0.5/h * 24 = 12 per day.
    q = quota(rate, interval)
    assert (q.per_poll, q.per_poll_hour, q.per_poll_day) == split


def test_interval_above_an_hour_resets_the_rate():
    # D11-1: 1.0/h every 7200 s would be 2 per poll, but the rate itself becomes 0.
    assert quota(1.0, 7200).rate == 0.0


def test_prorate():
    # 10 s into the hour with 600-s polls: (3600-10)/3600 + 600/3600 > 1 -> the full 4.
    assert prorate(4, 10, 3600, 600) == 4
    # a late poll 3000 s into the hour: 4 * (600/3600 + 600/3600) = 1.33 -> 1.
    assert prorate(4, 3000, 3600, 600) == 1


def test_d1_example_config_drains_one_an_hour_up_to_ten():
    pool = Pool([machine(n) for n in range(30)])
    d = Defrag(DefragConfig.from_knobs(example_knobs()))
    seen = []
    for k in range(12):
        result = d.poll(D + 1800 + k * HOUR, pool.list(), pool)
        seen.append((d.ad(0)["MachinesDraining"], result.drained))
    # Polls 1-10 drain m00..m09 (per_poll = 1, the first at start-up); MachinesDraining
    # counts before the drain: 0, 1, ..., 9, then 10 blocks polls 11 and 12.
    assert [drained for _, drained in seen] == [[f"m{n:02d}"] for n in range(10)] + [[], []]
    # 12 hourly polls from D+00:30: 11 hours of statistics; "recent" is the last 10 polls.
    ad = d.ad(D + 1800 + 11 * HOUR)
    assert (ad["StatsLifetime"], ad["RecentStatsLifetime"]) == (11 * HOUR, 10 * HOUR)
    assert [count for count, _ in seen] == [*range(11), 10]
    assert (
        "MAX_CONCURRENT_DRAINING=10 and 10 draining"
        in d.poll(D + 13 * HOUR, pool.list(), pool).reason
    )


def test_d2a_twenty_whole_machines_stop_draining():
    pool = Pool([machine(n, used=0) for n in range(20)] + [machine(n) for n in range(20, 25)])
    d = Defrag(DefragConfig.from_knobs(example_knobs()))
    result = d.poll(D + 1800, pool.list(), pool)
    assert result.drained == [] and d.ad(0)["WholeMachines"] == 20


def test_d2b_whole_machines_are_not_candidates():
    # 19 whole (m00-m18, better ranked) + 6 fragmented: 19 < 20 -> drain the best
    # non-whole machine, m19.
    pool = Pool([machine(n, used=0) for n in range(19)] + [machine(n) for n in range(19, 25)])
    d = Defrag(DefragConfig.from_knobs(example_knobs()))
    assert d.poll(D + 1800, pool.list(), pool).drained == ["m19"]


def test_d3_one_per_hour_with_ten_minute_polls():
    # per_poll 0, per_poll_hour 1: nothing at start-up (prev = 0) or within the hour; one
    # at the first poll after each hour boundary.
    pool = Pool([machine(n) for n in range(30)])
    d = defrag(DEFRAG_NAME="cm", DEFRAG_DRAINING_MACHINES_PER_HOUR="1.0", DEFRAG_INTERVAL="600")
    drained = {}
    for k in range(13):
        t = D + 120 + k * 600
        drained[t - D] = d.poll(t, pool.list(), pool).drained
    assert {t: m for t, m in drained.items() if m} == {3720: ["m00"], 7320: ["m01"]}


def test_d4_half_an_hour_lumps_twelve_after_midnight():
    # 0.5/h: per_poll_day 12; the first poll after 00:00 UTC drains 12 at once, past the
    # concurrency limit of 10 (limits are checked once per cycle, D11-2).
    pool = Pool([machine(n) for n in range(30)])
    d = defrag(
        DEFRAG_NAME="cm",
        DEFRAG_DRAINING_MACHINES_PER_HOUR="0.5",
        DEFRAG_INTERVAL="600",
        DEFRAG_MAX_CONCURRENT_DRAINING="10",
    )
    before = [d.poll(D - 3480 + k * 600, pool.list(), pool).drained for k in range(6)]
    assert before == [[]] * 6
    assert d.poll(D + 120, pool.list(), pool).drained == [f"m{n:02d}" for n in range(12)]


def test_d5_two_and_a_half_per_hour_over_a_day():
    # 2 at each HH:02, 14 (2 + 12) at 00:02; 60 over 24 hours.
    pool = Pool([machine(n) for n in range(100)])
    d = defrag(DEFRAG_NAME="cm", DEFRAG_DRAINING_MACHINES_PER_HOUR="2.5", DEFRAG_INTERVAL="600")
    counts = {}
    for k in range(6 * 25 + 1):
        t = D - 7080 + k * 600
        n = len(d.poll(t, pool.list(), pool).drained)
        if n:
            counts[t] = n
    assert counts[D + 120] == 14
    assert all(n == 2 for t, n in counts.items() if t != D + 120)
    assert sum(n for t, n in counts.items() if D + 120 <= t < D + 120 + 86400) == 60


def test_d6_interval_above_an_hour_never_drains():
    pool = Pool([machine(n) for n in range(5)])
    d = defrag(DEFRAG_NAME="cm", DEFRAG_DRAINING_MACHINES_PER_HOUR="1.0", DEFRAG_INTERVAL="7200")
    results = [d.poll(D + k * 7200, pool.list(), pool) for k in range(3)]
    assert all(r.drained == [] for r in results)
    assert "DEFRAG_DRAINING_MACHINES_PER_HOUR=0.000000" in results[1].reason


def test_d7_counts_cancel_and_drain():
    mine = {"Draining": True, "DrainReason": "Defrag cm"}
    ads = [machine(1, **mine), machine(2, **mine), machine(3, used=0, **mine)]
    ads += [machine(0)] + [machine(n) for n in range(4, 23)]
    pool = Pool(ads)
    d = Defrag(DefragConfig.from_knobs(example_knobs()))
    result = d.poll(D + 1800, pool.list(), pool)
    # draining = {m01, m02, m03}; whole = {m03}; m03 is whole and draining -> cancelled.
    assert (len(result.draining), len(result.whole)) == (3, 1)
    assert pool.cancelled == ["m03"]
    assert [c["who"] for c in d.ad(0)["RecentCancelsList"]] == ["m03"]
    # 3 < 10 and 1 < 20: the best-ranked candidate m00 (B = 1000) is drained.
    assert result.drained == ["m00"]


def test_d8_other_drainers_are_ignored():
    ads = [
        machine(5, used=0, Draining=True, DrainReason="by command"),
        machine(6, Draining=True, DrainReason="Defrag other"),
    ]
    ads += [machine(n) for n in range(7, 17)]
    pool = Pool(ads)
    d = Defrag(DefragConfig.from_knobs(example_knobs()))
    result = d.poll(D + 1800, pool.list(), pool)
    assert (result.draining, result.whole, pool.cancelled) == (set(), set(), [])
    assert result.drained == ["m07"]


def test_d9_a_refused_drain_counts_as_a_failure():
    pool = Pool([machine(0), machine(1)], refuse={"m00"})
    d = Defrag(DefragConfig.from_knobs(example_knobs()))
    result = d.poll(D + 1800, pool.list(), pool)
    assert (result.drained, result.failed) == (["m01"], ["m00"])
    ad = d.ad(0)
    assert (ad["DrainFailures"], ad["DrainSuccesses"]) == (1, 1)
    # newest first
    assert [x["who"] for x in ad["RecentDrainsList"]] == ["slot1@m01", "slot1@m00"]


def test_d10_machines_with_several_pslots():
    mx = [
        ClassAd({"Name": "slot1@mx", "PartitionableSlot": True, "TotalSlotCpus": 8, "Cpus": 4}),
        ClassAd({"Name": "slot2@mx", "PartitionableSlot": True, "TotalSlotCpus": 8, "Cpus": 8}),
    ]
    my = [
        ClassAd(
            {
                "Name": f"slot{i}@my",
                "PartitionableSlot": True,
                "TotalSlotCpus": 8,
                "Cpus": 4,
                "ExpectedMachineGracefulDrainingBadput": b,
            }
        )
        for i, b in ((1, 500), (2, 100))
    ]
    pool = Pool(mx + my)
    d = Defrag(DefragConfig.from_knobs(example_knobs(DEFRAG_DRAINING_MACHINES_PER_HOUR="2")))
    result = d.poll(D + 1800, pool.list(), pool)
    # mx is whole (any p-slot) and counted once; my gets one request, for slot2 (rank -100).
    assert result.whole == {"mx"}
    assert result.drained == ["my"]
    assert d.ad(0)["RecentDrainsList"][0]["who"] == "slot2@my"


def test_d11_offline_and_static_machines_are_not_eligible():
    ads = [machine(0, Offline=True), ClassAd({"Name": "slot1@m01", "Cpus": 4}), machine(2)]
    pool = Pool(ads)
    d = Defrag(DefragConfig.from_knobs(example_knobs()))
    assert d.poll(D + 1800, pool.list(), pool).drained == ["m02"]


@pytest.mark.parametrize(
    ("expr", "whole", "drained"),
    [
        # Unparenthesised: static slots match through the ||, 4 >= 3 -> nothing (D11-3).
        ("Cpus == TotalSlotCpus || Memory > 64000", 4, []),
        ("(Cpus == TotalSlotCpus || Memory > 64000)", 0, ["p00"]),
    ],
)
def test_d12_the_whole_machine_expression_is_not_parenthesised(expr, whole, drained):
    static = [
        ClassAd({"Name": f"slot1@s{n}", "Cpus": 1, "TotalSlotCpus": 1, "Memory": 1})
        for n in range(4)
    ]
    frag = [
        ClassAd(
            {
                "Name": f"slot1@p{n:02d}",
                "PartitionableSlot": True,
                "Cpus": 4,
                "TotalSlotCpus": 8,
                "Memory": 1000,
            }
        )
        for n in range(5)
    ]
    pool = Pool(static + frag)
    d = defrag(
        DEFRAG_NAME="cm",
        DEFRAG_INTERVAL="3600",
        DEFRAG_DRAINING_MACHINES_PER_HOUR="1",
        DEFRAG_MAX_WHOLE_MACHINES="3",
        DEFRAG_WHOLE_MACHINE_EXPR=expr,
    )
    result = d.poll(D + 1800, pool.list(), pool)
    assert (len(result.whole), result.drained) == (whole, drained)


def test_d13_cost_averages():
    # A: 3600 / 36000 = 0.1 badput; B: 7200 / 36000 = 0.2 unclaimed; 16 cpus in all.
    a = ClassAd(
        {
            "Name": "slot1@a",
            "SlotID": 1,
            "TotalMachineDrainingBadput": 3600,
            "DaemonStartTime": 0,
            "LastHeardFrom": 36000,
            "TotalCpus": 8,
        }
    )
    b = ClassAd(
        {
            "Name": "slot1@b",
            "SlotID": 1,
            "TotalMachineDrainingUnclaimedTime": 7200,
            "DaemonStartTime": 0,
            "LastHeardFrom": 36000,
            "TotalCpus": 8,
        }
    )
    d = defrag(DEFRAG_NAME="cm")
    d.poll(D, [a, b], Pool([]))
    ad = d.ad(D)
    assert ad["AvgDrainingBadput"] == pytest.approx(0.00625)
    assert ad["AvgDrainingUnclaimed"] == pytest.approx(0.0125)


def test_defaults_and_bad_knobs():
    config = DefragConfig.from_knobs({})
    assert (config.interval, config.per_hour, config.max_concurrent, config.max_whole) == (
        600,
        0.0,
        -1,
        -1,
    )
    assert (config.whole, config.cancel, config.schedule, config.start) == (
        "Cpus == TotalSlotCpus",
        "Cpus == TotalSlotCpus",
        "graceful",
        "FALSE",
    )
    assert DefragConfig.from_knobs({"DEFRAG_SCHEDULE": "Quick"}).schedule == "quick"
    with pytest.raises(ConfigError, match=r"DEFRAG_DRAINING_SCHEDULE.*graceful, quick or fast"):
        DefragConfig.from_knobs({"DEFRAG_DRAINING_SCHEDULE": "slowly"})
    with pytest.raises(ConfigError, match="DEFRAG_RANK"):
        DefragConfig.from_knobs({"DEFRAG_RANK": "1 +"})
