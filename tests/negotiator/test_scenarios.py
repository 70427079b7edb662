"""The negotiator scenarios of spec negotiator.md §9 (S1-S13, S27-S30) and the seed's
two-user example. Unless a scenario says otherwise: one-core static slots (weight 1),
every job matches every slot, new submitters (RUP 0.5, factor 1000, EUP 500), the default
configuration (PREEMPTION_REQUIREMENTS false, preemption considered), one cycle."""

import math

import pytest

from builders import jobs_of, make_job, make_slot, slots
from cycles import NOW, PARAMS, cycle
from fairpool.accounting.accountant import Accountant, AccountantPolicy, Usage
from fairpool.classad import Expr
from fairpool.store.accountant_store import AccountantStore

pytestmark = pytest.mark.usefixtures("negotiation_path")

UWCS_PREEMPTION = Expr("RemoteUserPrio > TARGET.SubmitterUserPrio * 1.2")


def test_s1_rup_after_one_cycle():
    # beta = 0.5 ** (60 / 86400) = 0.999518763; RUP = 0.5*beta + 100*(1 - beta) = 0.547883
    accountant = Accountant()
    accountant.update_priorities(NOW)
    accountant.set_usage({"A@d": Usage(100, 100.0)})
    accountant.update_priorities(NOW + 60)
    assert accountant.customer("A@d").priority == pytest.approx(0.547883, abs=1e-6)
    assert accountant.eup("A@d") == pytest.approx(547.883, abs=1e-3)


def test_s2_seed_example_48_hours_then_both_users():
    # A alone on 100 cores for 48 h, half-life 24 h, updated every minute:
    # RUP(48h) = 100 + (0.5 - 100) * 0.5**2 = 75.125; B never ran: 0.5.
    accountant = Accountant()
    start = NOW - 48 * 3600
    accountant.update_priorities(start)
    for minute in range(48 * 60):
        accountant.set_usage({"A@d": Usage(100, 100.0)})
        accountant.update_priorities(start + 60 * (minute + 1))
    accountant.set_usage({})
    assert accountant.customer("A@d").priority == pytest.approx(75.125, abs=0.01)
    assert accountant.view()["B@d"].rup == 0.5
    # Next cycle, 100 free slots, both have idle jobs. EUPs 75125 and 500:
    # shares 0.5/(75.125+0.5) = 0.661% and 99.339%, limits 0.661 and 99.339.
    # B (better EUP) goes first and takes 99; A's 0.661 > 0 rounds up to 1 slot.
    counts, _ = cycle(slots(100), jobs_of("A", 200, 1) + jobs_of("B", 200, 2), accountant)
    assert counts == {"B": 99, "A": 1}


def test_s3_decay_without_usage():
    # RUP 10 with no usage halves every day; it reaches 0.5 after log2(20) = 4.32 days.
    accountant = Accountant()
    accountant.set_priority("A@d", 10)
    accountant.update_priorities(NOW)
    accountant.update_priorities(NOW + 86400)
    assert accountant.customer("A@d").priority == pytest.approx(5.0)
    accountant.update_priorities(NOW + 2 * 86400)
    assert accountant.customer("A@d").priority == pytest.approx(2.5)
    accountant.update_priorities(NOW + math.log2(20) * 86400 + 3600)
    assert accountant.customer("A@d").priority == 0.5
    accountant.update_priorities(NOW + 30 * 86400)
    assert accountant.customer("A@d").priority == 0.5


def test_s4_equal_users_split_the_pool():
    # shares 1/2 each of 100: limits 50 and 50.
    counts, result = cycle(slots(100), jobs_of("A", 200, 1) + jobs_of("B", 200, 2))
    assert counts == {"A": 50, "B": 50}
    assert all(m.reason == "NoPreemption" and m.preempting is None for m in result.matches)


def test_s5_unequal_eup():
    # EUP 500 and 1000: normalFactor = 1000/500 + 1000/1000 = 3; limits 66.667 and 33.333.
    # Spin 1: A 66 (a 67th exceeds 66.667), B 33. Spin 2: limits 0.667 and 0.333 < 1
    # (the smallest slot weight): both skipped, 1 slot idle.
    accountant = Accountant()
    accountant.set_factor("B@d", 2000)
    counts, _ = cycle(slots(100), jobs_of("A", 200, 1) + jobs_of("B", 200, 2), accountant)
    assert counts == {"A": 66, "B": 33}


def test_s6_crumbs_stay_idle_then_go_to_the_first_submitter():
    # Three equal users: limits 33.33 each -> 33+33+33; spin 2 limits 0.33 < 1: 1 idle.
    accountant = Accountant()
    three = jobs_of("A", 200, 1) + jobs_of("B", 200, 2) + jobs_of("C", 200, 3)
    counts, result = cycle(slots(100), three, accountant)
    assert counts == {"A": 33, "B": 33, "C": 33}
    # Next cycle: the 99 slots are claimed, EUPs equal again, each limit 0.333 > 0;
    # the first in order (name, as EUP and starvation tie) rounds up to the last slot.
    held = [
        make_slot(f"slot1@node{i}").claimed_by(f"{m.submitter}").build()
        for i, m in enumerate(result.matches)
    ]
    free = [make_slot("slot1@node99").build()]
    counts, _ = cycle(held + free, three, accountant)
    assert counts == {"A": 1}


def test_s7_unused_share_goes_to_the_others():
    # 10 slots; A has 3 jobs, B 100. Spin 1: limits 5/5, A takes 3 and is done, B 5.
    # Spin 2: only B, limit 10 - 5 = 5, two slots left: B 2. Total A 3, B 7.
    counts, _ = cycle(slots(10), jobs_of("A", 3, 1) + jobs_of("B", 100, 2))
    assert counts == {"A": 3, "B": 7}


def test_s8_ceiling():
    # A's ceiling 10. Spin 1: A stops at 10, B 50. Spin 2: A done (headroom 0), B's limit
    # 50 - 50 = 0, skipped. Spin 3: only B, limit 100 - 50 = 50, 40 slots left: B 90.
    accountant = Accountant()
    accountant.set_ceiling("A@d", 10)
    counts, _ = cycle(slots(100), jobs_of("A", 200, 1) + jobs_of("B", 200, 2), accountant)
    assert counts == {"A": 10, "B": 90}


def test_s9_floor_round_goes_first():
    # C: floor 30, factor 1e5 (EUP 50000). Floor round, C alone: min(30 - 0, 100) = 30.
    # Normal round: normalFactor = 100 + 100 + 1 = 201, shares of A and B 0.497512, limits
    # 49.75: A 49, B the 21 slots left; C's limit max(0, 0.4975 - 30) = 0.
    accountant = Accountant()
    accountant.set_floor("C@d", 30)
    accountant.set_factor("C@d", 1e5)
    jobs = jobs_of("A", 200, 1) + jobs_of("B", 200, 2) + jobs_of("C", 200, 3)
    counts, _ = cycle(slots(100), jobs, accountant)
    assert counts == {"A": 49, "B": 21, "C": 30}


def test_s10_floor_tops_up_to_the_floor():
    # As S9 but C already uses 10. The seed's rule (spec/README): the floor round brings C
    # up to its floor, min(30 - 10, 100 - 10) = 20 more, 30 in all (HTCondor's code would
    # give 30 more, see test below). Then A 49 (limit 49.75) and B the 21 left.
    accountant = Accountant()
    accountant.set_floor("C@d", 30)
    accountant.set_factor("C@d", 1e5)
    held = [make_slot(f"slot1@held{i}").claimed_by("C@d").build() for i in range(10)]
    jobs = jobs_of("A", 200, 1) + jobs_of("B", 200, 2) + jobs_of("C", 200, 3)
    counts, _ = cycle(held + slots(90), jobs, accountant)
    assert counts == {"A": 49, "B": 21, "C": 20}


def test_s10_htcondor_floor_rule_is_a_knob():
    # NEGOTIATOR_FLOOR_IS_ADDITIONAL = True: min(30, 90) = 30 more (40 in all); A 49; B 11.
    accountant = Accountant()
    accountant.set_floor("C@d", 30)
    accountant.set_factor("C@d", 1e5)
    held = [make_slot(f"slot1@held{i}").claimed_by("C@d").build() for i in range(10)]
    jobs = jobs_of("A", 200, 1) + jobs_of("B", 200, 2) + jobs_of("C", 200, 3)
    counts, _ = cycle(held + slots(90), jobs, accountant, PARAMS.with_(floor_is_additional=True))
    assert counts == {"A": 49, "B": 11, "C": 30}


def test_s11_nice_user_rounds_up_once_then_takes_the_rest():
    # nice-user.b has EUP 0.5 * 1e10. Spin 1: A's limit ~100 takes its 60 jobs (done); the
    # nice user's limit 1e-5 > 0 rounds up to 1. Spin 2: only the nice user, limit 99,
    # 39 slots left. A 60, nice 40.
    jobs = jobs_of("A", 60, 1) + jobs_of("b", 100, 2, NiceUser=True)
    counts, result = cycle(slots(100), jobs)
    assert counts == {"A": 60, "nice-user.b": 40}
    assert result.submitters["nice-user.b@d"].eup == 0.5 * 1e10


def _held_by_a(count: int) -> list:
    return [
        make_slot(f"slot1@node{i}").claimed_by("A@d", TotalJobRunTime=100 * i).build()
        for i in range(count)
    ]


def test_s12_priority_preemption_with_the_uwcs_policy():
    # A holds all 10 slots with RUP 10 (EUP 10000) and has more idle jobs; B is new
    # (EUP 500), 100 idle jobs. normalFactor = 10000/10000 + 10000/500 = 21: B's limit
    # 20/21 * 10 = 9.524, A's 0.476 - 10 -> 0. Every A slot is a priority candidate
    # (10000 > 1.2 * 500); the full-limit check allows 9 (a 10th: 9 + 1 > 9.524).
    # Spin 2: B's limit 9.524 - 9 = 0.524 < 1 and A's 0: both skipped. B preempts 9.
    # PREEMPTION_RANK prefers the shortest-running jobs, so the longest one keeps its slot.
    accountant = Accountant()
    accountant.set_priority("A@d", 10)
    params = PARAMS.with_(preemption_requirements=UWCS_PREEMPTION)
    jobs = jobs_of("B", 100, 2) + jobs_of("A", 10, 1)
    counts, result = cycle(_held_by_a(10), jobs, accountant, params)
    assert counts == {"B": 9}
    assert {m.reason for m in result.matches} == {"Priority"}
    assert {m.preempting for m in result.matches} == {"A@d"}
    assert "slot1@node9" not in {m.slot for m in result.matches}  # ran longest: kept


def test_s12_a_user_with_nothing_idle_leaves_the_pie_after_the_first_spin():
    # As above, but A has no idle job: at its turn in spin 1 it is done (spec §3.1, §3.5),
    # so spin 2 shares the pool among B alone: limit 10 - 9 = 1, and B takes the 10th.
    accountant = Accountant()
    accountant.set_priority("A@d", 10)
    params = PARAMS.with_(preemption_requirements=UWCS_PREEMPTION)
    counts, result = cycle(_held_by_a(10), jobs_of("B", 100, 2), accountant, params)
    assert counts == {"B": 10}
    assert result.stats.pie_spins >= 2


def test_s12_default_policy_never_preempts_for_priority():
    accountant = Accountant()
    accountant.set_priority("A@d", 10)
    counts, result = cycle(_held_by_a(10), jobs_of("B", 100, 2), accountant)
    assert counts == {}
    assert {r.reason for r in result.rejections} == {"PREEMPTION_REQUIREMENTS == False"}


def test_s12_worse_priority_never_preempts():
    # The seed's rule: even with a permissive policy, only a better EUP preempts.
    accountant = Accountant()
    accountant.set_priority("B@d", 50)  # B's EUP 50000 is worse than A's 500
    params = PARAMS.with_(preemption_requirements=Expr("true"))
    counts, _ = cycle(_held_by_a(10), jobs_of("B", 100, 2), accountant, params)
    assert counts == {}
    htcondor = params.with_(preempt_on_better_priority_only=False)
    counts, _ = cycle(_held_by_a(10), jobs_of("B", 100, 2), accountant, htcondor)
    assert counts["B"] > 0


def test_s13_rank_preemption_ignores_the_submitter_limit():
    # slot1 prefers boss's jobs (RANK 1 > CurrentRank 0 of X's job). boss already holds
    # slot3 and has factor 1e6: its limit is max(0, share * 3 - 1) = 0, so in spin 1 it
    # negotiates in startd-rank-only mode and takes slot1 by Rank anyway.
    accountant = Accountant()
    accountant.set_factor("boss@d", 1e6)
    pool = [
        make_slot("slot1@m").rank('Owner == "boss"').claimed_by("X@d").build(),
        make_slot("slot2@m").claimed_by("Y@d").build(),
        make_slot("slot3@m").claimed_by("boss@d").build(),
    ]
    counts, result = cycle(pool, jobs_of("boss", 5, 1), accountant)
    assert counts == {"boss": 1}
    (match,) = result.matches
    assert (match.slot, match.reason, match.preempting) == ("slot1@m", "Rank", "X@d")


def test_s27_slot_constraint_shards_the_pool():
    # 20 slots, NEGOTIATOR_SLOT_CONSTRAINT = SlotID == 7: the job lands on slot7; the pool
    # is 1 slot; slots outside the shard are not charged to anyone.
    pool = [make_slot(f"slot{i}@host").build() for i in range(1, 21)]
    pool[0] = make_slot("slot1@host").claimed_by("C@d").build()
    params = PARAMS.with_(slot_constraint=Expr("SlotID == 7"))
    _, result = cycle(pool, [make_job("A").build()], params=params)
    assert [m.slot for m in result.matches] == ["slot7@host"]
    assert result.stats.total_slots == 1
    assert "C@d" not in result.usage


def test_s28_partitionable_slot_without_a_consumption_policy():
    # One 16-core p-slot (weight 16), A and B new: limits 8/8. A (first by name) takes the
    # whole p-slot, its limit rounded up once; the pie is then empty and B gets nothing.
    pslot = make_slot("slot1@big").cpus(16).memory(64000).partitionable().build()
    counts, result = cycle([pslot], jobs_of("A", 30, 1) + jobs_of("B", 30, 2))
    assert counts == {"A": 1}
    assert result.matches[0].cost == 16


def test_s28_partitionable_slot_with_a_consumption_policy():
    # Each one-core job consumes 1 core (cost 1) and the p-slot stays: A 8, B 8.
    pslot = (
        make_slot("slot1@big")
        .cpus(16)
        .memory(64000)
        .partitionable()
        .set(
            MachineResources="Cpus Memory",
            ConsumptionCpus=Expr("quantize(target.RequestCpus, {1})"),
            ConsumptionMemory=Expr("quantize(target.RequestMemory, {128})"),
        )
        .build()
    )
    counts, result = cycle([pslot], jobs_of("A", 30, 1) + jobs_of("B", 30, 2))
    assert counts == {"A": 8, "B": 8}
    assert {m.cost for m in result.matches} == {1.0}
    assert pslot.eval("Cpus") == 16  # the cycle leaves its inputs as they were


def test_s29_accountant_log_round_trip(tmp_path):
    store = AccountantStore(tmp_path, log_max_size=1_000_000)
    accountant = store.load()
    accountant.update_priorities(NOW)
    accountant.set_factor("alice@d", 2000)
    store.save(accountant)
    log = (tmp_path / "Accountantnew.log").read_text()
    assert "103 Customer.alice@d PriorityFactor 2000.000000" in log.splitlines()
    accountant.delete("alice@d")
    store.save(accountant)
    assert "102 Customer.alice@d" in (tmp_path / "Accountantnew.log").read_text().splitlines()
    # past MAX_ACCOUNTANT_DATABASE_SIZE the file is rewritten from the current state
    small = AccountantStore(tmp_path / "small", log_max_size=400)
    accountant = small.load()
    accountant.update_priorities(NOW)
    for i in range(6):
        accountant.set_factor(f"user{i}@d", 1000 + i)
        small.save(accountant)
    lines = (tmp_path / "small" / "Accountantnew.log").read_text().splitlines()
    assert lines[0].startswith("107 ") and "CreationTimestamp" in lines[0]
    assert {line[:3] for line in lines[1:]} == {"101", "103"}
    assert sum(line.startswith("101 Customer.") for line in lines) == 6
    assert AccountantStore(tmp_path / "small").load().customer("user5@d").factor == 1005


def test_s30_resetusage_keeps_the_priority():
    accountant = Accountant(AccountantPolicy())
    accountant.set_priority("A@d", 75.125)
    accountant.set_accumulated_usage("A@d", 1.728e7)
    accountant.reset_usage("A@d", NOW)
    record = accountant.customer("A@d")
    assert (record.weighted_accumulated_usage, record.begin_usage_time) == (0.0, int(NOW))
    assert record.priority == 75.125
