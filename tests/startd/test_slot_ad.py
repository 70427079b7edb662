"""The slot ad: the attributes of seed 004 §3.6.1 (and current HTCondor's), Requirements
in each state (startd.md §5), the timer macros, and what a slot ad must not contain."""

from startd_script import J_STD, MODERN, job, startd

from fairpool.classad import ClassAd
from fairpool.startd.knobs import SEED_POLICY

SEED_ATTRIBUTES = [
    "Activity",
    "Arch",
    "ClockDay",
    "ClockMin",
    "CondorLoadAvg",
    "ConsoleIdle",
    "Cpus",
    "CurrentRank",
    "Disk",
    "EnteredCurrentActivity",
    "EnteredCurrentState",
    "FileSystemDomain",
    "KeyboardIdle",
    "KFlops",
    "LastHeardFrom",
    "LoadAvg",
    "Machine",
    "Memory",
    "Mips",
    "MyType",
    "Name",
    "OpSys",
    "Requirements",
    "StartdIpAddr",
    "State",
    "TargetType",
    "UidDomain",
    "VirtualMachineID",
    "VirtualMemory",
    "CurrentTime",
]
MODERN_ATTRIBUTES = ["GPUs", "SlotID", "SlotType", "SlotWeight", "TotalSlotCpus", "TotalSlotMemory"]
CLAIMED = ["ClientMachine", "RemoteOwner", "RemoteUser"]
RUNNING = ["JobId", "JobStart", "LastPeriodicCheckpoint"]


def test_unclaimed_ad_has_the_seed_and_modern_attributes():
    s = startd()
    s.advance(0)
    assert [a for a in SEED_ATTRIBUTES + MODERN_ATTRIBUTES if a not in s.ad] == []
    assert [a for a in CLAIMED + RUNNING if a in s.ad] == []
    # The seed's CurrentRank when unclaimed (spec README: SEED keeps the seed's -1.0).
    assert s.ad["CurrentRank"] == -1.0
    assert s.ad.eval("SlotWeight") == 1


def test_claimed_and_running_attributes_come_and_go():
    s = startd()
    request = ClassAd(
        '[Owner="alice"; User="alice@submit.example"; JobUniverse=1; '
        "ImageSize=20000; ClusterId=12; ProcId=3]"
    )
    s.request_claim(100, request)
    assert (s.ad["RemoteUser"], s.ad["ClientMachine"]) == ("alice@submit.example", "submit.example")
    assert [a for a in RUNNING if a in s.ad] == []
    s.activate(200)
    assert (s.ad["JobId"], s.ad["JobStart"], s.ad["LastPeriodicCheckpoint"]) == ("12.3", 200, 200)
    s.starter_exit(300)
    assert [a for a in RUNNING if a in s.ad] == []
    s.vacate(400)
    assert [a for a in CLAIMED if a in s.ad] == []


def test_requirements_in_each_state():
    s = startd()
    s.advance(0)
    assert str(s.ad.lookup("Requirements")) == "START"  # Unclaimed: START (DIV-6)
    s.request_claim(100, job(J_STD))
    assert str(s.ad.lookup("Requirements")) == "START"  # Claimed: still matchable
    s.activate(101)
    s.vacate(200)  # Preempting, waiting for the job to leave
    assert s.ad["Requirements"] is False
    s.match(300)  # ignored while Preempting
    assert s.ad["State"] == "Preempting"


def test_partitionable_requirements_add_the_resource_limits():
    s = startd(profile=MODERN, machine=ClassAd("[PartitionableSlot=True; Cpus=4; Memory=4096]"))
    s.advance(0)
    assert str(s.ad.lookup("Requirements")) == "START && WithinResourceLimits"
    too_big = ClassAd("[RequestCpus=5; RequestMemory=1; RequestDisk=1]")
    fits = ClassAd("[RequestCpus=4; RequestMemory=4096; RequestDisk=1]")
    assert s.ad.eval("Requirements", too_big, now=0) is False
    assert s.ad.eval("Requirements", fits, now=0) is True


def test_timer_macros_follow_the_timestamps():
    macros = {
        "StateTimer": "(CurrentTime - EnteredCurrentState)",
        "ActivityTimer": "(CurrentTime - EnteredCurrentActivity)",
        "ActivationTimer": "(CurrentTime - JobStart)",
    }
    s = startd({"STARTD_ATTRS": "StateTimer ActivityTimer ActivationTimer", **macros})
    s.request_claim(100, job(J_STD))
    s.activate(150)
    s.advance(400)
    # Claimed since 100 (StateTimer 300), Busy since 150 (ActivityTimer and
    # ActivationTimer 250).
    assert [s.ad.eval(m, now=400) for m in macros] == [300, 250, 250]


def test_job_attributes_never_bind_in_the_slot_ad():
    # A machine ad with Owner/ImageSize/JobUniverse would capture the job's references.
    s = startd(machine=ClassAd('[Owner="root"; ImageSize=1; JobUniverse=5; Cpus=2]'))
    assert not any(a in s.ad for a in ("Owner", "ImageSize", "JobUniverse"))
    assert s.ad["Cpus"] == 2


def test_policy_expressions_are_copied_as_expressions():
    s = startd()
    assert str(s.ad.lookup("PREEMPT")) == str(
        ClassAd(f"[x = {SEED_POLICY['PREEMPT']}]").lookup("x")
    )


def test_a_preempting_match_hides_a_claimed_slot_until_claimed_or_timed_out():
    # startd.md §4: MATCH_INFO for the preempting claim of a Claimed slot: Requirements
    # False; if no preempting claim follows within MATCH_TIMEOUT (300), restored.
    s = startd()
    s.request_claim(100, job(J_STD))
    s.activate(101)
    s.match(200)
    assert s.ad["Requirements"] is False and s.ad["State"] == "Claimed"
    s.advance(499)
    assert s.ad["Requirements"] is False
    s.advance(500)
    assert str(s.ad.lookup("Requirements")) == "START"
