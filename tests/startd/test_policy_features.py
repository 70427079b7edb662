"""Policy features beyond the §14 scenarios: _VANILLA variants, benchmarks in the SEED
profile, GPUs and leftovers of partitionable slots, and claims accepted while draining."""

from startd_script import J_SMALL, J_VAN, MODERN, changes, job, run, startd

from fairpool.classad import ClassAd, Expr
from fairpool.startd.inputs import MachineInputs


def test_vanilla_variants_apply_to_vanilla_jobs_only():
    # SUSPEND_VANILLA = False: the keyboard at 2000 suspends the small standard job but not
    # the vanilla one (which wants suspension, so PREEMPT is not evaluated either).
    knobs = {"SUSPEND_VANILLA": "False"}
    inputs = MachineInputs().use(2000)
    _, std = run([(100, "request_claim", job(J_SMALL)), (101, "activate")], 2100, knobs, inputs)
    _, van = run(
        [(100, "request_claim", job(J_VAN)), (101, "activate")],
        2010,
        knobs,
        MachineInputs().use(2000),
    )
    assert std[-1] == (2000, "Claimed/Suspended")
    assert van[-1] == (101, "Claimed/Busy")


def test_a_vanilla_variant_that_is_not_a_boolean_falls_back():
    # KILL_VANILLA is UNDEFINED (names a missing attribute): the plain KILL decides.
    knobs = {"KILL_VANILLA": "NoSuchAttribute", "KILL": "True"}
    s, seen = run(
        [(100, "request_claim", job(J_VAN)), (101, "activate"), (200, "vacate")], 220, knobs
    )
    # The pass of 200 itself (events first) finds KILL true.
    assert seen[-2:] == [(200, "Preempting/Vacating"), (200, "Preempting/Killing")]
    assert s.changes[-1].expression == "KILL = True"


def test_want_vacate_vanilla():
    # WANT_VACATE_VANILLA = False: a vanilla job preempted by PREEMPT is killed at once.
    knobs = {"WANT_VACATE_VANILLA": "False", "WANT_SUSPEND": "False"}
    _, seen = run(
        [(100, "request_claim", job(J_VAN)), (101, "activate")],
        2010,
        knobs,
        MachineInputs().use(2000),
    )
    # WANT_SUSPEND F, SUSPEND T (KeyboardIdle 0) -> PREEMPT T -> WANT_VACATE_VANILLA F.
    assert seen[-1] == (2000, "Preempting/Killing")


def test_seed_benchmarks_every_four_hours():
    # The seed's example: RunBenchmarks = (CurrentTime - LastBenchmark) >= 4 * HOUR, with
    # LastBenchmark 0 at start-up: T3 at the pass of 14400 (only in Unclaimed).
    s = startd({"RunBenchmarks": "(CurrentTime - LastBenchmark) >= (4 * (60 * 60))"})
    s.advance(14399)
    assert changes(s) == [(0, "Unclaimed/Idle")]
    s.advance(14400)
    assert changes(s)[-1] == (14400, "Unclaimed/Benchmarking")
    s.benchmarks_done(14500)
    s.advance(28800)
    assert changes(s)[-1] == (14500, "Unclaimed/Idle")
    # Due from 14500 + 14400 = 28900; the first 300-s pass then is 29100.
    s.advance(29099)
    assert changes(s)[-1] == (14500, "Unclaimed/Idle")
    s.advance(29100)
    assert changes(s)[-1] == (29100, "Unclaimed/Benchmarking")


PSLOT = '[Name="slot1@gpu"; PartitionableSlot=True; Cpus=4; Memory=8192; Disk=100000; GPUs=2]'


def request(cpus, memory, gpus=0):
    return ClassAd(
        {
            "Owner": "bob",
            "JobUniverse": 5,
            "RequestCpus": cpus,
            "RequestMemory": memory,
            "RequestDisk": 1000,
            "RequestGPUs": gpus,
        }
    )


def test_gpus_are_carved_unrounded_and_leftovers_run_out():
    s = startd(profile=MODERN, machine=ClassAd(PSLOT))
    first = s.request_claim(10, request(1, 100, gpus=1))
    p = s.slot("slot1@gpu")
    assert s.slot(first.slot).ad["GPUs"] == 1 and p.ad["GPUs"] == 1
    # 100 MiB -> 128; the p-slot keeps 8192 - 128 = 8064 and 3 cpus (SlotWeight 3).
    assert (p.ad["Memory"], p.ad["Cpus"], p.ad.eval("SlotWeight")) == (8064, 3, 3)
    assert not s.request_claim(20, request(1, 100, gpus=2)).accepted  # one GPU left
    assert s.request_claim(30, request(3, 100)).accepted
    # Cpus 0 left: MY.Cpus > 0 is false, nothing more matches.
    assert p.ad["Cpus"] == 0
    assert p.ad.eval("Requirements", request(1, 1), now=30) is False
    assert p.ad["NumDynamicSlots"] == 2


def test_claims_accepted_under_the_draining_start():
    # A graceful drain with START = TRUE keeps the drained p-slot matchable: a new
    # claim carves a dynamic slot marked AcceptedWhileDraining.
    s = startd(profile=MODERN, machine=ClassAd(PSLOT))
    s.drain(100, "graceful", start=Expr("TRUE"))
    assert s.slot("slot1@gpu").pair == ("Drained", "Idle")
    reply = s.request_claim(200, request(1, 100))
    assert reply.accepted
    assert s.slot(reply.slot).ad["AcceptedWhileDraining"] is True
    # START FALSE (DEFRAG_DRAINING_START_EXPR's default) admits nothing.
    s2 = startd(profile=MODERN, machine=ClassAd(PSLOT))
    s2.drain(100, "graceful", start=Expr("FALSE"))
    assert not s2.request_claim(200, request(1, 100)).accepted


def test_busy_with_want_suspend_never_looks_at_preempt():
    # DIV-2: WANT_SUSPEND TRUE -> only SUSPEND is considered, so PREEMPT = True is ignored.
    knobs = {"WANT_SUSPEND": "True", "SUSPEND": "False", "PREEMPT": "True"}
    _, seen = run([(100, "request_claim", job(J_VAN)), (101, "activate")], 1000, knobs)
    assert seen[-1] == (101, "Claimed/Busy")
    # With WANT_SUSPEND FALSE the same PREEMPT evicts at the first pass (105).
    _, seen = run(
        [(100, "request_claim", job(J_VAN)), (101, "activate")],
        200,
        {**knobs, "WANT_SUSPEND": "False"},
    )
    assert seen[-1] == (105, "Preempting/Vacating")


def test_suspended_checks_preempt_before_continue():
    # Both true once suspended more than 10 s: PREEMPT wins (seed 3.6.8, 6.6 code).
    knobs = {
        "WANT_SUSPEND": "True",
        "SUSPEND": "KeyboardIdle < 60",
        "CONTINUE": "(CurrentTime - EnteredCurrentActivity) > 10",
        "PREEMPT": '(Activity == "Suspended") && (CurrentTime - EnteredCurrentActivity) > 10',
    }
    _, seen = run(
        [(100, "request_claim", job(J_VAN)), (101, "activate")],
        2100,
        knobs,
        MachineInputs().use(2000),
    )
    # Suspended at 2000; at 2015 (first 5-s pass with ActivityTimer > 10) both hold.
    assert seen[-2:] == [(2000, "Claimed/Suspended"), (2015, "Preempting/Vacating")]


def test_only_standard_universe_jobs_checkpoint():
    knobs = {"PERIODIC_CHECKPOINT": "True"}
    s, _ = run([(100, "request_claim", job(J_VAN)), (101, "activate")], 200, knobs)
    assert [a for a in s.actions if a.kind == "checkpoint"] == []
    s, _ = run([(100, "request_claim", job(J_SMALL)), (101, "activate")], 200, knobs)
    # every pass from 105 on (5-s grid): 105, 110, ..., 200
    assert [a.t for a in s.actions if a.kind == "checkpoint"] == list(range(105, 201, 5))
