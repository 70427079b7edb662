"""An execute node (startd/node.py): the real policy engine and a starter written here that
records what it is told, as the live startd's starter would be (its jobs leave only when
their process exits, reported through ``exited``) or the simulator's (they leave at once).
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from fairpool.classad import ClassAd
from fairpool.errors import FairpoolError
from fairpool.startd import MODERN, Activity, Startd, StartdPolicy, State
from fairpool.startd.node import (
    CLAIM_LOST,
    CLAIM_READY,
    EXITED,
    RESUMED,
    SUSPENDED,
    VACATED,
    ExecuteNode,
)

SLOT = "slot1@exec"
# Policies read measurements the test sets (inputs published into the slot ad each second)
SUSPENDING = {"WANT_SUSPEND": "True", "SUSPEND": "MY.Busy =?= True", "CONTINUE": "MY.Busy =!= True"}
PREEMPTING = {"WANT_SUSPEND": "False", "PREEMPT": "MY.Evict =?= True", "MachineMaxVacateTime": "20"}
GUARDED = {"START": "MY.Closed =!= True"}


class RecordingStarter:
    """A starter that runs nothing: it records each call; ``gone_at_once`` makes kills
    end the job at once (the simulator's kind); ``refuse`` makes the next start fail."""

    def __init__(self, gone_at_once: bool = False) -> None:
        self.calls: list[tuple[str, str, object]] = []
        self.gone_at_once = gone_at_once
        self.refuse: str | None = None

    def start(self, slot: str, job: ClassAd) -> None:
        if self.refuse is not None:
            reason, self.refuse = self.refuse, None
            raise FairpoolError(reason)
        self.calls.append(("start", slot, job.get("ClusterId")))

    def signal(self, slot: str, action: str) -> bool:
        self.calls.append((action, slot, None))
        return self.gone_at_once and action in ("soft kill", "hard kill", "SIGKILL")

    def actions(self) -> list[str]:
        return [call[0] for call in self.calls]


class Machine:
    """A one-slot node whose measurements the test sets: each is True from its first
    second until (not including) its last."""

    def __init__(self, knobs: Mapping[str, str], gone_at_once: bool = False) -> None:
        self.spans: dict[str, tuple[int, float]] = {}
        policy = StartdPolicy.from_knobs(dict(knobs), MODERN)
        machine = ClassAd({"Name": SLOT, "Cpus": 1, "Memory": 1024})
        startd = Startd(policy, machine, self.measure, start=0)
        self.starter = RecordingStarter(gone_at_once)
        self.changes: list = []
        self.node = ExecuteNode(startd, self.starter, self.changes.append)

    def measure(self, t: int) -> dict[str, object]:
        return {name: start <= t < end for name, (start, end) in self.spans.items()}

    def set(self, name: str, start: int, end: float = float("inf")) -> None:
        self.spans[name] = (start, end)

    @property
    def pair(self) -> tuple[State, Activity]:
        return self.node.slots[SLOT].pair

    def events(self) -> list[tuple[str, object, int]]:
        return [(e.kind, e.job.get("ClusterId"), e.run_time) for e in self.node.take_events()]

    def run(self, job: ClassAd, t: int = 10) -> None:
        assert self.node.claim(t, SLOT, job).accepted
        assert self.node.activate(t, SLOT, job).accepted


def job(cluster: int, owner: str = "alice") -> ClassAd:
    return ClassAd(
        {
            "ClusterId": cluster,
            "ProcId": 0,
            "Owner": owner,
            "Requirements": True,
            "RequestCpus": 1,
            "RequestMemory": 1,
        }
    )


def test_claim_and_activate_start_the_job():
    m = Machine({})
    first = job(1)
    reply = m.node.claim(10, SLOT, first)
    assert reply.accepted and reply.slot == SLOT
    assert m.pair == (State.CLAIMED, Activity.IDLE)
    assert m.starter.calls == []  # a claim starts nothing
    reply = m.node.activate(12, SLOT, first)
    assert reply.accepted
    assert m.pair == (State.CLAIMED, Activity.BUSY)
    assert m.starter.calls == [("start", SLOT, 1)]
    assert m.node.running == {SLOT: first}
    assert m.events() == []
    assert m.changes  # the log hears every state change
    assert not m.node.startd.changes  # and the node took them


def test_suspend_and_continue_reach_the_starter_and_the_schedd():
    m = Machine(SUSPENDING)
    m.run(job(1), t=10)
    m.set("Busy", 13, 18)
    m.node.advance(15)  # the pass at 15 (POLLING_INTERVAL 5) suspends
    assert m.pair == (State.CLAIMED, Activity.SUSPENDED)
    assert m.starter.actions() == ["start", "suspend"]
    assert m.events() == [(SUSPENDED, 1, 0)]
    assert m.node.suspended == {SLOT}
    m.node.advance(25)  # the pass at 20 continues
    assert m.pair == (State.CLAIMED, Activity.BUSY)
    assert m.starter.actions() == ["start", "suspend", "continue"]
    # run time as the node settles at 25: 15 - 10 before, 25 - 20 since (5 s suspended)
    assert m.events() == [(RESUMED, 1, 10)]
    assert m.node.suspended == set()


def test_take_events_empties_the_list():
    m = Machine(SUSPENDING)
    m.run(job(1))
    m.set("Busy", 13)
    m.node.advance(15)
    assert len(m.node.take_events()) == 1
    assert m.node.take_events() == []
    assert m.node.events == []


def test_preempt_soft_kills_and_the_starters_exit_is_a_vacate():
    m = Machine(PREEMPTING)
    m.run(job(1), t=10)
    m.set("Evict", 13)
    m.node.advance(15)  # the pass at 15: retirement (0 s) over, vacating
    assert m.pair == (State.PREEMPTING, Activity.VACATING)
    assert m.starter.actions() == ["start", "soft kill"]
    assert m.events() == []  # the process has not exited yet
    assert m.node.exited(18, SLOT) == VACATED
    assert m.events() == [(VACATED, 1, 0)]
    assert m.pair == (State.UNCLAIMED, Activity.IDLE)
    assert m.node.running == {}
    assert m.node.exited(19, SLOT) is None  # nothing runs there now


def test_a_job_that_ignores_the_soft_kill_is_hard_killed_after_the_vacate_time():
    m = Machine(PREEMPTING)
    m.run(job(1), t=10)
    m.set("Evict", 13)
    m.node.advance(34)  # soft kill at 15; MachineMaxVacateTime 20 runs out at 35
    assert m.starter.actions() == ["start", "soft kill"]
    m.node.advance(35)
    assert m.starter.actions() == ["start", "soft kill", "hard kill"]
    assert m.node.exited(36, SLOT) == VACATED
    assert m.events() == [(VACATED, 1, 0)]


def test_a_starter_whose_jobs_leave_at_once_vacates_on_the_kill():
    m = Machine(PREEMPTING, gone_at_once=True)
    m.run(job(1), t=10)
    m.set("Evict", 13)
    m.node.advance(15)
    assert m.events() == [(VACATED, 1, 0)]  # no exited() needed
    assert m.node.running == {}
    assert m.pair == (State.UNCLAIMED, Activity.IDLE)


def test_a_job_that_exits_by_itself_has_exited():
    m = Machine({})
    m.run(job(1), t=10)
    m.node.advance(30)
    assert m.node.exited(31, SLOT) == EXITED
    assert m.events() == [(EXITED, 1, 0)]
    assert m.pair == (State.CLAIMED, Activity.IDLE)  # the claim stays for the schedd
    assert m.starter.actions() == ["start"]  # nothing was signalled
    second = job(2)
    assert m.node.activate(32, SLOT, second).accepted  # claim reuse
    assert m.starter.calls[-1] == ("start", SLOT, 2)


def test_a_preempting_claim_is_ready_once_the_running_job_has_left():
    m = Machine(PREEMPTING)
    m.run(job(1), t=10)
    preemptor = job(2, "bob")
    assert m.node.claim(20, SLOT, preemptor, preempting=True).accepted
    assert m.pair == (State.PREEMPTING, Activity.VACATING)
    assert m.starter.actions() == ["start", "soft kill"]
    assert m.events() == []  # waiting for the job to leave
    assert m.node.waiting == {SLOT: preemptor}
    assert m.node.exited(25, SLOT) == VACATED
    assert m.events() == [(VACATED, 1, 0), (CLAIM_READY, 2, 0)]
    assert m.pair == (State.CLAIMED, Activity.IDLE)
    assert m.node.waiting == {}
    assert m.node.activate(26, SLOT, preemptor).accepted
    assert m.starter.calls[-1] == ("start", SLOT, 2)


def test_a_preempting_claim_that_falls_through_is_lost():
    m = Machine({**PREEMPTING, **GUARDED})
    m.run(job(1), t=10)
    preemptor = job(2, "bob")
    assert m.node.claim(20, SLOT, preemptor, preempting=True).accepted
    m.set("Closed", 22)  # START refuses the preemptor by the time the slot is free
    m.node.advance(24)
    assert m.node.exited(25, SLOT) == VACATED
    assert m.events() == [(VACATED, 1, 0), (CLAIM_LOST, 2, 0)]
    assert m.pair == (State.UNCLAIMED, Activity.IDLE)
    assert m.node.waiting == {}


def test_a_second_preempting_claim_replaces_the_first():
    """While the running job retires (MaxJobRetirementTime), a newer preempting claim
    takes the place of the one that waited."""
    m = Machine({**PREEMPTING, "MaxJobRetirementTime": "100"})
    m.run(job(1), t=10)
    assert m.node.claim(20, SLOT, job(2, "bob"), preempting=True).accepted
    assert m.pair == (State.CLAIMED, Activity.RETIRING)
    assert m.node.claim(21, SLOT, job(3, "carol"), preempting=True).accepted
    assert m.events() == [(CLAIM_LOST, 2, 0)]
    # retirement ends 100 s after the start at 10; eviction begins MachineMaxVacateTime
    # (20 s) before that, so that a hard kill would land at its end: at 110 - 20 = 90
    m.node.advance(89)
    assert m.starter.actions() == ["start"]
    m.node.advance(90)
    assert m.starter.actions() == ["start", "soft kill"]
    assert m.node.exited(91, SLOT) == VACATED
    assert m.events() == [(VACATED, 1, 0), (CLAIM_READY, 3, 0)]


def test_a_refused_preempting_claim_waits_for_nothing():
    m = Machine({**PREEMPTING, **GUARDED})
    m.run(job(1), t=10)
    m.set("Closed", 15)
    reply = m.node.claim(20, SLOT, job(2, "bob"), preempting=True)
    assert not reply.accepted
    assert m.node.waiting == {}
    assert m.events() == []
    assert m.pair == (State.CLAIMED, Activity.BUSY)  # the running job goes on
    assert m.starter.actions() == ["start"]


def test_a_start_the_starter_refuses_is_refused_with_its_reason():
    m = Machine({})
    first = job(1)
    assert m.node.claim(10, SLOT, first).accepted
    m.starter.refuse = "the executable /bin/nothing does not exist"
    reply = m.node.activate(11, SLOT, first)
    assert not reply.accepted
    assert reply.reason == "the executable /bin/nothing does not exist"
    assert m.pair == (State.CLAIMED, Activity.IDLE)  # the claim stays, ready for another
    assert m.node.running == {}
    assert m.events() == []
    assert m.node.activate(12, SLOT, first).accepted
    assert m.starter.calls == [("start", SLOT, 1)]


def test_a_start_the_starter_refuses_later_leaves_the_claim_as_a_refusal_would():
    """A starter of its own process answers after ``activate`` returned: its refusal
    brings the slot back to Claimed/Idle and reports nothing (activate's caller says)."""
    m = Machine({})
    first = job(1)
    m.run(first, t=10)
    m.node.refused(11, SLOT)
    assert m.pair == (State.CLAIMED, Activity.IDLE)
    assert m.node.running == {}
    assert m.events() == []
    m.node.refused(12, SLOT)  # nothing runs there any more: nothing happens
    assert m.node.activate(13, SLOT, first).accepted


def test_a_job_lost_with_its_starter_is_vacated():
    """The starter process died (its jobs killed by their records): the job is vacated,
    and its claim ends with it."""
    m = Machine({})
    m.run(job(1), t=10)
    m.node.lost(20, SLOT)
    assert m.events() == [(VACATED, 1, 0)]
    assert m.pair == (State.UNCLAIMED, Activity.IDLE)
    assert m.node.running == {}
    m.node.lost(21, SLOT)
    assert m.events() == []


def test_a_start_without_a_claim_never_reaches_the_starter():
    m = Machine({})
    reply = m.node.activate(10, SLOT, job(1))
    assert not reply.accepted
    assert m.starter.calls == []
    assert m.pair == (State.UNCLAIMED, Activity.IDLE)


@pytest.mark.parametrize("gone_at_once", [False, True])
def test_a_released_claim_kills_its_job(gone_at_once):
    """The schedd gives up a claim that still runs a job (MODERN: release kills)."""
    m = Machine({}, gone_at_once=gone_at_once)
    m.run(job(1), t=10)
    m.node.release(20, SLOT)
    assert "hard kill" in m.starter.actions()
    if not gone_at_once:
        assert m.events() == []
        assert m.node.exited(21, SLOT) == VACATED
    assert m.events() == [(VACATED, 1, 0)]
    assert m.node.running == {}
