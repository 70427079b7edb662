"""The MODERN-profile scenarios of spec startd.md §14 (MT-1 ... MT-16): current HTCondor's
built-in defaults (START True, WANT_SUSPEND False, WANT_VACATE True, IS_OWNER False,
MATCH_TIMEOUT 120), retirement, draining and partitionable slots. The expected lists are
the changes from the time the scenario is about (earlier set-up changes are checked
once, in MT-1)."""

import pytest
from startd_script import J_VAN, MODERN, changes, job, run, startd

from fairpool.classad import ClassAd, Expr
from fairpool.startd.inputs import MachineInputs

U, OWN = "Unclaimed/Idle", "Owner/Idle"
CI, CB, CR = "Claimed/Idle", "Claimed/Busy", "Claimed/Retiring"
PV, PK = "Preempting/Vacating", "Preempting/Killing"
DR, DI = "Drained/Retiring", "Drained/Idle"
KEYBOARD = {"PREEMPT": "KeyboardIdle < 60"}
MJRT = {**KEYBOARD, "MaxJobRetirementTime": "3600"}


def touches(*times: int) -> MachineInputs:
    inputs = MachineInputs()
    for t in times:
        inputs.use(t)
    return inputs


def since(seen, t0):
    return [change for change in seen if change[0] >= t0]


BUSY_VAN = [(100, "request_claim", job(J_VAN)), (1000, "activate")]

CASES = [
    # PREEMPT at 2000 retires irreversibly; MJRT 0 -> retirement over at once -> Vacating
    # (PREEMPT was true, WANT_VACATE True).
    pytest.param(
        [*BUSY_VAN, (2010, "starter_exit")],
        2100,
        KEYBOARD,
        touches(2000),
        2000,
        [(2000, CR), (2000, PV), (2010, OWN), (2010, U)],
        id="MT-1",
    ),
    # remaining = 3600 - (t - 1000) <= MaxVacate 600 first at t = 4000.
    pytest.param(
        [*BUSY_VAN, (4601, "starter_exit")],
        4700,
        MJRT,
        touches(2000),
        2000,
        [(2000, CR), (4000, PV), (4601, OWN), (4601, U)],
        id="MT-2",
    ),
    # A preempting claim retires reversibly; its release at 2500 unretires (T19).
    pytest.param(
        [*BUSY_VAN, (2000, "request_claim", job(J_VAN), True), (2500, "release", None, True)],
        2600,
        {"MaxJobRetirementTime": "3600"},
        None,
        2000,
        [(2000, CR), (2500, CB)],
        id="MT-3",
    ),
    # Without the release: Vacating at 4000 (PREEMPT never true), the new claim at exit.
    pytest.param(
        [*BUSY_VAN, (2000, "request_claim", job(J_VAN), True), (4010, "starter_exit")],
        4100,
        {"MaxJobRetirementTime": "3600"},
        None,
        2000,
        [(2000, CR), (4000, PV), (4010, CI)],
        id="MT-4",
    ),
    # MJRT 0: retirement has already expired, so no Retiring.
    pytest.param(
        [*BUSY_VAN, (2000, "request_claim", job(J_VAN), True)],
        2100,
        None,
        None,
        2000,
        [(2000, PV)],
        id="MT-5",
    ),
    # Claim started 100: age 900 at 1000 (kept), 1400 > 1200 at 1500 (ended).
    pytest.param(
        [
            (100, "request_claim", job(J_VAN)),
            (105, "activate"),
            (1000, "starter_exit"),
            (1001, "activate"),
            (1500, "starter_exit"),
        ],
        1600,
        {"CLAIM_WORKLIFE": "1200"},
        None,
        1000,
        [(1000, CI), (1001, CB), (1500, CI), (1500, PV), (1500, OWN), (1500, U)],
        id="MT-6",
    ),
    # The schedd's release kills (DIV-11).
    pytest.param(
        [(100, "request_claim", job(J_VAN)), (300, "release")],
        400,
        None,
        None,
        300,
        [(300, PK), (300, OWN), (300, U)],
        id="MT-7",
    ),
    pytest.param(
        [
            (100, "request_claim", job(J_VAN)),
            (101, "activate"),
            (3000, "vacate"),
            (3020, "starter_exit"),
        ],
        3100,
        None,
        None,
        3000,
        [(3000, CR), (3000, PV), (3020, OWN), (3020, U)],
        id="MT-8",
    ),
    # Resume happens in the periodic action of the next pass (update grid: 300).
    pytest.param(
        [(100, "drain", "graceful", True)],
        400,
        None,
        None,
        100,
        [(100, DR), (100, DI), (300, OWN), (300, U)],
        id="MT-9",
    ),
    pytest.param(
        [(100, "drain", "graceful"), (1000, "cancel_drain")],
        1100,
        None,
        None,
        100,
        [(100, DR), (100, DI), (1000, OWN), (1000, U)],
        id="MT-10",
    ),
]


@pytest.mark.parametrize(("script", "end", "knobs", "inputs", "t0", "expected"), CASES)
def test_modern_scenario(script, end, knobs, inputs, t0, expected):
    _, seen = run(script, end, knobs, inputs, MODERN)
    assert since(seen, t0) == expected


def test_mt1_setup():
    _, seen = run(BUSY_VAN, 1500, KEYBOARD, None, MODERN)
    assert seen == [(0, U), (100, CI), (1000, CB)]


def test_mt2_soft_kill_escalates_inside_vacating():
    # Soft kill at 4000; the starter escalates at 4000 + 600 and the activity stays
    # Vacating; KILLING_TIMEOUT later (4630) the startd's SIGKILL ends the starter.
    s, _ = run([*BUSY_VAN], 4620, MJRT, touches(2000), MODERN)
    assert s.ad["Activity"] == "Vacating"
    assert [(a.t, a.kind) for a in s.actions if a.kind in ("soft kill", "hard kill")] == [
        (4000, "soft kill"),
        (4600, "hard kill"),
    ]
    s.advance(4630)
    assert changes(s)[-2:] == [(4630, OWN), (4630, U)]


def test_mt2_retirement_time_remaining():
    s, _ = run([*BUSY_VAN], 2100, MJRT, touches(2000), MODERN)
    # 3600 - (2100 - 1000) = 2500 seconds of retirement left.
    assert s.ad["RetirementTimeRemaining"] == 2500


def test_mt11_graceful_drain_of_a_busy_slot():
    # Busy since 0; graceful drain at 1000 with START FALSE; remaining 3600 - t <= 600 at
    # 3000; the job exits at 3010: Owner -> Unclaimed -> Drained/Retiring -> Drained/Idle.
    s = startd({"MaxJobRetirementTime": "3600"}, profile=MODERN)
    s.request_claim(0, job(J_VAN))
    s.activate(0)
    s.drain(1000, "graceful", start=Expr("FALSE"))
    assert s.ad.eval("Requirements", now=1000) is False
    s.advance(3005)
    s.starter_exit(3010)
    s.advance(3100)
    assert since(changes(s), 1000) == [
        (1000, CR),
        (3000, PV),
        (3010, OWN),
        (3010, U),
        (3010, DR),
        (3010, DI),
    ]
    # Badput: run time up to the soft kill (3000 s) x 1 cpu.
    assert s.ad["TotalMachineDrainingBadput"] == 3000


PSLOT = '[Name="slot1@host"; PartitionableSlot=True; Cpus=8; Memory=16384; Disk=100000]'
REQUEST = '[Owner="bob"; JobUniverse=5; RequestCpus=3; RequestMemory=1000; RequestDisk=10000]'


def test_mt12_carving_a_dynamic_slot():
    s = startd(profile=MODERN, machine=ClassAd(PSLOT))
    reply = s.request_claim(10, ClassAd(REQUEST))
    assert reply.accepted and reply.slot == "slot1_1@host"
    d, p = s.slot("slot1_1@host"), s.slot("slot1@host")
    # 1000 MiB -> quantize 128 -> 1024; 10000 KiB -> quantize 1024 -> 10240.
    assert (d.ad["Cpus"], d.ad["Memory"], d.ad["Disk"]) == (3, 1024, 10240)
    assert d.pair == ("Claimed", "Idle")
    assert d.claim.request["RequestMemory"] == 1024
    # 8-3, 16384-1024, 100000-10240; SlotWeight (Cpus) follows what is left.
    assert (p.ad["Cpus"], p.ad["Memory"], p.ad["Disk"]) == (5, 15360, 89760)
    assert p.ad["NumDynamicSlots"] == 1
    assert p.ad.eval("SlotWeight") == 5
    assert p.pair == ("Unclaimed", "Idle")


def test_mt13_the_original_request_when_rounding_does_not_fit():
    pslot = ClassAd('[Name="slot1@host"; PartitionableSlot=True; Cpus=5; Memory=1000; Disk=89760]')
    s = startd(profile=MODERN, machine=pslot)
    request = ClassAd('[Owner="bob"; RequestCpus=1; RequestMemory=1000; RequestDisk=5000]')
    # Rounded: 1024 MiB > 1000 left -> the entire original request: Disk 5000, not 5120.
    assert s.request_claim(10, request).accepted
    d = s.slot("slot1_1@host")
    assert (d.ad["Memory"], d.ad["Disk"]) == (1000, 5000)


def test_mt14_a_released_dynamic_slot_goes_away():
    s = startd(profile=MODERN, machine=ClassAd(PSLOT))
    s.request_claim(10, ClassAd(REQUEST))
    s.activate(20, slot="slot1_1@host")
    s.starter_exit(30, slot="slot1_1@host")
    s.release(40, slot="slot1_1@host")
    assert changes(s, "slot1_1@host") == [
        (10, CI),
        (20, CB),
        (30, CI),
        (40, PK),
        (40, OWN),
        (40, U),
        (40, "Delete/Idle"),
    ]
    p = s.slot("slot1@host")
    assert (p.ad["Cpus"], p.ad["Memory"], p.ad["Disk"], p.ad["NumDynamicSlots"]) == (
        8,
        16384,
        100000,
        0,
    )
    assert list(s.slots) == ["slot1@host"]


def test_mt15_a_request_too_big_is_refused():
    pslot = ClassAd('[Name="slot1@host"; PartitionableSlot=True; Cpus=2; Memory=4096; Disk=100000]')
    s = startd(profile=MODERN, machine=pslot)
    assert not s.request_claim(10, ClassAd(REQUEST)).accepted
    assert changes(s) == [(0, U), (10, OWN), (10, U)]


def test_mt16_benchmarks_at_the_next_pass():
    s = startd({"RunBenchmarks": "LastBenchmark == 0"}, profile=MODERN)
    s.advance(299)
    assert changes(s) == [(0, U)]
    s.advance(300)
    assert changes(s)[-1] == (300, "Unclaimed/Benchmarking")
    s.benchmarks_done(400)
    assert changes(s)[-1] == (400, U)
    assert s.ad["LastBenchmark"] == 400
    s.advance(1200)
    assert changes(s)[-1] == (400, U)


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        # graceful: MJRT 3600 is honoured: 3600 - (t - 1000) <= 600 first at 4000.
        ("graceful", [(2000, CR), (4000, PV)]),
        # quick: retirement is not honoured (the vacate time is): Vacating at once; the
        # job ignores SIGTERM: hard kill at 2000 + 600, SIGKILL 30 s later; then the slot
        # drains (Owner -> Unclaimed -> Drained/Retiring -> Drained/Idle).
        ("quick", [(2000, CR), (2000, PV), (2630, OWN), (2630, U), (2630, DR), (2630, DI)]),
        # fast: every claim is killed: SIGKILL after KILLING_TIMEOUT (30 s).
        ("fast", [(2000, PK), (2030, OWN), (2030, U), (2030, DR), (2030, DI)]),
    ],
)
def test_drain_schedules_on_a_busy_slot(how, expected):
    _, seen = run(
        [*BUSY_VAN, (2000, "drain", how)], 4000, {"MaxJobRetirementTime": "3600"}, None, MODERN
    )
    assert since(seen, 2000) == expected


def test_draining_unclaimed_time_and_refusals():
    s = startd(profile=MODERN)
    assert s.drain(100, "graceful").accepted
    assert s.drain(200, "quick").reason == "Draining already in progress"
    s.advance(900)
    # Drained (1 cpu) from 100 to the pass at 900 that publishes it: 800 cpu-seconds.
    assert s.ad["TotalMachineDrainingUnclaimedTime"] == 800
    assert (s.ad["Draining"], s.ad["DrainReason"]) == (True, "by command")
    assert s.cancel_drain(1000).accepted
    assert "Draining" not in s.ad
    assert not s.drain(1100, "graceful", check=Expr("Cpus > 1")).accepted
