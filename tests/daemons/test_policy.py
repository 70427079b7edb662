"""Must-show 2 of the live pool: the startd's policy acts on real processes.

Each test starts a pool whose policy does one thing (times read ``time()`` so that each
fires a few seconds into a job's run; POLLING_INTERVAL = 1 evaluates every second) and
watches the job's processes, its user log and its queue record:

* SUSPEND/CONTINUE: the process is really stopped (SIGSTOP), then continued;
* PREEMPT: the job gets SIGTERM and, as it ignores it, SIGKILL once MachineMaxVacateTime
  is over; it goes back to idle, recorded as evicted;
* KILL: a job that ignores SIGTERM is killed at the next pass, long before its vacate
  time is over;
* priority preemption: a user whose priority became worse is preempted by a new user
  under PREEMPTION_REQUIREMENTS;
* a graceful drain lets the running job finish and starts nothing new;
* MAX_JOBS_RUNNING caps the running jobs.
"""

from __future__ import annotations

import time
from pathlib import Path

import psutil

from livepool import LivePool, events

LONG = "while true; do sleep 0.1; done"


def _job(work: Path, script: str, extra: str = "", count: int = 1, name: str = "job") -> str:
    work.mkdir(parents=True, exist_ok=True)
    program = work / f"{name}.sh"
    program.write_text(f"#!/bin/sh\necho $$ > {work}/{name}.$1.pid\n{script}\n")
    program.chmod(0o755)
    return (
        f"executable = {program}\narguments = $(Process)\nlog = {name}.log\n"
        f"output = {name}.$(Process).out\nrequest_memory = 64\n{extra}\nqueue {count}\n"
    )


def _pid(work: Path, name: str = "job", proc: int = 0) -> int:
    path = work / f"{name}.{proc}.pid"
    LivePool.wait(path.exists, 30, f"{path} from the job")
    return int(path.read_text())


def _text(path: Path) -> str:
    """What a job wrote to ``path`` (empty until it has written it whole)."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        return ""


def _status(pid: int) -> str | None:
    try:
        return psutil.Process(pid).status()
    except psutil.NoSuchProcess:
        return None


def test_suspend_stops_the_process_and_continue_resumes_it(tmp_path: Path) -> None:
    policy = {
        "WANT_SUSPEND": "True",
        "SUSPEND": 'Activity == "Busy" && time() - EnteredCurrentActivity >= 2',
        "CONTINUE": "time() - EnteredCurrentActivity >= 3",
    }
    work = tmp_path / "work"
    with LivePool(tmp_path / "pool", NUM_CPUS=1, **policy) as pool:
        pool.submit(_job(work, "sleep 4"), work)
        pid = _pid(work)
        pool.wait(lambda: _status(pid) == psutil.STATUS_STOPPED, 20, "the job stopped")
        held = pool.wait(lambda: pool.jobs("JobStatus == 7"), 10, "JobStatus 7 in the queue")
        assert held[0]["ProcId"] == 0
        stopped_at = time.monotonic()
        pool.wait(lambda: _status(pid) != psutil.STATUS_STOPPED, 20, "the job continued")
        assert time.monotonic() - stopped_at >= 1.5  # CONTINUE waits 3 s of Suspended
        pool.wait(lambda: not pool.jobs(), 30, "the job to finish")
        record = pool.history()[0]
    assert record["JobStatus"] == 4 and record["ExitCode"] == 0
    assert events(work / "job.log")["1.0"] == [0, 1, 10, 11, 5]


def test_preempt_vacates_with_sigterm_then_sigkill_after_the_vacate_time(tmp_path: Path) -> None:
    policy = {
        "WANT_SUSPEND": "False",
        "PREEMPT": 'Activity == "Busy" && time() - EnteredCurrentActivity >= 2',
        "MachineMaxVacateTime": "3",
        "START": "(TARGET.NumJobStarts ?: 0) == 0",  # the evicted job does not come back
    }
    work = tmp_path / "work"
    script = f"trap 'date +%s.%N > {work}/term' TERM\n{LONG}"
    with LivePool(tmp_path / "pool", NUM_CPUS=1, **policy) as pool:
        pool.submit(_job(work, script), work)
        pid = _pid(work)
        busy = pool.wait(lambda: pool.slots('Activity == "Busy"'), 10, "the slot Busy")[0]
        entered = busy["EnteredCurrentActivity"]  # a whole second, as time() is
        term = float(pool.wait(lambda: _text(work / "term"), 20, "SIGTERM to the job"))
        pool.wait(lambda: _status(pid) is None, 20, "the job killed")
        killed = time.time()
        # PREEMPT once time() - EnteredCurrentActivity >= 2, checked each second
        assert 2 <= int(term) - entered <= 5
        assert 2.5 <= killed - term <= 6  # SIGKILL once MachineMaxVacateTime (3 s) is over
        job = pool.wait(lambda: pool.jobs("JobStatus == 1 && NumJobStarts == 1"), 10)[0]
        assert job["LastVacateTime"] >= int(term)
    assert events(work / "job.log")["1.0"] == [0, 1, 4]


def test_kill_ends_a_vacating_job_before_its_vacate_time(tmp_path: Path) -> None:
    policy = {
        "PREEMPT": 'Activity == "Busy" && time() - EnteredCurrentActivity >= 2',
        "KILL": "True",
        "MachineMaxVacateTime": "60",
        "START": "(TARGET.NumJobStarts ?: 0) == 0",
    }
    work = tmp_path / "work"
    script = f"trap 'date +%s.%N > {work}/term' TERM\n{LONG}"
    with LivePool(tmp_path / "pool", NUM_CPUS=1, **policy) as pool:
        pool.submit(_job(work, script), work)
        pid = _pid(work)
        term = float(pool.wait(lambda: _text(work / "term"), 20, "SIGTERM to the job"))
        pool.wait(lambda: _status(pid) is None, 20, "the job killed")
        assert time.time() - term < 10  # KILL at the next pass, not after 60 s
        pool.wait(lambda: pool.jobs("JobStatus == 1 && NumJobStarts == 1"), 10)
    assert events(work / "job.log")["1.0"] == [0, 1, 4]


def test_a_user_of_better_priority_preempts(tmp_path: Path) -> None:
    knobs = {
        "NUM_CPUS": 2,
        "PRIORITY_HALFLIFE": 5,
        "PREEMPTION_REQUIREMENTS": "RemoteUserPrio > SubmitterUserPrio * 1.2",
        "CLAIM_WORKLIFE": 0,
    }
    work = tmp_path / "work"
    with LivePool(tmp_path / "pool", **knobs) as pool:
        pool.submit(_job(work, "sleep 60", "accounting_group_user = alice", 2, "a"), work, "a.sub")
        pool.wait(lambda: len(pool.jobs("JobStatus == 2")) == 2, 20, "alice's jobs running")
        time.sleep(4)  # alice's usage makes her priority worse than a newcomer's
        pool.submit(_job(work, "sleep 1", "accounting_group_user = bob", 1, "b"), work, "b.sub")
        pool.wait(lambda: not pool.jobs('AcctGroupUser == "bob"'), 60, "bob's job to finish")
        cycles = pool.get("/negotiator/cycles", last=20)["cycles"]
        evicted = pool.jobs('AcctGroupUser == "alice" && LastVacateTime =!= undefined')
    preemptions = [m for c in cycles for m in c["matches"] if m["submitter"].startswith("bob")]
    assert preemptions[0]["reason"] == "Priority"
    assert preemptions[0]["preempting"].startswith("alice")
    assert len(evicted) == 1
    alice = events(work / "a.log")
    victim = f"1.{evicted[0]['ProcId']}"
    other = next(name for name in alice if name != victim)
    assert alice[victim][:3] == [0, 1, 4]  # submitted, executing, evicted (then again)
    assert alice[other] == [0, 1]  # still running, untouched
    assert events(work / "b.log")["2.0"] == [0, 1, 5]


def test_a_graceful_drain_lets_the_job_finish_and_starts_nothing_new(tmp_path: Path) -> None:
    work = tmp_path / "work"
    # retirement ends when what is left of it is no more than the vacate time
    # (startd/retirement.py), so the vacate time is short here
    knobs = {"NUM_CPUS": 1, "MAXJOBRETIREMENTTIME": 60, "MachineMaxVacateTime": 2}
    with LivePool(tmp_path / "pool", **knobs) as pool:
        pool.submit(_job(work, "sleep 3"), work)
        _pid(work)
        startd = pool.slots()[0]["ApiAddress"]
        reply = pool.http.post(f"{startd}/drain", json={"how": "graceful"}).json()
        assert reply["accepted"]
        pool.submit(_job(work, "sleep 1", name="later"), work, "later.sub")
        pool.wait(lambda: pool.history(), 30, "the running job to finish")
        drained = pool.wait(lambda: pool.slots('State == "Drained"'), 20, "the slot drained")
        assert drained[0]["Activity"] == "Idle"
        time.sleep(3)  # two negotiation cycles: nothing starts on a drained machine
        waiting = pool.jobs()
        assert [j["JobStatus"] for j in waiting] == [1]
        pool.http.post(f"{startd}/cancel-drain", json={}).raise_for_status()
        pool.wait(lambda: not pool.jobs(), 30, "the later job to run once draining stops")
        first = next(h for h in pool.history() if h["ClusterId"] == 1)
    assert first["ExitCode"] == 0 and first["NumJobStarts"] == 1
    assert events(work / "job.log")["1.0"] == [0, 1, 5]


def test_max_jobs_running_caps_the_jobs_running(tmp_path: Path) -> None:
    work = tmp_path / "work"
    with LivePool(tmp_path / "pool", NUM_CPUS=4, MAX_JOBS_RUNNING=2) as pool:
        pool.submit(_job(work, "sleep 1", count=6), work)
        most = 0
        deadline = time.monotonic() + 60
        while pool.jobs() and time.monotonic() < deadline:
            most = max(most, len(pool.jobs("JobStatus == 2")))
            busy = pool.slots('State == "Claimed"')
            assert len(busy) <= 2
            time.sleep(0.1)
        assert not pool.jobs()
        assert len(pool.history()) == 6
    assert most == 2
