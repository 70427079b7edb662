"""Running a job: stdio, exit codes and signals, suspension, kills that reach the whole tree,
and the exit noticed through the pidfd; started from the starter's process or by the shim."""

from __future__ import annotations

import asyncio
import errno
import os
import signal
import threading
import time
from pathlib import Path

import psutil
from starter_jobs import WAIT, until, wait_for, wait_readable

from fairpool.starter import ExitRecord, launch
from fairpool.starter.plan import kill_signal


def test_exit_code_and_stdio(jobs):
    (jobs.iwd / "in.txt").write_text("line one\nline two\n")
    jobs.script("io.sh", "tr a-z A-Z\necho to-stderr >&2\nexit 3\n")
    job, record = jobs.run(
        jobs.ad("executable = io.sh\ninput = in.txt\noutput = out.txt\nerror = err.txt")
    )
    assert record.exit_code == 3 and not record.by_signal
    assert record.attrs() == {"ExitBySignal": False, "ExitCode": 3}
    assert (jobs.iwd / "out.txt").read_text() == "LINE ONE\nLINE TWO\n"
    assert (jobs.iwd / "err.txt").read_text() == "to-stderr\n"
    assert not job.sandbox.path.exists()


def test_output_and_error_to_one_file(jobs):
    jobs.script("both.sh", "echo out\necho err >&2\necho out2\n")
    jobs.run(jobs.ad("executable = both.sh\noutput = all.txt\nerror = all.txt"))
    assert (jobs.iwd / "all.txt").read_text() == "out\nerr\nout2\n"


def test_shared_filesystem_stdio_relative_to_iwd(jobs):
    (jobs.iwd / "in.txt").write_text("abc\n")
    jobs.script("cat.sh", "cat\n")
    ad = jobs.ad("executable = cat.sh\ninput = in.txt\noutput = o.txt\nshould_transfer_files = NO")
    jobs.run(ad)
    assert (jobs.iwd / "o.txt").read_text() == "abc\n"


def test_killed_by_a_signal_it_sends_itself(jobs):
    jobs.script("die.sh", "kill -USR1 $$\nsleep 5\n")
    _, record = jobs.run(jobs.ad("executable = die.sh"))
    assert record.signal == signal.SIGUSR1 and record.exit_code is None
    assert record.attrs() == {"ExitBySignal": True, "ExitSignal": signal.SIGUSR1}


def test_pidfd_becomes_readable_at_exit_and_reap_never_blocks(jobs):
    job = jobs.spawn(jobs.ad("executable = /bin/sleep\narguments = 0.3"))
    assert job.reap() is None  # still running: no status, no wait

    async def exit_seen() -> ExitRecord | None:
        seen = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_reader(job.pidfd, seen.set)
        try:
            await asyncio.wait_for(seen.wait(), WAIT)
        finally:
            loop.remove_reader(job.pidfd)
        return job.reap()

    record = asyncio.run(exit_seen())
    assert record is not None and record.exit_code == 0
    assert job.reap() is record  # idempotent
    job.finish()


# Single-process Python jobs: a shell that forks would sit in vfork (state D, not T) when
# stopped while its child had not exec'd yet.
COUNTER = (
    "import time\n"
    "for n in range(3000):\n"
    "    open('n.tmp', 'w').write(str(n))\n"
    "    __import__('os').replace('n.tmp', 'n')\n"
    "    time.sleep(0.01)\n"
)
USR1_EXITS_42 = (
    "import signal, sys, time\n"
    "signal.signal(signal.SIGUSR1, lambda *_: sys.exit(42))\n"
    "open('ready', 'w').close()\n"
    "while True:\n"
    "    time.sleep(0.05)\n"
)


def test_suspend_stops_and_resume_continues(jobs):
    job = jobs.spawn(jobs.ad(jobs.python("count.py", COUNTER)))
    process = psutil.Process(job.pid)
    counter = job.sandbox.path / "n"
    assert until(counter.exists)
    job.suspend()
    job.suspend()  # idempotent
    assert until(lambda: process.status() == psutil.STATUS_STOPPED)
    before = counter.read_text()
    assert not wait_readable(job.pidfd, 0.3) and counter.read_text() == before
    job.resume()
    assert until(lambda: process.status() != psutil.STATUS_STOPPED)
    assert until(lambda: counter.read_text() != before)
    job.hard_kill()
    assert wait_for(job).signal == signal.SIGKILL


def test_soft_kill_then_hard_kill_of_a_job_that_traps_sigterm(jobs):
    jobs.script(
        "stubborn.sh",
        "trap 'echo got-term >> trap.log' TERM\necho ready > ready\n"
        + "while :; do sleep 0.05; done\n",
    )
    job = jobs.spawn(jobs.ad("executable = stubborn.sh"))
    assert until((job.sandbox.path / "ready").exists)
    job.soft_kill()
    assert until(lambda: (job.sandbox.path / "trap.log").exists())
    assert not wait_readable(job.pidfd, 0.3)  # it trapped SIGTERM and lives on
    job.hard_kill()
    record = wait_for(job)
    assert record.signal == signal.SIGKILL


def test_soft_kill_sends_the_jobs_kill_sig_and_continues_a_suspended_job(jobs):
    job = jobs.spawn(jobs.ad(jobs.python("usr1.py", USR1_EXITS_42), KillSig="SIGUSR1"))
    assert until((job.sandbox.path / "ready").exists)
    job.suspend()
    assert until(lambda: psutil.Process(job.pid).status() == psutil.STATUS_STOPPED)
    job.soft_kill()
    assert wait_for(job).exit_code == 42


def test_signals_reach_the_whole_tree_and_leftovers_die_at_exit(jobs):
    jobs.script("tree.sh", "sleep 30 &\necho $! > child.pid\nwait\n")
    job = jobs.spawn(jobs.ad("executable = tree.sh"))
    pid_file = job.sandbox.path / "child.pid"
    assert until(lambda: pid_file.exists() and pid_file.read_text().strip() != "")
    child = psutil.Process(int(pid_file.read_text()))
    job.suspend()
    assert until(lambda: child.status() == psutil.STATUS_STOPPED)
    job.resume()
    job.hard_kill()
    assert wait_for(job).signal == signal.SIGKILL
    assert until(lambda: not child.is_running() or child.status() == psutil.STATUS_ZOMBIE)


def test_a_child_left_behind_is_killed_when_the_job_exits(jobs):
    jobs.script("orphan.sh", "sleep 30 &\necho $! > child.pid\n")
    job = jobs.spawn(jobs.ad("executable = orphan.sh"))
    record = wait_for(job)
    assert record.exit_code == 0
    child_pid = int((job.sandbox.path / "child.pid").read_text())
    assert until(lambda: not psutil.pid_exists(child_pid) or _zombie(child_pid))
    job.finish()


def test_signals_after_exit_are_harmless(jobs):
    job, record = jobs.run(jobs.ad("executable = /bin/true"), finish=False)
    for action in (job.suspend, job.resume, job.soft_kill, job.hard_kill):
        action()
    assert job.reap() is record and record.exit_code == 0
    job.finish()
    job.finish()  # idempotent
    assert not job.sandbox.path.exists()


def test_create_time_is_the_processes(jobs):
    job = jobs.spawn(jobs.ad("executable = /bin/sleep\narguments = 5"))
    assert job.create_time == psutil.Process(job.pid).create_time()
    assert os.getpgid(job.pid) == job.pid and os.getsid(job.pid) == job.pid


def _zombie(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_kill_sig_forms():
    assert kill_signal("SIGUSR1") == kill_signal("usr1") == kill_signal("10") == signal.SIGUSR1
    assert kill_signal(2) == signal.SIGINT
    assert kill_signal(None) == kill_signal("SIGBOGUS") == kill_signal(0) == signal.SIGTERM


def test_the_job_is_started_without_the_shim_unless_asked(jobs):
    """No user switch here (the job's Owner is the starter's user): the starter itself
    starts the job, unless the test forces the shim."""
    job, record = jobs.run(jobs.ad("executable = /bin/true"))
    assert record.exit_code == 0 and job.via_shim is jobs.via_shim


def test_the_job_starts_with_default_signal_dispositions(jobs):
    """Python ignores SIGPIPE and SIGXFSZ; the job must not inherit that (a job writing to
    a closed pipe dies of SIGPIPE, as it would from a shell)."""
    jobs.run(jobs.ad("executable = /bin/grep\narguments = SigIgn /proc/self/status\noutput = sig"))
    ignored = int((jobs.iwd / "sig").read_text().split()[1], 16)
    assert not ignored & (1 << (signal.SIGPIPE - 1))
    assert not ignored & (1 << (signal.SIGXFSZ - 1))


def test_the_job_gets_its_stdio_alone_and_no_blocked_signal(jobs):
    """Only stdin, stdout and stderr reach the job (a descriptor the starter's process
    left inheritable does not), and it starts with no signal blocked."""
    stray = os.open(os.devnull, os.O_RDONLY)
    os.set_inheritable(stray, True)
    try:
        jobs.run(jobs.ad("executable = /bin/ls\narguments = /proc/self/fd\noutput = fds"))
        jobs.run(
            jobs.ad("executable = /bin/grep\narguments = SigBlk /proc/self/status\noutput = sig")
        )
    finally:
        os.close(stray)
    listed = (jobs.iwd / "fds").read_text().split()
    assert listed[:3] == ["0", "1", "2"] and len(listed) == 4  # and ls's own directory
    assert int((jobs.iwd / "sig").read_text().split()[1], 16) == 0


def test_popen_starts_the_job_where_the_c_library_cannot(jobs, monkeypatch):
    """Without glibc's posix_spawn chdir and closefrom (spawn.py), Popen starts the job,
    the same way."""
    monkeypatch.setattr(launch, "SPAWN_USABLE", False)
    jobs.script("where.sh", "pwd\nexit 4\n")
    job, record = jobs.run(jobs.ad("executable = where.sh\noutput = out"))
    assert record.exit_code == 4
    assert (jobs.iwd / "out").read_text() == f"{job.sandbox.path}\n"  # its working directory


def test_a_fifo_as_stdin_is_waited_for_by_the_shim(jobs):
    """Opening a FIFO waits for its writer; the shim does that waiting (within
    LAUNCH_TIMEOUT), so the starter sends such a job through it on either path."""
    fifo = jobs.iwd / "fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=write_when_read, args=(fifo, b"through the fifo\n"))
    writer.start()
    jobs.script("cat.sh", "cat\n")
    try:
        job, record = jobs.run(jobs.ad("executable = cat.sh\ninput = fifo\noutput = out.txt"))
    finally:
        writer.join(WAIT)
    assert record.exit_code == 0 and job.via_shim
    assert (jobs.iwd / "out.txt").read_text() == "through the fifo\n"


def write_when_read(fifo: Path, data: bytes) -> None:
    """Write once a reader has the FIFO open (ENXIO before), for at most WAIT seconds."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as error:
            if error.errno != errno.ENXIO:
                raise
            time.sleep(0.01)
            continue
        os.write(fd, data)
        os.close(fd)
        return


def test_a_relative_execute_dir(jobs, monkeypatch):
    """The sandbox path the job, its environment and the shim see is absolute."""
    monkeypatch.chdir(jobs.execute.parent)
    jobs.execute = Path(jobs.execute.name)
    jobs.script("where.sh", 'pwd > where.out\necho "$_CONDOR_SCRATCH_DIR" >> where.out\n')
    job, record = jobs.run(jobs.ad("executable = where.sh"))
    assert record.exit_code == 0 and job.sandbox.path.is_absolute()
    assert (jobs.iwd / "where.out").read_text().split() == [str(job.sandbox.path)] * 2
