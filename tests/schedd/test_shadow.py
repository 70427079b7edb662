"""The shadow's arithmetic over a job's runs (schedd/shadow.py), case by case, with each
expected number worked out in a comment."""

from __future__ import annotations

import pytest

from builders import make_job, make_slot
from fairpool.classad import ClassAd, Expr
from fairpool.schedd.queue import COMPLETED, HELD, IDLE, RUNNING
from fairpool.schedd.shadow import ON_EXIT_HOLD, exited, run_ended, started, vacated
from fairpool.schedd.userlog import Evicted, Executing, ResourceRow, Terminated, Usage

ADDRESS = "<127.0.0.1:9618>"


def running_job(start: int = 1_000, cpus: int = 2, **attrs) -> ClassAd:
    """A job the queue has begun (queue.begin sets these) on slot1@a."""
    return (
        make_job("alice")
        .set(
            JobStatus=RUNNING,
            RemoteHost="slot1@a",
            JobCurrentStartDate=start,
            RequestCpus=cpus,
            RequestMemory=512,
            RequestDisk=4096,
            **attrs,
        )
        .build()
    )


def four_core_slot() -> ClassAd:
    return make_slot("slot1@a").cpus(4).memory(2048).set(Disk=100_000).build()


def test_started_counts_the_run_and_keeps_the_first_start_date():
    job = make_job("alice").build()
    event = started(job, "slot1@a", ADDRESS, 1_000.9)
    assert event == Executing(ADDRESS, "slot1@a")
    assert job["JobCurrentStartExecutingDate"] == 1_000  # int(1000.9)
    assert job["ShadowBday"] == 1_000
    assert job["LastMatchTime"] == 1_000
    assert job["JobStartDate"] == 1_000
    assert (job["JobRunCount"], job["NumJobMatches"]) == (1, 1)
    assert job["StartdIpAddr"] == ADDRESS
    started(job, "slot2@b", "<10.0.0.1:1>", 2_000)
    assert job["JobStartDate"] == 1_000  # the first run's, kept
    assert job["JobCurrentStartExecutingDate"] == 2_000
    assert (job["JobRunCount"], job["NumJobMatches"]) == (2, 2)
    assert job["StartdIpAddr"] == "<10.0.0.1:1>"


def test_run_ended_adds_wall_clock_slot_time_and_cpu():
    job = running_job(ImageSize=8_000, MemoryUsage=50)
    usage = {"RemoteUserCpu": 30.5, "RemoteSysCpu": 1.5, "ImageSize": 5_000, "MemoryUsage": 100}
    run = run_ended(job, usage, four_core_slot(), 1_100.7)
    assert run == 100  # int(1100.7) - 1000
    assert job["RemoteWallClockTime"] == 100.0
    assert job["CumulativeSlotTime"] == 400.0  # 100 s x the slot's 4 cores
    assert (job["RemoteUserCpu"], job["RemoteSysCpu"]) == (30.5, 1.5)
    assert job["ImageSize"] == 8_000  # the larger of 8000 (before) and 5000 (this run)
    assert job["MemoryUsage"] == 100  # the larger of 50 and 100
    assert (job["CpusProvisioned"], job["MemoryProvisioned"], job["DiskProvisioned"]) == (
        4,
        2048,
        100_000,
    )
    assert job["LastRemoteHost"] == "slot1@a"
    assert job["LastJobStatus"] == RUNNING
    # a second run of 50 s on no known slot: its cores are the job's RequestCpus (2)
    job["JobCurrentStartDate"] = 2_000
    run = run_ended(job, {"RemoteUserCpu": 10.0}, None, 2_050)
    assert run == 50
    assert job["RemoteWallClockTime"] == 150.0  # 100 + 50
    assert job["CumulativeSlotTime"] == 500.0  # 400 + 50 x 2
    assert (job["RemoteUserCpu"], job["RemoteSysCpu"]) == (40.5, 1.5)  # 30.5 + 10, 1.5 + 0


def test_a_clock_behind_the_start_and_an_unknown_start_count_no_time():
    job = running_job(start=1_000)
    assert run_ended(job, {}, None, 990) == 0  # max(0, 990 - 1000)
    del job["JobCurrentStartDate"]
    assert run_ended(job, {}, None, 5_000) == 0
    assert job["RemoteWallClockTime"] == 0.0 and job["CumulativeSlotTime"] == 0.0


def test_a_normal_exit_completes_the_job_and_commits_its_time():
    job = running_job(CommittedTime=7, CommittedSlotTime=14.0)
    usage = {"RemoteUserCpu": 90.0, "RemoteSysCpu": 3.0, "MemoryUsage": 300, "DiskUsage": 20}
    exit_attrs = {"ExitCode": 0, "ExitBySignal": False}
    outcome = exited(job, exit_attrs, usage, four_core_slot(), 1_120)
    assert outcome.status == COMPLETED
    assert outcome.hold_reason == ""
    assert job["CompletionDate"] == 1_120
    assert job["ExitCode"] == 0 and job["ExitBySignal"] is False
    assert job["RemoteWallClockTime"] == 120.0  # 1120 - 1000
    assert job["CommittedTime"] == 127  # 7 before + 120
    assert job["CommittedSlotTime"] == 494.0  # 14 before + 120 x 4 cores
    event = outcome.event
    assert isinstance(event, Terminated)
    assert (event.return_value, event.signal) == (0, None)
    assert event.run_remote == Usage(90.0, 3.0)
    assert event.total_remote == Usage(90.0, 3.0)  # the job's totals after this run
    assert event.exited_at == 1_120.0
    assert event.resources == (
        ResourceRow("Cpus", usage=None, request=2, allocated=4),
        ResourceRow("Disk", usage=20, request=4096, allocated=100_000),
        ResourceRow("Memory", usage=300, request=512, allocated=2048),
    )


def test_exit_by_signal_is_reported_as_the_signal():
    job = running_job()
    outcome = exited(job, {"ExitBySignal": True, "ExitSignal": 11}, {}, None, 1_010)
    assert outcome.status == COMPLETED
    assert (outcome.event.signal, outcome.event.return_value) == (11, None)
    job = running_job()
    outcome = exited(job, {"ExitBySignal": True}, {}, None, 1_010)
    assert outcome.event.signal == 9  # no ExitSignal given: SIGKILL stands for it


def test_on_exit_hold_holds_the_job_without_completing_it():
    job = running_job(OnExitHold=Expr("ExitCode != 0"))
    outcome = exited(job, {"ExitCode": 3, "ExitBySignal": False}, {}, None, 1_060)
    assert outcome.status == HELD
    assert "OnExitHold" in outcome.hold_reason
    assert ON_EXIT_HOLD == 3  # HTCondor's HoldReasonCode for a job policy hold
    assert "CompletionDate" not in job
    assert job["CommittedTime"] == 60  # the run ended of itself: its time is committed
    assert outcome.event.return_value == 3
    # the same job exiting 0 completes
    job = running_job(OnExitHold=Expr("ExitCode != 0"))
    assert exited(job, {"ExitCode": 0}, {}, None, 1_060).status == COMPLETED


def test_on_exit_remove_false_puts_the_job_back_to_idle():
    job = running_job(OnExitRemove=Expr("ExitCode == 0"))
    outcome = exited(job, {"ExitCode": 1}, {"RemoteUserCpu": 5.0}, None, 1_030)
    assert outcome.status == IDLE
    assert "CompletionDate" not in job
    assert job["CommittedTime"] == 30
    assert job["RemoteWallClockTime"] == 30.0
    job = running_job(OnExitRemove=Expr("ExitCode == 0"))
    assert exited(job, {"ExitCode": 0}, {}, None, 1_030).status == COMPLETED
    # OnExitHold wins over OnExitRemove when both say so
    job = running_job(OnExitHold=Expr("true"), OnExitRemove=Expr("true"))
    assert exited(job, {"ExitCode": 0}, {}, None, 1_030).status == HELD
    # an undefined OnExitRemove does not remove the job (not TRUE)
    job = running_job(OnExitRemove=Expr("NoSuchAttribute"))
    assert exited(job, {"ExitCode": 0}, {}, None, 1_030).status == IDLE


def test_a_vacated_run_counts_its_time_but_commits_none():
    job = running_job(CommittedTime=40)
    usage = {"RemoteUserCpu": 12.0, "RemoteSysCpu": 2.0, "MemoryUsage": 64}
    event = vacated(job, usage, four_core_slot(), 1_045.5, "the startd preempted it")
    assert isinstance(event, Evicted)
    assert event.reason == "the startd preempted it"
    assert event.run_remote == Usage(12.0, 2.0)
    assert event.resources[2] == ResourceRow("Memory", usage=64, request=512, allocated=2048)
    assert job["LastVacateTime"] == 1_045
    assert job["RemoteWallClockTime"] == 45.0  # int(1045.5) - 1000
    assert job["CumulativeSlotTime"] == 180.0  # 45 x 4
    assert job["CommittedTime"] == 40  # unchanged: the work is lost
    assert "CommittedSlotTime" not in job
    assert "CompletionDate" not in job
    assert job["LastRemoteHost"] == "slot1@a"


@pytest.mark.parametrize(
    ("remove", "status"),
    [("false", IDLE), ("0", IDLE), ('"yes"', IDLE), ("undefined", IDLE), ("1", COMPLETED)],
)
def test_a_literal_exit_policy_is_its_own_value(remove, status):
    """Literal policies (as condor_submit writes them) are read without an evaluation,
    with the same outcome: only TRUE or a non-zero number says yes."""
    job = running_job(OnExitHold=Expr("false"), OnExitRemove=Expr(remove))
    assert exited(job, {"ExitCode": 0}, {}, None, 1_030).status == status
