"""Must-show 3 of the live pool: kill -9 of the pool during a busy run, then a restart.

Nothing submitted is lost; every job completes; each job either ran once or, if it was
running when the pool died, was run again and recorded as evicted (its user log says so
before the new run); the jobs left running by the dead pool are killed when its startd
starts again (they are not left to run beside their second run); and the accountant's
usage, committed each cycle, is kept. And a starter process killed alone (the pool goes
on): its jobs are killed at once, recorded as evicted and run again by a new starter.
"""

from __future__ import annotations

from pathlib import Path

import psutil

from livepool import LivePool, events

JOBS = 24
PROGRAM = """#!/bin/sh
touch started.$1.$$
sleep 1.5
touch done.$1.$$
"""


def _work(tmp_path: Path) -> Path:
    """The submit directory, holding PROGRAM as job.sh."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "job.sh").write_text(PROGRAM)
    (work / "job.sh").chmod(0o755)
    return work


def test_kill_9_during_a_busy_run_then_restart(tmp_path: Path) -> None:
    work = _work(tmp_path)
    submit = (
        "executable = job.sh\narguments = $(Process)\nlog = jobs.log\n"
        f"request_memory = 64\nshould_transfer_files = NO\nqueue {JOBS}\n"
    )
    knobs = {"NUM_CPUS": 4, "MEMORY": 4096, "NEGOTIATOR_INTERVAL": 1, "PRIORITY_HALFLIFE": 600}
    pool = LivePool(tmp_path / "pool", **knobs)
    with pool:
        pool.submit(submit, work)
        pool.wait(lambda: len(pool.history()) >= 4, 60, "some jobs to finish")
        pool.wait(lambda: len(pool.jobs("JobStatus == 2")) >= 2, 30, "jobs running")
        before = next(iter(pool.accountant().values()))
        running = _job_processes(work)
        pool.kill()
        assert running, "jobs were running when the pool died"
        assert any(p.is_running() for p in running)  # orphans: the pool did not take them
        pool.start()  # the same directory, database and configuration
        pool.wait(lambda: not any(_alive(p) for p in running), 20, "the leftovers killed")
        pool.wait(lambda: len(pool.history()) == JOBS, 120, "every job to complete")
        assert not pool.jobs()
        after = pool.accountant()[before["name"]]
        history = pool.history()
    ids = sorted((h["ClusterId"], h["ProcId"]) for h in history)
    assert ids == [(1, proc) for proc in range(JOBS)]  # each once: none lost, none twice
    assert all(h["JobStatus"] == 4 and h["ExitCode"] == 0 for h in history)
    log = events(work / "jobs.log")
    rerun = 0
    for proc in range(JOBS):
        seq = log[f"1.{proc}"]
        assert seq[0] == 0 and seq[-1] == 5 and seq.count(5) == 1, seq
        assert seq.count(1) == seq.count(4) + 1, seq  # every run again follows an eviction
        rerun += seq.count(4)
        done = list(work.glob(f"done.{proc}.*"))
        assert 1 <= len(done) <= 1 + seq.count(4)
    assert rerun >= 1
    # usage committed before the kill is kept, and keeps growing
    assert after["accumulated_usage"] >= before["accumulated_usage"] > 0
    assert after["priority"] > 0.5


def test_a_starter_process_killed_alone_has_its_jobs_killed_and_run_again(tmp_path: Path) -> None:
    work = _work(tmp_path)
    submit = (
        "executable = job.sh\narguments = $(Process)\nlog = jobs.log\n"
        "request_memory = 64\nshould_transfer_files = NO\nqueue 4\n"
    )
    pool = LivePool(tmp_path / "pool", NUM_CPUS=2, NEGOTIATOR_INTERVAL=1)
    with pool:
        pool.submit(submit, work)
        pool.wait(lambda: len(_job_processes(work)) == 2, 30, "two jobs running")
        starter = _starter(pool)
        running = _job_processes(work)
        starter.kill()
        pool.wait(lambda: not any(_alive(p) for p in running), 20, "its jobs killed")
        pool.wait(lambda: len(pool.history()) == 4, 60, "every job to complete")
        assert _starter(pool).pid != starter.pid
        history = pool.history()
    assert all(h["JobStatus"] == 4 and h["ExitCode"] == 0 for h in history)
    log = events(work / "jobs.log")
    for proc in range(4):
        seq = log[f"1.{proc}"]
        assert seq[-1] == 5 and seq.count(5) == 1 and seq.count(1) == seq.count(4) + 1, seq
    assert sum(log[f"1.{proc}"].count(4) for proc in range(4)) == 2  # both run again


def _starter(pool: LivePool) -> psutil.Process:
    """The pool's starter process."""
    pid = pool.pid()
    assert pid is not None
    (found,) = (
        child
        for child in psutil.Process(pid).children()
        if "fairpool.starter.service" in child.cmdline()
    )
    return found


def _job_processes(work: Path) -> list[psutil.Process]:
    """The running jobs' shells, by the pid each wrote in its start marker."""
    found = []
    for marker in work.glob("started.*"):
        done = work / marker.name.replace("started", "done")
        if done.exists():
            continue
        try:
            found.append(psutil.Process(int(marker.name.rsplit(".", 1)[1])))
        except psutil.NoSuchProcess:
            continue
    return found


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
