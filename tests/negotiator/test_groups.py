"""Hierarchical group quotas and concurrency limits: spec negotiator.md §4, §6 and the
scenarios S14-S26. One-core static slots; each named group has one saturating submitter
unless a scenario says otherwise; groups accept no surplus and quotas are scaled down to
fit (the seed's default) unless a scenario says otherwise."""

import dataclasses
from collections import Counter

import pytest

from builders import group_jobs, jobs_of, make_slot, slots
from cycles import NOW, PARAMS, cycle
from fairpool.accounting.accountant import Accountant
from fairpool.classad import Expr
from fairpool.negotiator import run_cycle
from fairpool.negotiator.concurrency import LimitConfig
from fairpool.negotiator.groups import GroupConfig, assigned_group, build_tree
from fairpool.negotiator.quotas import assign_quotas
from fairpool.sim.pool import Pool

pytestmark = pytest.mark.usefixtures("negotiation_path")

PHYSICS_CHEMISTRY = GroupConfig(
    names=("group_physics", "group_chemistry"),
    static_quota={"group_physics": 20, "group_chemistry": 10},
)
HEP_LEP = GroupConfig(
    names=("group_physics", "group_physics.hep", "group_physics.lep", "group_chemistry"),
    static_quota={
        "group_physics": 20,
        "group_physics.hep": 15,
        "group_physics.lep": 5,
        "group_chemistry": 10,
    },
    accept_surplus={"group_physics.hep": True, "group_physics.lep": True},
)


def run(config: GroupConfig, pool, jobs, **params):
    _, result = cycle(pool, jobs, params=PARAMS.with_(groups=config, **params))
    return Counter(m.submitter.rpartition("@")[0] for m in result.matches), result


def quotas(config: GroupConfig, pool: float) -> dict[str, float]:
    tree = build_tree(config)
    assign_quotas(tree, pool, config.allow_oversubscription)
    return {g.name: round(g.quota, 5) for g in tree.walk()}


@pytest.mark.parametrize(
    "config, pool, expected",
    [
        # static 20/10 on 30: as configured, nothing left for <none>
        (PHYSICS_CHEMISTRY, 30, {"<none>": 0, "group_physics": 20, "group_chemistry": 10}),
        # power failure, 15: scaled by 15/30 (the seed's example)
        (PHYSICS_CHEMISTRY, 15, {"<none>": 0, "group_physics": 10, "group_chemistry": 5}),
        # doubled pool, 60: not scaled up; the other 30 are <none>'s
        (PHYSICS_CHEMISTRY, 60, {"<none>": 30, "group_physics": 20, "group_chemistry": 10}),
        # oversubscription on: kept at 20/10 even on 15 slots
        (
            dataclasses.replace(PHYSICS_CHEMISTRY, allow_oversubscription=True),
            15,
            {"<none>": 0, "group_physics": 20, "group_chemistry": 10},
        ),
        # dynamic 0.66/0.33 of 30: 19.8/9.9, <none> keeps 0.3
        (
            GroupConfig(names=("p", "c"), dynamic_quota={"p": 0.66, "c": 0.33}),
            30,
            {"<none>": 0.3, "p": 19.8, "c": 9.9},
        ),
        # dynamic fractions summing to 1.2 are scaled to 1: 70/1.2 and 50/1.2 of 100
        (
            GroupConfig(names=("a", "b"), dynamic_quota={"a": 0.7, "b": 0.5}),
            100,
            {"<none>": 0, "a": 58.33333, "b": 41.66667},
        ),
        # hep/lep: physics' own quota is what its children leave: 20 - 15 - 5 = 0
        (
            HEP_LEP,
            30,
            {
                "<none>": 0,
                "group_chemistry": 10,
                "group_physics": 0,
                "group_physics.hep": 15,
                "group_physics.lep": 5,
            },
        ),
        # with oversubscription physics keeps its whole 20 as its own quota too
        (
            dataclasses.replace(HEP_LEP, allow_oversubscription=True),
            30,
            {
                "<none>": 0,
                "group_chemistry": 10,
                "group_physics": 20,
                "group_physics.hep": 15,
                "group_physics.lep": 5,
            },
        ),
    ],
)
def test_quota_arithmetic(config, pool, expected):
    assert quotas(config, pool) == pytest.approx(expected)


def _negfail(oversubscribe: bool, rate: float) -> list[tuple[int, int, int]]:
    """HTCondor's job_hgq_negfail test, cycle after cycle: running a.a, b.a, b.b."""
    pool_slots = [make_slot(f"slot{i}@host").build() for i in range(1, 41)]
    jobs = (
        group_jobs("a.a", 20, 1, "user", Requirements=Expr("SlotID > 10"))
        + group_jobs("a.b", 10, 2, "user", Requirements=False)
        + group_jobs("b.a", 10, 3, "user", Requirements=Expr("SlotID <= 10"))
        + group_jobs("b.b", 10, 4, "user", Requirements=Expr("SlotID <= 10"))
    )
    names = ("a", "b", "a.a", "a.b", "b.a", "b.b")
    config = GroupConfig(
        names=names,
        dynamic_quota=dict.fromkeys(names, 0.5),
        default_accept_surplus=True,
        accept_surplus={"a": False, "b": False},
        round_robin_rate=rate,
        max_allocation_rounds=3,
        allow_oversubscription=oversubscribe,
    )
    params = PARAMS.with_(groups=config, use_slot_weights=False, consider_preemption=False)
    pool, accountant, trajectory = Pool(pool_slots, jobs, "d"), Accountant(), []
    for number in range(6):
        now = NOW + 60 * number
        accountant.update_priorities(now)
        result = run_cycle(pool.snapshot(), accountant.view().__getitem__, params, now=now)
        accountant.set_usage(result.usage)
        pool.apply(result, now)
        running = Counter(j.eval("AccountingGroup") for j in pool.jobs if j.eval("JobStatus") == 2)
        trajectory.append((running["a.a.user"], running["b.a.user"], running["b.b.user"]))
    return trajectory


def test_s14_negfail_converges_as_htcondor_does():
    # HTCondor's defaults (oversubscription on): a = b = 20 with their whole quota as own
    # quota; a.a gets its 10 plus a.b's unused 10 and a's own 20 as surplus, but strict
    # enforcement at a (refuses surplus, 20) counts round-start usage and live usage both
    # (the round-robin quirk, spec §4.5), so a.a climbs 10 -> 15 -> 18 -> 19 -> 20 while
    # b.a and b.b alternate over the 10 low slots, 5 each.
    assert _negfail(True, 1.0) == [
        (10, 5, 5),
        (15, 5, 5),
        (18, 5, 5),
        (19, 5, 5),
        (20, 5, 5),
        (20, 5, 5),
    ]


def test_s14_default_round_robin_rate_lets_one_sibling_take_all():
    # One pass at the whole allocation: b.a (first by name on a tie) takes the 10 low slots.
    assert _negfail(True, 1.0e100)[0] == (20, 10, 0)


def test_s14_reaches_the_tests_expected_state_with_the_seeds_default():
    # The regression test asserts the steady state 20 a.a, 5 b.a, 5 b.b.
    assert _negfail(False, 1.0)[-1] == (20, 5, 5)


AUTOREGROUP = GroupConfig(
    names=("a", "b"),
    static_quota={"a": 1, "b": 1},
    default_autoregroup=True,
    sort_expr=Expr(
        'ifThenElse(AccountingGroup=?="a", 2, ifThenElse(AccountingGroup=?="b", 1, 3.40282e+38))'
    ),
    max_allocation_rounds=1,
    round_robin_rate=1e8,
)


def test_s15_autoregroup_gives_the_rest_of_the_pool():
    # 4 slots; a and b get 1 each in their groups (order b, a by GROUP_SORT_EXPR), then both
    # negotiate again in <none> over the whole pool: limits 2 - 1 = 1 more each.
    counts, result = run(
        AUTOREGROUP,
        slots(4),
        group_jobs("a", 2, 1, "user") + group_jobs("b", 2, 2, "user"),
        use_slot_weights=False,
        consider_preemption=False,
    )
    assert counts == {"a.user": 2, "b.user": 2}
    assert [m.group for m in result.matches] == ["b", "a", "<none>", "<none>"]


def test_s16_without_autoregroup_the_rest_stays_idle():
    config = dataclasses.replace(AUTOREGROUP, default_autoregroup=False)
    counts, _ = run(
        config,
        slots(4),
        group_jobs("a", 2, 1, "user") + group_jobs("b", 2, 2, "user"),
        use_slot_weights=False,
        consider_preemption=False,
    )
    assert counts == {"a.user": 1, "b.user": 1}


def test_s17_static_quotas():
    counts, _ = run(
        PHYSICS_CHEMISTRY,
        slots(30),
        group_jobs("group_physics", 100, 1) + group_jobs("group_chemistry", 100, 2),
    )
    assert counts == {"group_physics.u": 20, "group_chemistry.u": 10}


def test_s18_power_failure():
    jobs = group_jobs("group_physics", 100, 1) + group_jobs("group_chemistry", 100, 2)
    # scaled by 15/30 (the seed): 10/5
    counts, _ = run(PHYSICS_CHEMISTRY, slots(15), jobs)
    assert counts == {"group_physics.u": 10, "group_chemistry.u": 5}
    # oversubscription on: quotas stay 20/10; both sort keys are 0 and the tie (left to
    # chance by HTCondor, spec S18) goes to the larger quota: physics takes all 15
    oversubscribed = dataclasses.replace(PHYSICS_CHEMISTRY, allow_oversubscription=True)
    counts, _ = run(oversubscribed, slots(15), jobs)
    assert counts == {"group_physics.u": 15}


def test_s19_dynamic_quotas_lose_their_fractions():
    # quotas 19.8/9.9/0.3; a group's limit is truncated to 19 and 9: 2 slots idle
    config = GroupConfig(names=("p", "c"), dynamic_quota={"p": 0.66, "c": 0.33})
    jobs = group_jobs("p", 100, 1) + group_jobs("c", 100, 2)
    assert run(config, slots(30), jobs)[0] == {"p.u": 19, "c.u": 9}
    assert run(config, slots(30), jobs, use_slot_weights=False)[0] == {"p.u": 19, "c.u": 9}
    # accepting surplus, the 0.3 is shared by quota: allocated 20/10
    surplus = dataclasses.replace(config, default_accept_surplus=True)
    assert run(surplus, slots(30), jobs)[0] == {"p.u": 20, "c.u": 10}


@pytest.mark.parametrize(
    "jobs, physics_accepts, expected",
    [
        # hep and chemistry busy: hep capped at physics' 20 (physics refuses surplus)
        (
            [("group_physics.hep", 100), ("group_chemistry", 100)],
            False,
            {"group_physics.hep.u": 20, "group_chemistry.u": 10},
        ),
        # chemistry idle: its 10 are not physics' to take: 10 idle
        ([("group_physics.hep", 100)], False, {"group_physics.hep.u": 20}),
        # physics accepts surplus: it flows root -> physics -> hep: all 30
        ([("group_physics.hep", 100)], True, {"group_physics.hep.u": 30}),
    ],
)
def test_s20_hep_lep(jobs, physics_accepts, expected):
    config = HEP_LEP
    if physics_accepts:
        config = dataclasses.replace(
            HEP_LEP, accept_surplus={**HEP_LEP.accept_surplus, "group_physics": True}
        )
    all_jobs = [j for i, (g, n) in enumerate(jobs) for j in group_jobs(g, n, i + 1)]
    assert run(config, slots(30), all_jobs)[0] == expected


def test_s21_surplus_by_quota():
    # g1 wants 30, g2 2 (quotas 10/10): g2's 8 unused go up to <none> and over to g1: 18/2
    config = GroupConfig(
        names=("g1", "g2"), static_quota={"g1": 10, "g2": 10}, default_accept_surplus=True
    )
    counts, _ = run(config, slots(20), group_jobs("g1", 30, 1) + group_jobs("g2", 2, 2))
    assert counts == {"g1.u": 18, "g2.u": 2}


def test_s22_ungrouped_users_negotiate_in_none_last():
    # <none>'s quota is 30 - 10 = 20; it goes last
    config = GroupConfig(names=("g1",), static_quota={"g1": 10})
    counts, result = run(config, slots(30), group_jobs("g1", 50, 1) + jobs_of("u", 50, 2))
    assert counts == {"g1.u": 10, "u": 20}
    assert [m.group for m in result.matches][:10] == ["g1"] * 10


@pytest.mark.parametrize(
    "submitter, group",
    [
        ("group_physics.hep.higgs@d", "group_physics.hep"),
        ("group_physics.nuclear.bob@d", "group_physics"),
        ("GROUP_PHYSICS.HEP.x@d", "group_physics.hep"),
        ("alice@d", "<none>"),
        ("alice.smith@d", "<none>"),
    ],
)
def test_s23_deepest_matching_group(submitter, group):
    tree = build_tree(GroupConfig(names=("group_physics", "group_physics.hep")))
    assert assigned_group(tree, submitter).name == group


def test_strict_priority_recipe():
    # The seed: physics quota one million, oversubscription on: physics always sorts first
    # (usage/quota ~ 0) and is never capped; chemistry waits until physics runs out of jobs.
    config = GroupConfig(
        names=("physics", "chemistry"),
        static_quota={"physics": 1_000_000, "chemistry": 100},
        allow_oversubscription=True,
    )
    counts, _ = run(
        config, slots(30), group_jobs("physics", 100, 1) + group_jobs("chemistry", 100, 2)
    )
    assert counts == {"physics.u": 30}
    counts, _ = run(
        config, slots(30), group_jobs("physics", 12, 1) + group_jobs("chemistry", 100, 2)
    )
    assert counts == {"physics.u": 12, "chemistry.u": 18}


def test_s24_concurrency_limit():
    # XSW_LIMIT = 3: 3 jobs match, the 4th is rejected and the 5th (same autocluster) skipped
    limits = PARAMS.with_(concurrency=LimitConfig(explicit={"xsw": 3}))
    counts, result = cycle(slots(10), jobs_of("A", 5, 1, ConcurrencyLimits="xsw"), params=limits)
    assert counts == {"A": 3}
    assert [r.reason for r in result.rejections] == ["concurrency limit xsw reached"]
    # xsw:2 with a limit of 3: one job (0 + 2 <= 3, then 2 + 2 > 3)
    counts, _ = cycle(slots(10), jobs_of("A", 5, 1, ConcurrencyLimits="xsw:2"), params=limits)
    assert counts == {"A": 1}
    # xsw:0.5 with a limit of 2: four jobs
    half = PARAMS.with_(concurrency=LimitConfig(explicit={"xsw": 2}))
    assert cycle(slots(10), jobs_of("A", 5, 1, ConcurrencyLimits="xsw:0.5"), params=half)[0] == {
        "A": 4
    }


def test_s25_scoped_default_limits():
    config = PARAMS.with_(concurrency=LimitConfig(default=5, set_defaults={"large": 100}))
    assert cycle(
        slots(150), jobs_of("A", 200, 1, ConcurrencyLimits="large.swlicense"), params=config
    )[0] == {"A": 100}
    assert cycle(slots(15), jobs_of("A", 10, 1, ConcurrencyLimits="other.license"), params=config)[
        0
    ] == {"A": 5}
    explicit = dataclasses.replace(config.concurrency, explicit={"large.swlicense": 7})
    assert cycle(
        slots(150),
        jobs_of("A", 200, 1, ConcurrencyLimits="large.swlicense"),
        params=config.with_(concurrency=explicit),
    )[0] == {"A": 7}


def test_no_default_means_no_limit():
    # the seed: without CONCURRENCY_LIMIT_DEFAULT, an unconfigured limit does not limit
    assert cycle(slots(20), jobs_of("A", 20, 1, ConcurrencyLimits="anything"))[0] == {"A": 20}


def test_s26_limit_evaluated_against_the_matched_slot():
    # NETWORK_A_LIMIT = NETWORK_B_LIMIT = 10; 15 slots on each network; 25 jobs with
    # concurrency_limits_expr = TARGET.NETWORK: 10 on each, 5 left idle
    config = PARAMS.with_(concurrency=LimitConfig(explicit={"network_a": 10, "network_b": 10}))
    pool = slots(15, host="a", NETWORK="network_a") + slots(15, host="b", NETWORK="network_b")
    jobs = jobs_of("A", 25, 1, ConcurrencyLimitsExpr=Expr("TARGET.NETWORK"))
    counts, result = cycle(pool, jobs, params=config)
    assert counts == {"A": 20}
    hosts = Counter(m.slot.split("@")[1][0] for m in result.matches)
    assert hosts == {"a": 10, "b": 10}


def test_limited_jobs_fill_a_partitionable_slot_in_one_cycle():
    # A limit of 15 and one 16-core p-slot: 15 one-core jobs start in the first cycle.
    pslot = (
        make_slot("slot1@big")
        .cpus(16)
        .memory(64000)
        .partitionable()
        .set(
            Requirements=Expr(
                "START && TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= MY.Memory"
            )
        )
        .build()
    )
    limits = LimitConfig(explicit={"lic": 15})
    pool = Pool([pslot], jobs_of("A", 30, 1, RequestDisk=100, ConcurrencyLimits="lic"), "d", limits)
    accountant = Accountant()
    result = run_cycle(
        pool.snapshot(), accountant.view().__getitem__, PARAMS.with_(concurrency=limits), now=NOW
    )
    pool.apply(result, NOW)
    assert sum(j.eval("JobStatus") == 2 for j in pool.jobs) == 15
    again = run_cycle(
        pool.snapshot(),
        accountant.view().__getitem__,
        PARAMS.with_(concurrency=limits),
        now=NOW + 60,
    )
    assert not again.matches
    assert {r.reason for r in again.rejections} == {"concurrency limit lic reached"}
