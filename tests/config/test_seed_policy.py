"""``use POLICY : SEED_DEFAULT`` gives the truth tables of spec startd.md §10.3.

The policy expressions are loaded through the configuration, copied into a machine ad (as
the startd does, so PREEMPT can read SUSPEND and WANT_SUSPEND) and evaluated with
fairpool.classad against the job of each row.
"""

import pytest

from fairpool.classad import UNDEFINED, ClassAd
from fairpool.config import parse_config_text

T = 100000
STD_BIG = {"JobUniverse": 1, "ImageSize": 20000}
STD_SMALL = {"JobUniverse": 1, "ImageSize": 10000}
VANILLA = {"JobUniverse": 5, "ImageSize": 20000}
PVM = {"JobUniverse": 4, "ImageSize": 20000}
STD_NO_SIZE = {"JobUniverse": 1}

START = [  # KeyboardIdle, LoadAvg, CondorLoadAvg, State -> START, IsOwner
    (34, 0.1, 0, "Unclaimed", False, True),
    (900, 0.1, 0, "Unclaimed", False, True),
    (901, 0.1, 0, "Unclaimed", True, False),
    (1000, 0.3, 0, "Unclaimed", True, False),
    (1000, 0.4, 0, "Unclaimed", False, True),
    (1000, 0.4, 0, "Owner", False, True),
    (1000, 1.2, 1.0, "Unclaimed", True, False),
    (1000, 0.4, 0, "Claimed", True, False),
    (1000, 1.3, 0, "Claimed", True, False),
    (34, 1.3, 0, "Claimed", False, True),
    (1000, None, 0, "Unclaimed", "U", False),
]

WANT_SUSPEND = [  # job, KeyboardIdle -> value
    (STD_BIG, 10, False),
    (STD_BIG, 1000, True),
    (STD_SMALL, 10, True),
    (STD_SMALL, 1000, True),
    (VANILLA, 10, True),
    (VANILLA, 1000, True),
    (PVM, 10, True),
    (PVM, 1000, True),
    (STD_NO_SIZE, 10, "U"),
    (STD_NO_SIZE, 1000, True),
]

WANT_VACATE = [  # ActivationTimer, job -> value
    (30, STD_BIG, False),
    (30, VANILLA, True),
    (30, STD_NO_SIZE, False),
    (30, {"ImageSize": 20000}, "U"),
    (600, STD_BIG, False),
    (600, VANILLA, True),
    (600, {"ImageSize": 20000}, "U"),
    (601, STD_BIG, True),
    (601, VANILLA, True),
    (601, STD_NO_SIZE, True),
    (601, {"ImageSize": 20000}, True),
]

SUSPEND = [  # KeyboardIdle, CpuBusyTime, ActivationTimer (None: no JobStart) -> value
    (59, 0, 10, True),
    (60, 0, 10, False),
    (1000, 121, 91, True),
    (1000, 120, 91, False),
    (1000, 121, 90, False),
    (1000, 500, None, "U"),
    (59, 0, None, True),
]

CONTINUE = [  # LoadAvg, ActivityTimer, KeyboardIdle -> value
    (0.1, 11, 301, True),
    (0.1, 10, 301, False),
    (0.1, 11, 300, False),
    (0.31, 11, 1000, False),
    (0.3, 100, 1000, True),
]

PREEMPT = [  # Activity, ActivityTimer, KeyboardIdle, CpuBusyTime, job -> value
    ("Suspended", 601, 1000, 0, STD_BIG, True),
    ("Suspended", 600, 1000, 0, STD_BIG, False),
    ("Busy", 5000, 10, 0, STD_BIG, True),
    ("Busy", 5000, 10, 0, STD_SMALL, False),
    ("Busy", 5000, 10, 0, VANILLA, False),
    ("Busy", 5000, 1000, 200, STD_BIG, False),
    ("Busy", 5000, 10, 0, STD_NO_SIZE, "U"),
    ("Suspended", 601, 10, 0, STD_NO_SIZE, True),
]

KILL = [(600, False), (601, True)]  # ActivityTimer -> value

PERIODIC_CHECKPOINT = [  # ImageSize, LastCkpt (None: undefined) -> value
    (10000, 21600, False),
    (10000, 21601, True),
    (70000, 21601, False),
    (70000, 43201, True),
    (None, 21601, "U"),
    (None, 43201, True),
    (10000, None, "U"),
]

POLICY = ("START", "IS_OWNER", "SUSPEND", "CONTINUE", "PREEMPT", "KILL", "WANT_SUSPEND")
POLICY += ("WANT_VACATE", "PERIODIC_CHECKPOINT")
CONFIG = parse_config_text("use POLICY : SEED_DEFAULT\n", "seed.config", env={})


def machine(**attributes: object) -> ClassAd:
    ad = ClassAd({"CurrentTime": T, "CondorLoadAvg": 0})
    attributes.setdefault("LoadAvg", 0.0)
    for knob in POLICY:
        ad[{"IS_OWNER": "IsOwner"}.get(knob, knob)] = CONFIG.get_expr(knob)
    for name, value in attributes.items():
        if value is not None:
            ad[name] = value
    return ad


def value(ad: ClassAd, name: str, job: dict | None = None) -> object:
    result = ad.eval(name, ClassAd(job) if job is not None else None, now=T)
    return "U" if result is UNDEFINED else result


def test_template_sets_the_policy_where_the_use_line_is() -> None:
    assert CONFIG.where("START") == ("seed.config", 1)
    assert CONFIG.is_set("KILL") and CONFIG.is_set("MachineBusy")


@pytest.mark.parametrize(("idle", "load", "condor_load", "state", "start", "owner"), START)
def test_start_and_is_owner(idle, load, condor_load, state, start, owner) -> None:
    ad = machine(KeyboardIdle=idle, LoadAvg=load, CondorLoadAvg=condor_load, State=state)
    assert value(ad, "START") == start
    assert value(ad, "IsOwner") == owner


@pytest.mark.parametrize(("job", "idle", "expected"), WANT_SUSPEND)
def test_want_suspend(job, idle, expected) -> None:
    assert value(machine(KeyboardIdle=idle), "WANT_SUSPEND", job) == expected


@pytest.mark.parametrize(("timer", "job", "expected"), WANT_VACATE)
def test_want_vacate(timer, job, expected) -> None:
    assert value(machine(JobStart=T - timer), "WANT_VACATE", job) == expected


@pytest.mark.parametrize(("idle", "busy", "timer", "expected"), SUSPEND)
def test_suspend(idle, busy, timer, expected) -> None:
    start = None if timer is None else T - timer
    ad = machine(KeyboardIdle=idle, CpuBusyTime=busy, JobStart=start)
    assert value(ad, "SUSPEND", {"JobUniverse": 1, "ImageSize": 20000}) == expected


@pytest.mark.parametrize(("load", "timer", "idle", "expected"), CONTINUE)
def test_continue(load, timer, idle, expected) -> None:
    ad = machine(LoadAvg=load, EnteredCurrentActivity=T - timer, KeyboardIdle=idle)
    assert value(ad, "CONTINUE") == expected


@pytest.mark.parametrize(("activity", "timer", "idle", "busy", "job", "expected"), PREEMPT)
def test_preempt(activity, timer, idle, busy, job, expected) -> None:
    ad = machine(
        Activity=activity,
        EnteredCurrentActivity=T - timer,
        KeyboardIdle=idle,
        CpuBusyTime=busy,
        JobStart=T - 5000,
    )
    assert value(ad, "PREEMPT", job) == expected


@pytest.mark.parametrize(("timer", "expected"), KILL)
def test_kill(timer, expected) -> None:
    assert value(machine(EnteredCurrentActivity=T - timer), "KILL") == expected


@pytest.mark.parametrize(("size", "since", "expected"), PERIODIC_CHECKPOINT)
def test_periodic_checkpoint(size, since, expected) -> None:
    last = None if since is None else T - since
    ad = machine(ImageSize=size, LastPeriodicCheckpoint=last)
    assert value(ad, "PERIODIC_CHECKPOINT") == expected


COLTRANE = parse_config_text(
    "use POLICY : SEED_DEFAULT\n"
    'START    = ($(START)) || Owner == "coltrane"\n'
    'SUSPEND  = ($(SUSPEND)) && Owner != "coltrane"\n'
    "CONTINUE = $(CONTINUE)\n"
    'PREEMPT  = ($(PREEMPT)) && Owner != "coltrane"\n'
    "KILL     = $(KILL)\n",
    "coltrane.config",
    env={},
)


def test_seed_example_a_extends_the_default_by_self_reference() -> None:
    """startd.md §10.4 (a): locally START is T or U, never F; coltrane is never evicted."""
    assert COLTRANE.get("START") == f'({CONFIG.get("START")}) || Owner == "coltrane"'
    assert COLTRANE.get("KILL") == CONFIG.get("KILL")
    ad = machine(KeyboardIdle=34, State="Unclaimed")
    for knob in ("START", "SUSPEND", "PREEMPT"):
        ad[knob] = COLTRANE.get_expr(knob)
    assert value(ad, "START") == "U" and value(ad, "IsOwner") is False
    busy = {"Activity": "Busy", "KeyboardIdle": 10, "JobStart": T - 5000}
    for name, attribute in busy.items():
        ad[name] = attribute
    coltrane = {**STD_BIG, "Owner": "coltrane"}
    mccoy = {**STD_BIG, "Owner": "mccoy"}
    assert value(ad, "START", coltrane) is True
    assert value(ad, "SUSPEND", coltrane) is False and value(ad, "PREEMPT", coltrane) is False
    assert value(ad, "SUSPEND", mccoy) is True and value(ad, "PREEMPT", mccoy) is True
