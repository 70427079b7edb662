"""The seed's default policy (startd.md §10.2) and its policy examples (seed 004 §3.6.3,
§3.6.4, §3.6.9): truth tables of the expanded expressions, the START examples with
KeyboardIdle 34 s, the RANK examples (tenorsax, piano, bass, drums; Jimmy preempting
Elvin), WorkHours/AfterHours and coltrane's testing policy."""

import pytest
from startd_script import COLTRANE, job, run, startd, vanilla

from fairpool.classad import UNDEFINED, ClassAd
from fairpool.classad.match import evaluate_attribute
from fairpool.startd.expressions import Truth, truth
from fairpool.startd.inputs import MachineInputs
from fairpool.startd.policy import StartdPolicy

NOW = 100000
POLICY = StartdPolicy.from_knobs({})


def slot_ad(**attributes) -> ClassAd:
    """A slot ad with the default policy, evaluated at NOW."""
    ad = ClassAd({"CurrentTime": NOW, "CondorLoadAvg": 0.0, "CpuBusyTime": 0, **attributes})
    for name, expr in POLICY.expressions.items():
        ad[name] = expr
    return ad


def value(ad: ClassAd, name: str, target: ClassAd | None = None):
    return evaluate_attribute(ad, name, target, now=NOW)


STD = job("[JobUniverse=1; ImageSize=20000]")
SMALL = job("[JobUniverse=1; ImageSize=10000]")
VAN = job("[JobUniverse=5; ImageSize=20000]")
PVM = job("[JobUniverse=4; ImageSize=20000]")
NOIMG = job("[JobUniverse=1]")


@pytest.mark.parametrize(
    ("ki", "load", "condor", "state", "start"),
    [
        (34, 0.1, 0.0, "Unclaimed", False),
        (900, 0.1, 0.0, "Unclaimed", False),  # strict >
        (901, 0.1, 0.0, "Unclaimed", True),
        (1000, 0.3, 0.0, "Unclaimed", True),  # 0.3 <= 0.3
        (1000, 0.4, 0.0, "Owner", False),
        (1000, 1.2, 1.0, "Unclaimed", True),  # non-Condor load 0.2
        (1000, 1.3, 0.0, "Claimed", True),  # CPU clause bypassed in Claimed
        (34, 1.3, 0.0, "Claimed", False),
        (1000, UNDEFINED, 0.0, "Unclaimed", UNDEFINED),
    ],
)
def test_start_and_is_owner(ki, load, condor, state, start):
    ad = slot_ad(KeyboardIdle=ki, LoadAvg=load, CondorLoadAvg=condor, State=state)
    assert value(ad, "START") == start
    # IsOwner = (START =?= False): TRUE only when START is exactly FALSE.
    assert value(ad, "IsOwner") is (start is False)


@pytest.mark.parametrize(
    ("jobad", "busy_keyboard", "idle_keyboard"),
    [
        (STD, False, True),
        (SMALL, True, True),
        (VAN, True, True),
        (PVM, True, True),
        (NOIMG, UNDEFINED, True),
    ],
)
def test_want_suspend(jobad, busy_keyboard, idle_keyboard):
    assert value(slot_ad(KeyboardIdle=10), "WANT_SUSPEND", jobad) == busy_keyboard
    assert value(slot_ad(KeyboardIdle=1000), "WANT_SUSPEND", jobad) == idle_keyboard


@pytest.mark.parametrize(
    ("age", "std", "van"), [(30, False, True), (600, False, True), (601, True, True)]
)
def test_want_vacate(age, std, van):
    ad = slot_ad(JobStart=NOW - age)
    assert value(ad, "WANT_VACATE", STD) is std
    assert value(ad, "WANT_VACATE", VAN) is van
    assert value(ad, "WANT_VACATE", NOIMG) is std
    # A job ad without JobUniverse: U before 600 s (HTCondor stops; we raise PolicyError).
    assert value(ad, "WANT_VACATE", job("[ImageSize=1]")) == (True if age > 600 else UNDEFINED)


@pytest.mark.parametrize(
    ("ki", "busy", "age", "expected"),
    [
        (59, 0, 10, True),
        (60, 0, 10, False),
        (1000, 121, 91, True),
        (1000, 120, 91, False),
        (1000, 121, 90, False),
        (1000, 500, None, UNDEFINED),
        (59, 0, None, True),
    ],
)
def test_suspend(ki, busy, age, expected):
    extra = {} if age is None else {"JobStart": NOW - age}
    assert value(slot_ad(KeyboardIdle=ki, CpuBusyTime=busy, **extra), "SUSPEND", STD) == expected


@pytest.mark.parametrize(
    ("load", "timer", "ki", "expected"),
    [
        (0.1, 11, 301, True),
        (0.1, 10, 301, False),
        (0.1, 11, 300, False),
        (0.31, 11, 1000, False),
        (0.3, 100, 1000, True),
    ],
)
def test_continue(load, timer, ki, expected):
    ad = slot_ad(LoadAvg=load, KeyboardIdle=ki, EnteredCurrentActivity=NOW - timer)
    assert value(ad, "CONTINUE", STD) is expected


@pytest.mark.parametrize(
    ("activity", "timer", "ki", "busy", "jobad", "expected"),
    [
        ("Suspended", 601, 1000, 0, STD, True),
        ("Suspended", 600, 1000, 0, STD, False),
        ("Busy", 5000, 10, 0, STD, True),
        ("Busy", 5000, 10, 0, SMALL, False),  # wants suspension
        ("Busy", 5000, 10, 0, VAN, False),
        ("Busy", 5000, 1000, 200, STD, False),  # SUSPEND T but WANT_SUSPEND T
        ("Busy", 5000, 10, 0, NOIMG, UNDEFINED),  # no preemption
        ("Suspended", 601, 10, 0, NOIMG, True),
    ],
)
def test_preempt(activity, timer, ki, busy, jobad, expected):
    ad = slot_ad(
        Activity=activity,
        EnteredCurrentActivity=NOW - timer,
        KeyboardIdle=ki,
        CpuBusyTime=busy,
        JobStart=NOW - 5000,
    )
    assert value(ad, "PREEMPT", jobad) == expected


def test_kill():
    assert value(slot_ad(EnteredCurrentActivity=NOW - 600), "KILL") is False
    assert value(slot_ad(EnteredCurrentActivity=NOW - 601), "KILL") is True


@pytest.mark.parametrize(
    ("image", "since", "expected"),
    [
        (10000, 21600, False),
        (10000, 21601, True),
        (70000, 21601, False),
        (70000, 43201, True),
        (None, 21601, False),
        (None, 43201, True),
        (10000, None, False),
    ],
)
def test_periodic_checkpoint(image, since, expected):
    jobad = job("[JobUniverse=1]" if image is None else f"[JobUniverse=1; ImageSize={image}]")
    extra = {} if since is None else {"LastPeriodicCheckpoint": NOW - since}
    # Not a boolean (UNDEFINED) counts as FALSE for PERIODIC_CHECKPOINT.
    result = truth(value(slot_ad(**extra), "PERIODIC_CHECKPOINT", jobad))
    assert (result is Truth.TRUE) is expected


# ---- START examples with KeyboardIdle 34 s (§3.6.3 and startd.md §10.3) ----------------


@pytest.mark.parametrize(
    ("start", "local", "state_at_0"),
    [
        ('KeyboardIdle > 15 * 60 && Owner == "coltrane"', False, "Owner"),  # F && U
        ('KeyboardIdle > 15 * 60 || Owner == "coltrane"', UNDEFINED, "Unclaimed"),  # F || U
        ('KeyboardIdle > 900 || Owner =?= "coltrane"', False, "Owner"),  # F || F
    ],
)
def test_start_examples_with_keyboard_idle_34(start, local, state_at_0):
    s = startd({"START": start}, MachineInputs(last_touch=-34))
    s.advance(0)
    assert s.ad.eval("START", now=0) == local
    assert s.ad["State"] == state_at_0
    # With a job, Owner decides: coltrane's is accepted unless the && needs the keyboard.
    coltrane = s.ad.eval("START", vanilla("coltrane"), now=0)
    assert coltrane is ("&&" not in start)


# ---- RANK (§3.6.4) ---------------------------------------------------------------------

GROUP_RANK = 'Owner == "coltrane" || Owner == "tyner" || Owner == "garrison" || Owner == "jones"'
BASS_RANK = (
    '(Owner == "coltrane") + (Owner == "tyner") + ((Owner == "garrison") * 10) + (Owner == "jones")'
)


@pytest.mark.parametrize("machine", ["tenorsax", "piano", "drums"])
def test_group_rank_prefers_the_quartet(machine):
    # Any quartet member ranks 1 (true), anyone else 0; an outsider's job is preempted by a
    # member's claim (1 >= 0), and an outsider cannot take the slot back (0 < 1).
    s = startd({"RANK": GROUP_RANK}, machine=ClassAd(f'[Name="slot1@{machine}"]'))
    s.request_claim(100, vanilla("mccoy"))
    s.activate(101)
    assert s.ad["CurrentRank"] == 0.0
    assert s.request_claim(200, vanilla("tyner"), True).accepted
    s.starter_exit(230)
    assert s.ad["CurrentRank"] == 1.0
    assert s.ad["RemoteOwner"] == "tyner"
    assert not s.request_claim(300, vanilla("mccoy"), True).accepted


def test_jimmy_preempts_elvin_on_bass():
    # mccoy 0 -> Elvin Jones 1 (preempts) -> Jimmy Garrison 10 (preempts Elvin); then
    # Elvin (1 < 10) cannot come back.
    s = startd({"RANK": BASS_RANK}, machine=ClassAd('[Name="slot1@bass"]'))
    s.request_claim(100, vanilla("mccoy"))
    s.activate(101)
    assert s.request_claim(1000, vanilla("jones"), True).accepted
    s.starter_exit(1010)
    s.activate(1011)
    assert (s.ad["RemoteOwner"], s.ad["CurrentRank"]) == ("jones", 1.0)
    assert s.request_claim(2000, vanilla("garrison"), True).accepted
    s.starter_exit(2010)
    s.activate(2011)
    assert (s.ad["RemoteOwner"], s.ad["CurrentRank"]) == ("garrison", 10.0)
    assert not s.request_claim(3000, vanilla("jones"), True).accepted
    assert s.ad["Activity"] == "Busy"


def test_rank_by_image_size_and_the_broken_coltrane_rank():
    s = startd({"RANK": "ImageSize"})
    s.request_claim(100, job('[Owner="x"; JobUniverse=5; ImageSize=50000]'))
    assert s.ad["CurrentRank"] == 50000.0
    # "coltrane" * 1000000000000 is ERROR, so the whole RANK is ERROR, which counts as 0.
    s = startd({"RANK": '(Owner == "coltrane" * 1000000000000) + Imagesize'})
    s.request_claim(100, job('[Owner="coltrane"; JobUniverse=5; ImageSize=50000]'))
    assert s.ad["CurrentRank"] == 0.0


def test_always_run_policy_ignores_the_keyboard():
    knobs = {"START": "True", "SUSPEND": "False", "PREEMPT": "False", "KILL": "False"}
    inputs = MachineInputs().use(1000, 5000)
    _, seen = run(
        [(100, "request_claim", vanilla("mccoy")), (101, "activate")], 6000, knobs, inputs
    )
    assert seen == [(0, "Unclaimed/Idle"), (100, "Claimed/Idle"), (101, "Claimed/Busy")]


# ---- WorkHours / AfterHours (§3.6.9.2) ---------------------------------------------------

WORK = "( (ClockMin >= 480 && ClockMin < 1020) && (ClockDay > 0 && ClockDay < 6) )"
AFTER = "( (ClockMin < 480 || ClockMin >= 1020) || (ClockDay == 0 || ClockDay == 6) )"


@pytest.mark.parametrize(
    ("day", "minute", "work"),
    [
        (1, 479, False),
        (1, 480, True),
        (1, 1019, True),
        (1, 1020, False),
        (5, 600, True),
        (6, 600, False),
        (0, 600, False),
    ],
)
def test_work_hours_and_after_hours(day, minute, work):
    ad = ClassAd({"ClockDay": day, "ClockMin": minute})
    ad["WorkHours"] = ClassAd(f"[x = {WORK}]").lookup("x")
    ad["AfterHours"] = ClassAd(f"[x = {AFTER}]").lookup("x")
    assert ad.eval("WorkHours") is work
    assert ad.eval("AfterHours") is (not work)


# ---- coltrane's testing policy (§3.6.9.1) -----------------------------------------------


def test_coltrane_is_never_suspended_vacated_or_killed():
    # Keyboard in use all day: mccoy's job would be suspended then preempted; coltrane's
    # runs on (SUSPEND and PREEMPT are F for Owner "coltrane"; CONTINUE/KILL unchanged).
    inputs = MachineInputs().use(0, 90000)
    s, seen = run(
        [(100, "request_claim", vanilla("coltrane")), (101, "activate")], 86400, COLTRANE, inputs
    )
    assert seen == [(0, "Unclaimed/Idle"), (100, "Claimed/Idle"), (101, "Claimed/Busy")]
    assert not [a for a in s.actions if a.kind in ("suspend", "soft kill", "hard kill")]
