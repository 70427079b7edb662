"""The SEED-profile scenarios of spec startd.md §14 (ST-1 ... ST-30), policy D unless stated:
the seed's default policy, IsOwner defaulted, RANK 0, MATCH_TIMEOUT 300, KILLING_TIMEOUT
30, one static slot, passes every 300 s (every 5 s while polling), events before the pass
of the same second. KI = KeyboardIdle; "bg" = LoadAvg - CondorLoadAvg."""

import pytest
from startd_script import COLTRANE, J_NOIMG, J_SMALL, J_STD, J_VAN, job, run, vanilla

from fairpool.startd.inputs import MachineInputs

U, OWN, M = "Unclaimed/Idle", "Owner/Idle", "Matched/Idle"
CI, CB, CS = "Claimed/Idle", "Claimed/Busy", "Claimed/Suspended"
PV, PK = "Preempting/Vacating", "Preempting/Killing"

BASS_RANK = {
    "RANK": '(Owner == "coltrane") + (Owner == "tyner") + ((Owner == "garrison") * 10) '
    '+ (Owner == "jones")'
}
WORK_HOURS = "( (ClockMin >= 480 && ClockMin < 1020) && (ClockDay > 0 && ClockDay < 6) )"
AFTER_HOURS = "( (ClockMin < 480 || ClockMin >= 1020) || (ClockDay == 0 || ClockDay == 6) )"
WORK_START = {
    "START": f"{AFTER_HOURS} && (LoadAvg - CondorLoadAvg) <= 0.3 && KeyboardIdle > 15 * 60"
}
WORK_B = {
    **WORK_START,
    "WANT_SUSPEND": AFTER_HOURS,
    "SUSPEND": f"( KeyboardIdle < 60 || {WORK_HOURS} || "
    "((CpuBusyTime > 2*60) && (CurrentTime - JobStart) > 90) )",
}


def touches(*times: int) -> MachineInputs:
    inputs = MachineInputs()
    for t in times:
        inputs.use(t)
    return inputs


def bg(start: int, load: float, end: int | None = None, inputs=None) -> MachineInputs:
    inputs = inputs or MachineInputs()
    inputs.set(start, "LoadAvg", load)
    if end is not None:
        inputs.set(end, "LoadAvg", 0.0)
    return inputs


CASES = [
    # T1 at the first pass (t=0): KI = 100000 > 900 and bg 0 <= 0.3 -> START T, IsOwner F.
    pytest.param([], 100, None, None, [(0, U)], id="ST-1"),
    # No polling in Owner: passes at 0/300/600 see KI = 34/334/634; at 900 KI = 934 > 900.
    pytest.param([], 1000, None, MachineInputs(last_touch=-34), [(900, U)], id="ST-2"),
    # T6 T8 T10 T11 T9 (vacate, no job: Vacating, leaves at once) T17 T1 (stale ad: State
    # is still "Preempting", so START ignores the CPU and is T).
    pytest.param(
        [
            (100, "match"),
            (101, "request_claim", job(J_STD)),
            (102, "activate"),
            (5000, "starter_exit"),
            (5001, "vacate"),
        ],
        6000,
        None,
        None,
        [(0, U), (100, M), (101, CI), (102, CB), (5000, CI), (5001, PV), (5001, OWN), (5001, U)],
        id="ST-3",
    ),
    # MATCH_TIMEOUT 300: 100 + 300 = 400 -> Owner, then IsOwner F -> Unclaimed.
    pytest.param(
        [(100, "match")], 1000, None, None, [(0, U), (100, M), (400, OWN), (400, U)], id="ST-4"
    ),
    # DIV-1: at the pass of 300 local START is F (KI = 150) -> T7; Owner until KI > 900
    # at a 300-grid pass: 1200 - 150 = 1050.
    pytest.param(
        [(100, "match")],
        1500,
        None,
        touches(150),
        [(0, U), (100, M), (300, OWN), (1200, U)],
        id="ST-5a",
    ),
    # Without DIV-1 the match times out at 400; IsOwner T then (KI 250); 1200 as above.
    pytest.param(
        [(100, "match")],
        1500,
        {"MATCHED_CHECKS_START": "False"},
        touches(150),
        [(0, U), (100, M), (400, OWN), (1200, U)],
        id="ST-5b",
    ),
    # Big std job + keyboard: WANT_SUSPEND F, SUSPEND T -> PREEMPT T; ActivationTimer
    # 1000 > 600 -> Vacating. Owner at exit (KI 100); Unclaimed at pass 3000 (KI 1000).
    pytest.param(
        [
            (100, "match"),
            (101, "request_claim", job(J_STD)),
            (1000, "activate"),
            (2100, "starter_exit"),
        ],
        3500,
        None,
        touches(2000),
        [(0, U), (100, M), (101, CI), (1000, CB), (2000, PV), (2100, OWN), (3000, U)],
        id="ST-6",
    ),
    # Small job wants suspension; CONTINUE needs KI > 300: 2000 + 305 on the 5-s grid.
    pytest.param(
        [(101, "request_claim", job(J_SMALL)), (1000, "activate")],
        2500,
        None,
        touches(2000),
        [(0, U), (101, CI), (1000, CB), (2000, CS), (2305, CB)],
        id="ST-7",
    ),
    # Suspended at 2000; PREEMPT when ActivityTimer 605 > 600 (2605); Owner at exit (KI
    # 10); passes 3000/3300/3600 see KI 10/310/610, 3900 sees 910 > 900.
    pytest.param(
        [(101, "request_claim", job(J_SMALL)), (1000, "activate"), (2700, "starter_exit")],
        4000,
        None,
        touches(*range(2000, 3000, 30)),
        [(0, U), (101, CI), (1000, CB), (2000, CS), (2605, PV), (2700, OWN), (3900, U)],
        id="ST-8",
    ),
    # CpuBusy first seen at pass 2000; CpuBusyTime 125 > 120 at 2125; CONTINUE at 2300
    # (bg 0, ActivityTimer 175 > 10, KI > 300).
    pytest.param(
        [(101, "request_claim", job(J_VAN)), (1000, "activate")],
        2500,
        None,
        bg(2000, 0.6, 2300),
        [(0, U), (101, CI), (1000, CB), (2125, CS), (2300, CB)],
        id="ST-9",
    ),
    # Suspended 2125; PREEMPT at 2125 + 605 = 2730 (Vacating: vanilla); KILL at 2730 + 605
    # = 3335; SIGKILL 30 s later, 3365. Stale ad -> Unclaimed, then the pass of 3365 sees
    # State "Unclaimed" and bg 0.6: START F -> Owner.
    pytest.param(
        [(101, "request_claim", job(J_VAN)), (1000, "activate")],
        3500,
        None,
        bg(2000, 0.6),
        [
            (0, U),
            (101, CI),
            (1000, CB),
            (2125, CS),
            (2730, PV),
            (3335, PK),
            (3365, OWN),
            (3365, U),
            (3365, OWN),
        ],
        id="ST-10",
    ),
    pytest.param(
        [(101, "request_claim", job(J_VAN)), (1000, "activate")],
        3500,
        {"STALE_AD_IN_ENTER_ACTION": "False"},
        bg(2000, 0.6),
        [(0, U), (101, CI), (1000, CB), (2125, CS), (2730, PV), (3335, PK), (3365, OWN)],
        id="ST-10b",
    ),
    # WANT_VACATE F (ActivationTimer 300 <= 600, std) -> Killing directly.
    pytest.param(
        [(101, "request_claim", job(J_STD)), (1000, "activate"), (1302, "starter_exit")],
        1500,
        None,
        touches(1300),
        [(0, U), (101, CI), (1000, CB), (1300, PK), (1302, OWN)],
        id="ST-11",
    ),
    # T9: START with the request ad is F at 200 (KI 0); no job: Vacating, out at once.
    pytest.param(
        [(100, "request_claim", job(J_STD))],
        500,
        None,
        touches(200),
        [(0, U), (100, CI), (200, PV), (200, OWN)],
        id="ST-12",
    ),
    # START bypasses CPUIdle in Claimed (State clause).
    pytest.param(
        [(100, "request_claim", job(J_STD))],
        1000,
        None,
        bg(200, 0.9),
        [(0, U), (100, CI)],
        id="ST-13",
    ),
    # bass RANK: jones 1 >= 0 and garrison 10 >= 1 preempt (always Vacating); mccoy 0 and
    # jones 1 < 10 are refused.
    pytest.param(
        [
            (100, "request_claim", vanilla("mccoy")),
            (101, "activate"),
            (3000, "request_claim", vanilla("jones"), True),
            (3060, "starter_exit"),
            (3062, "activate"),
            (4000, "request_claim", vanilla("garrison"), True),
            (4030, "starter_exit"),
            (4031, "activate"),
            (5000, "request_claim", vanilla("mccoy"), True),
            (5001, "request_claim", vanilla("jones"), True),
        ],
        5500,
        BASS_RANK,
        None,
        [
            (0, U),
            (100, CI),
            (101, CB),
            (3000, PV),
            (3060, CI),
            (3062, CB),
            (4000, PV),
            (4030, CI),
            (4031, CB),
        ],
        id="ST-14",
    ),
    # The waiting claim's START with its ad is F at the exit (KI 30) -> refused -> T17.
    pytest.param(
        [
            (100, "request_claim", vanilla("mccoy")),
            (101, "activate"),
            (3000, "request_claim", vanilla("jones"), True),
            (3060, "starter_exit"),
        ],
        3100,
        BASS_RANK,
        touches(3030),
        [(0, U), (100, CI), (101, CB), (3000, PV), (3060, OWN)],
        id="ST-15",
    ),
    # Priority preemption at equal rank (0 >= 0) is accepted; always Vacating.
    pytest.param(
        [
            (100, "request_claim", job(J_STD)),
            (101, "activate"),
            (3000, "request_claim", job(J_VAN), True),
            (3003, "starter_exit"),
            (3004, "activate"),
        ],
        3100,
        None,
        None,
        [(0, U), (100, CI), (101, CB), (3000, PV), (3003, CI), (3004, CB)],
        id="ST-16",
    ),
    pytest.param(
        [
            (100, "request_claim", job(J_STD)),
            (101, "activate"),
            (3000, "vacate"),
            (3050, "starter_exit"),
        ],
        3100,
        None,
        None,
        [(0, U), (100, CI), (101, CB), (3000, PV), (3050, OWN), (3050, U)],
        id="ST-17",
    ),
    # vacate -fast: Killing; KILLING_TIMEOUT 30 -> SIGKILL at 3030 -> the starter is gone.
    pytest.param(
        [(100, "request_claim", job(J_STD)), (101, "activate"), (3000, "vacate", True)],
        3100,
        None,
        None,
        [(0, U), (100, CI), (101, CB), (3000, PK), (3030, OWN), (3030, U)],
        id="ST-18",
    ),
    # WANT_SUSPEND U -> F; PREEMPT = T && (U == F) = U -> never evicted by the keyboard.
    pytest.param(
        [(100, "request_claim", job(J_NOIMG)), (101, "activate")],
        3000,
        None,
        touches(2000),
        [(0, U), (100, CI), (101, CB)],
        id="ST-21",
    ),
    # Seed example 1: local START = F && U = F -> IsOwner T. Passes at 0/300/600 see KI
    # 34/334/634 (at 900 KI = 934: T && U = U, so the slot would leave Owner).
    pytest.param(
        [],
        600,
        {"START": 'KeyboardIdle > 15*60 && Owner == "coltrane"'},
        MachineInputs(last_touch=-34),
        [],
        id="ST-22",
    ),
    # Seed example 2: local START = F || U = U -> Unclaimed; mccoy refused (F || F) ->
    # Owner -> IsOwner F -> Unclaimed; coltrane accepted.
    pytest.param(
        [(100, "request_claim", vanilla("mccoy")), (200, "request_claim", vanilla("coltrane"))],
        250,
        {"START": 'KeyboardIdle > 15*60 || Owner == "coltrane"'},
        MachineInputs(last_touch=-34),
        [(0, U), (100, OWN), (100, U), (200, CI)],
        id="ST-23",
    ),
    # coltrane test policy: local START is U, so never Owner at a pass; coltrane's job is
    # never suspended (SUSPEND = ... && Owner != "coltrane" is F).
    pytest.param(
        [
            (100, "request_claim", vanilla("mccoy")),
            (200, "request_claim", vanilla("coltrane")),
            (201, "activate"),
            (3000, "starter_exit"),
        ],
        3300,
        COLTRANE,
        touches(*range(0, 3400, 20)),
        [(0, U), (100, OWN), (100, U), (200, CI), (201, CB), (3000, CI)],
        id="ST-24",
    ),
    # Other users' jobs follow the defaults: the keyboard suspends mccoy's vanilla job.
    pytest.param(
        [(100, "request_claim", vanilla("mccoy")), (101, "activate")],
        2100,
        COLTRANE,
        touches(2000),
        [(0, U), (100, CI), (101, CB), (2000, CS)],
        id="ST-25",
    ),
    # WorkHours (literal): Owner during Mon 08:00 (28800) - 17:00 (61200), 300-s grid.
    pytest.param([], 62000, WORK_START, None, [(0, U), (28800, OWN), (61200, U)], id="ST-26"),
    # A job started at 17:30 keeps running past 08:00 Tuesday (MachineBusy unused, DIV-13).
    pytest.param(
        [(63000, "request_claim", job(J_STD)), (63001, "activate")],
        120000,
        WORK_START,
        None,
        [(0, U), (28800, OWN), (61200, U), (63000, CI), (63001, CB)],
        id="ST-27",
    ),
    # Variant B: at Tue 08:00 (115200) WANT_SUSPEND = AfterHours = F and SUSPEND T ->
    # PREEMPT T -> Vacating (ActivationTimer > 600); Owner at exit (work hours).
    pytest.param(
        [(63000, "request_claim", job(J_STD)), (63001, "activate"), (115240, "starter_exit")],
        116000,
        WORK_B,
        None,
        [(0, U), (28800, OWN), (61200, U), (63000, CI), (63001, CB), (115200, PV), (115240, OWN)],
        id="ST-28",
    ),
    # Owner (local START F || F = F) yet matched and claimed by coltrane: Requirements is
    # START evaluated with the job.
    pytest.param(
        [(100, "match"), (101, "request_claim", vanilla("coltrane"))],
        200,
        {"START": 'KeyboardIdle > 900 || Owner =?= "coltrane"'},
        touches(*range(0, 300, 10)),
        [(100, M), (101, CI)],
        id="ST-29",
    ),
    # CPU load suspends a big std job (keyboard idle: WANT_SUSPEND T): CpuBusyTime 125 at
    # 1125; 10 minutes suspended -> 1730 PREEMPT; WANT_VACATE T (1625 > 600).
    pytest.param(
        [(100, "request_claim", job(J_STD)), (105, "activate")],
        2000,
        None,
        bg(1000, 0.6),
        [(0, U), (100, CI), (105, CB), (1125, CS), (1730, PV)],
        id="ST-30",
    ),
]


@pytest.mark.parametrize(("script", "end", "knobs", "inputs", "expected"), CASES)
def test_seed_scenario(script, end, knobs, inputs, expected):
    _, seen = run(script, end, knobs, inputs)
    assert seen == expected


def test_st1_entered_current_state():
    s, _ = run([], 100)
    assert s.ad["EnteredCurrentState"] == 0
    assert s.ad["State"] == "Unclaimed"


def test_st3_job_attributes_and_timestamps():
    s, _ = run([(101, "request_claim", job(J_STD)), (102, "activate")], 200)
    assert s.ad["JobStart"] == 102
    s.starter_exit(5000)
    assert "JobStart" not in s.ad
    s.vacate(5001)
    assert s.ad["EnteredCurrentActivity"] == 5001


def test_st4_requirements_false_while_matched():
    s, _ = run([(100, "match")], 399)
    assert s.ad["Requirements"] is False
    s.advance(400)
    assert s.ad["State"] == "Unclaimed"
    assert s.ad.eval("Requirements", now=400) is True


def test_st14_current_rank_and_refusals():
    s, _ = run([(100, "request_claim", vanilla("mccoy")), (101, "activate")], 200, BASS_RANK)
    assert s.ad["CurrentRank"] == 0.0
    s.request_claim(3000, vanilla("jones"), True)
    s.starter_exit(3060)
    assert s.ad["CurrentRank"] == 1.0
    s.activate(3062)
    s.request_claim(4000, vanilla("garrison"), True)
    s.starter_exit(4030)
    assert s.ad["CurrentRank"] == 10.0
    s.activate(4031)
    assert not s.request_claim(5000, vanilla("mccoy"), True).accepted
    assert not s.request_claim(5001, vanilla("jones"), True).accepted


def test_st18_sigkill_action():
    s, _ = run(
        [(100, "request_claim", job(J_STD)), (101, "activate"), (3000, "vacate", True)], 3100
    )
    assert [(a.t, a.kind) for a in s.actions if a.kind in ("hard kill", "SIGKILL")] == [
        (3000, "hard kill"),
        (3030, "SIGKILL"),
    ]


@pytest.mark.parametrize(
    ("jobtext", "stamps"),
    [
        # LastPeriodicCheckpoint = JobStart = 101 (DIV-7); 6 h = 21600, strict >, 5-s grid:
        # first grid point > 21701 is 21705; then > 21705 + 21600 = 43305 is 43310.
        pytest.param(J_SMALL, [21705, 43310], id="ST-19"),
        # 70000 KB: only the 12 h rule: > 101 + 43200 -> 43305; > 86505 -> 86510.
        pytest.param("[JobUniverse=1; ImageSize=70000]", [43305, 86510], id="ST-20"),
    ],
)
def test_periodic_checkpoints(jobtext, stamps):
    s, seen = run([(100, "request_claim", job(jobtext)), (101, "activate")], 90000)
    assert seen == [(0, U), (100, CI), (101, CB)]
    assert [a.t for a in s.actions if a.kind == "checkpoint"][:2] == stamps


def test_st27_periodic_checkpoints_after_hours():
    s, _ = run([(63000, "request_claim", job(J_STD)), (63001, "activate")], 110000, WORK_START)
    # 63001 + 21600 = 84601 -> 84605; 84605 + 21600 = 106205 -> 106210.
    assert [a.t for a in s.actions if a.kind == "checkpoint"] == [84605, 106210]


def test_st22_leaves_owner_once_start_is_undefined():
    # At 900, KI = 934: START = T && U = U, IsOwner = (U =?= False) = F -> Unclaimed.
    _, seen = run(
        [],
        900,
        {"START": 'KeyboardIdle > 15*60 && Owner == "coltrane"'},
        MachineInputs(last_touch=-34),
    )
    assert seen == [(900, U)]
