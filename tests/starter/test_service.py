"""The starter process (starter/service.py), spoken to over its socket as a startd does:
a start is answered with the job's pid and start time (and recorded under its slot), or
refused with HTCondor's hold; signals reach the job's process group; its end comes with
its exit code or signal and its usage; a stop kills every job; a closed socket (the startd
died) ends the starter and leaves its jobs to the next startd, which finds them by their
records. Also the messages' framing and the records on their own."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from starter_jobs import SLOT, WAIT, Jobs, until

from fairpool.starter import kill_leftover
from fairpool.starter.messages import (
    Exited,
    Frames,
    Refused,
    Signal,
    Start,
    Started,
    Stop,
    frame,
)
from fairpool.starter.records import WIDTH, Records, read_records


class Starter:
    """A starter process and the startd's end of its socket."""

    def __init__(self, root: Path) -> None:
        self.records = root / "records"
        ours, theirs = socket.socketpair()
        command = [sys.executable, "-m", "fairpool.starter.service"]
        command += ["--socket", str(theirs.fileno()), "--execute", str(root / "execute")]
        command += ["--records", str(self.records)]
        self.process = subprocess.Popen(command, pass_fds=(theirs.fileno(),))
        theirs.close()
        self.socket = ours
        self.socket.settimeout(WAIT)
        self.frames = Frames(Started | Refused | Exited)
        self.heard: list = []
        self.runs = 0

    def start(self, jobs: Jobs, description: str) -> Start:
        self.runs += 1
        message = Start.of(jobs.ad(description), slot=SLOT, run=self.runs)
        self.send(message)
        return message

    def send(self, message) -> None:
        self.socket.sendall(frame(message))

    def next(self):
        while not self.heard:
            self.heard.extend(self.frames.feed(self.socket.recv(65536)))
        return self.heard.pop(0)


@pytest.fixture
def starter(tmp_path: Path) -> Iterator[Starter]:
    process = Starter(tmp_path)
    yield process
    process.socket.close()
    process.process.wait(WAIT)
    for record in read_records(process.records):
        kill_leftover(record.pid, record.create_time)


@pytest.fixture
def jobs(tmp_path: Path) -> Iterator[Jobs]:
    helper = Jobs(tmp_path, psutil.Process().username())
    yield helper
    helper.cleanup()


def test_a_job_is_started_recorded_and_reported_with_its_exit(starter, jobs):
    jobs.script("job.sh", "echo ran > out.$1\nexit 3\n")
    started_at = time.time()
    start = starter.start(jobs, "executable = job.sh\narguments = 7\nshould_transfer_files = NO")
    started = starter.next()
    assert isinstance(started, Started) and (started.slot, started.run) == (SLOT, start.run)
    assert abs(started.create_time - started_at) < 2
    (record,) = read_records(starter.records)
    assert record == (SLOT, started.pid, started.create_time, start.job)
    exited = starter.next()
    assert isinstance(exited, Exited) and exited.run == start.run and exited.hold is None
    assert exited.exit == {"ExitBySignal": False, "ExitCode": 3}
    assert {"RemoteUserCpu", "RemoteSysCpu", "DiskUsage"} <= set(exited.usage)
    assert (jobs.iwd / "out.7").read_text() == "ran\n"


def test_a_missing_executable_is_refused_with_htcondors_hold(starter, jobs):
    start = starter.start(jobs, "executable = missing\nshould_transfer_files = NO")
    refused = starter.next()
    assert isinstance(refused, Refused) and refused.run == start.run
    reason, code, subcode = refused.hold
    assert (code, subcode) == (6, 2) and reason.startswith(f"Error from {SLOT}: ")
    assert refused.reason == reason


def test_signals_reach_the_job_and_a_hard_kill_ends_it(starter, jobs):
    jobs.script("sleep.sh", "exec sleep 30\n")
    starter.start(jobs, "executable = sleep.sh\nshould_transfer_files = NO")
    process = psutil.Process(starter.next().pid)
    starter.send(Signal(SLOT, "suspend"))
    assert until(lambda: process.status() == psutil.STATUS_STOPPED)
    starter.send(Signal(SLOT, "continue"))
    assert until(lambda: process.status() != psutil.STATUS_STOPPED)
    starter.send(Signal(SLOT, "hard kill"))
    exited = starter.next()
    assert exited.exit == {"ExitBySignal": True, "ExitSignal": 9}


def test_a_stop_kills_every_job_and_ends_the_starter(starter, jobs):
    jobs.script("sleep.sh", "exec sleep 30\n")
    starter.start(jobs, "executable = sleep.sh\nshould_transfer_files = NO")
    process = psutil.Process(starter.next().pid)
    starter.send(Stop())
    assert starter.process.wait(WAIT) == 0
    assert not process.is_running()


def test_a_closed_socket_ends_the_starter_and_leaves_its_jobs_to_the_records(starter, jobs):
    jobs.script("sleep.sh", "exec sleep 30\n")
    starter.start(jobs, "executable = sleep.sh\nshould_transfer_files = NO")
    process = psutil.Process(starter.next().pid)
    starter.socket.close()  # the startd died
    assert starter.process.wait(WAIT) == 0
    assert process.is_running()  # as a crashed startd's: the next one kills it
    (record,) = read_records(starter.records, remove=True)
    assert kill_leftover(record.pid, record.create_time)
    assert until(lambda: not process.is_running() or process.status() == psutil.STATUS_ZOMBIE)
    assert not list(starter.records.iterdir())


def test_frames_are_cut_out_whatever_the_reads_boundaries():
    messages = [Signal(SLOT, "suspend"), Stop(), Signal("slot2@x", "continue" * 100)]
    data = b"".join(frame(m) for m in messages)
    frames = Frames(Signal | Stop)
    heard = [m for i in range(0, len(data), 3) for m in frames.feed(data[i : i + 3])]
    assert heard == messages


def test_a_record_is_written_in_place_and_read_back(tmp_path):
    records = Records(tmp_path / "records")
    records.write(SLOT, 123, 1.5, "1.0")
    records.write(SLOT, 456, 2.25, "2.0")  # the slot's next job replaces it
    records.write("slot2@x", 789, 3.0, "3." + "9" * WIDTH)  # longer than the width
    records.write("slot2@x", 790, 3.5, "4.0")
    records.close()
    assert (tmp_path / "records" / SLOT).stat().st_size == WIDTH
    found = read_records(tmp_path / "records", remove=True)
    assert sorted(found) == [(SLOT, 456, 2.25, "2.0"), ("slot2@x", 790, 3.5, "4.0")]
    assert not os.listdir(tmp_path / "records")
