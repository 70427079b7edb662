"""After a crash: kill the jobs still running (only if the pid is still that process) and
remove stale scratch directories."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time

import psutil
import pytest
from starter_jobs import until, wait_for, wait_readable

from fairpool.starter import kill_leftover, remove_stale_sandboxes
from fairpool.starter.leftovers import start_time


def test_kill_leftover_kills_the_job_and_its_group(jobs):
    jobs.script("tree.sh", "sleep 30 &\necho $! > child.pid\nwait\n")
    job = jobs.spawn(jobs.ad("executable = tree.sh"))
    pid_file = job.sandbox.path / "child.pid"
    assert until(lambda: pid_file.exists() and pid_file.read_text().strip() != "")
    child = psutil.Process(int(pid_file.read_text()))
    recorded = (job.pid, job.create_time)  # what the startd keeps in its state
    assert kill_leftover(*recorded) is True
    assert wait_for(job).signal == signal.SIGKILL
    assert until(lambda: not child.is_running() or child.status() == psutil.STATUS_ZOMBIE)
    assert kill_leftover(*recorded) is False  # gone now


def test_kill_leftover_refuses_a_pid_that_is_another_process(jobs):
    job = jobs.spawn(jobs.ad("executable = /bin/sleep\narguments = 30"))
    assert kill_leftover(job.pid, job.create_time - 5.0) is False
    assert kill_leftover(job.pid, job.create_time + 5.0) is False
    assert not wait_readable(job.pidfd, 0.2)  # still running, untouched
    assert psutil.Process(job.pid).status() != psutil.STATUS_ZOMBIE


def test_kill_leftover_of_a_pid_that_no_longer_exists():
    assert kill_leftover(2**22 + 12345, 0.0) is False  # above pid_max's default range


def test_remove_stale_sandboxes(tmp_path):
    execute = tmp_path / "execute"
    for name in ("dir_1", "dir_2", "dir_7"):
        (execute / name / "sub").mkdir(parents=True)
        (execute / name / "sub" / "file").write_text("x")
    (execute / "dir_2" / "sub").chmod(0o500)  # a job took its own write permission away
    (execute / "not_a_sandbox").mkdir()
    (execute / "dir_file").write_text("a file, not a sandbox")
    removed = remove_stale_sandboxes(execute, keep=[execute / "dir_7"])
    assert removed == [execute / "dir_1", execute / "dir_2"]
    assert sorted(p.name for p in execute.iterdir()) == ["dir_7", "dir_file", "not_a_sandbox"]
    assert remove_stale_sandboxes(tmp_path / "missing") == []


def test_start_time_from_the_clock_around_the_start_is_the_kernels():
    known = 0
    for _ in range(50):
        before = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
        process = subprocess.Popen(["/bin/true"])
        between = (before, time.clock_gettime_ns(time.CLOCK_BOOTTIME))
        read = start_time(process.pid)  # from /proc, as psutil does
        assert start_time(process.pid, between) == read == psutil.Process(process.pid).create_time()
        # pid -1 has no /proc entry: a start time for it came from the clock alone (an
        # OSError: the window crossed a tick's edge, so /proc was read)
        with contextlib.suppress(OSError):
            known += start_time(-1, between) == read
        process.wait()
    assert known > 0  # mostly known without /proc (the pid -1 is never read)
    with pytest.raises(OSError):  # a window across a tick's edge: read, and there is no -1
        start_time(-1, (9_999_950_000, 10_000_050_000))
