"""The starter as a process of its own: the startd hands it job starts over a socket, and
it spawns, watches, signals, reaps, measures and cleans up the jobs' processes, and says
what became of each (messages.py).

Why a process: Python runs one thread of a process at a time, and the startd's process is
busy deciding (the policy engine, the schedd, the negotiator of a personal pool). The
starter's own work, sandboxes, fork and exec, reaping and output, then waits for that and
adds to it; in a process of its own it runs beside it, on another core. HTCondor's starter
is a process apart too (one per job there; here one per startd, for all of its slots).

A job's exit is noticed through its pidfd in the same ``epoll`` as the socket. Starts run
in a few threads: making a process waits until the new process has exec'd, which on a
busy machine takes milliseconds (the kernel gives the new process a core only once the
running ones have had their slice), and a start waits so with the interpreter's lock
released, so several starts wait at once. Finishing a job that transfers its output runs
in a thread too, so that a big copy delays no other slot's start or end; a job without
file transfer finishes at once, on the loop.

Its life is its startd's: it serves the socket until told to stop (every job killed) or
until the socket closes, which means the startd died. It then ends at once and leaves its
jobs where they are, as a crashed startd did: each start is recorded (records.py), and
the startd that starts next kills what still runs.

Run as ``python -m fairpool.starter.service --socket FD --execute DIR --records DIR``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import socket
import threading
from dataclasses import dataclass

from .hold import StartError, TransferError
from .messages import Exited, Frames, Refused, Signal, Start, Started, Stop, frame
from .process import JobProcess, Launch
from .records import Records
from .spares import Spares
from .workers import Workers

__all__ = ["Service", "main"]

_READ = 1 << 18  # bytes read off the socket at once
_ONCE = select.EPOLLIN | select.EPOLLONESHOT  # a job's pidfd: it reports its exit once
STARTING = 4  # threads that start jobs at once


@dataclass
class _Job:
    start: Start
    process: JobProcess


class Service:
    """One startd's starter: its jobs by slot, their pidfds in one ``epoll``."""

    def __init__(self, connection: socket.socket, execute_dir: str, records: Records) -> None:
        self.connection = connection
        self.execute_dir = execute_dir
        self.records = records
        self.spares = Spares(execute_dir)
        self.jobs: dict[str, _Job] = {}  # slot -> the job started there last
        self.exiting: dict[int, _Job] = {}  # pidfd -> its job
        self.starting: dict[str, list[Signal]] = {}  # slot -> signals for the job it starts
        self._poll = select.epoll()
        self._frames = Frames(Start | Signal | Stop)
        self._out: list[bytes] = []  # to send after this turn of the loop
        self._lock = threading.Lock()  # the dicts above and the socket's sending side
        self._starts = Workers(STARTING, "start")
        self._finishing = Workers(4, "finish")
        self._running = True

    def run(self) -> None:
        """Serve until stopped or until the startd has gone."""
        self._poll.register(self.connection.fileno(), select.EPOLLIN)
        socket_fd = self.connection.fileno()
        while self._running:
            for fd, _ in self._poll.poll():
                if fd == socket_fd:
                    self._read()
                else:
                    self._exited(fd)
                if not self._running:
                    break
            self._flush()
        self._starts.shutdown()
        self._finishing.shutdown()

    def _read(self) -> None:
        data = self.connection.recv(_READ)
        if not data:  # the startd died: its successor kills the jobs left
            self._running = False
            return
        for message in self._frames.feed(data):
            if isinstance(message, Start):
                with self._lock:
                    self.starting[message.slot] = []
                if message.plan.transfer:  # its input copies may take long: all apart
                    self._starts.submit(self._start, message)
                else:
                    self._prepare(message)
            elif isinstance(message, Signal):
                self._signal(message)
            else:
                self._stop()

    def _start(self, start: Start) -> None:
        """In a start thread: the whole start of a job that copies files in."""
        launch = self._prepared(start)
        if launch is not None:
            self._exec(launch)

    def _prepare(self, start: Start) -> None:
        """On the loop: a job's sandbox made and filled; its exec, which waits for the new
        process, in a start thread. Only the exec's wait is apart: each hand-over to a
        thread costs the kernel's switches between them."""
        launch = self._prepared(start)
        if launch is not None:
            self._starts.submit(self._exec, launch)

    def _prepared(self, start: Start) -> Launch | None:
        """The job's sandbox made and filled, or None once its refusal is sent."""
        try:
            return JobProcess.prepare(start, execute_dir=self.execute_dir, spares=self.spares)
        except Exception as error:
            self._refused(start, error)
            return None

    def _refused(self, start: Start, error: Exception) -> None:
        if isinstance(error, StartError):
            hold = (error.reason, error.code, error.subcode)
            self._refuse(Refused(start.slot, start.run, str(error), hold))
        else:  # the machine's trouble (execute directory, fork...)
            self._refuse(Refused(start.slot, start.run, f"the starter failed: {error}"))

    def _exec(self, launch: Launch) -> None:
        """In a start thread: the job exec'd and recorded, then reported and watched (in
        that order, so that its end is reported after its start)."""
        start = launch.start
        slot = start.slot
        try:
            process = launch.run()
        except Exception as error:
            self._refused(start, error)
            return
        self.records.write(slot, process.pid, process.create_time, start.job)
        job = _Job(start, process)
        started = frame(Started(slot, start.run, process.pid, process.create_time))
        with self._lock:
            signals = self.starting.pop(slot, [])
            self.jobs[slot] = job
            self.exiting[process.pidfd] = job
            self.connection.sendall(started)
            self._poll.register(process.pidfd, _ONCE)
        for signal_ in signals:
            _act(process, signal_.action)

    def _refuse(self, refused: Refused) -> None:
        with self._lock:
            self.starting.pop(refused.slot, None)
            self.connection.sendall(frame(refused))

    def _signal(self, message: Signal) -> None:
        with self._lock:
            waiting = self.starting.get(message.slot)
            if waiting is not None:  # for the job being started there: once it runs
                waiting.append(message)
                return
            job = self.jobs.get(message.slot)
        if job is not None:
            _act(job.process, message.action)

    def _exited(self, pidfd: int) -> None:
        """The job's pidfd became readable: reaped at once, then finished (its output
        brought back) here, or in a thread when it transfers files."""
        with self._lock:
            job = self.exiting.get(pidfd)
            if job is None:
                return
            if job.process.reap() is None:  # not yet, after all: watched again
                self._poll.modify(pidfd, _ONCE)
                return
            del self.exiting[pidfd]  # its pidfd leaves the epoll as finish closes it
            if self.jobs.get(job.start.slot) is job:
                del self.jobs[job.start.slot]
        if job.start.plan.transfer:
            self._finishing.submit(self._finish_apart, job)
        else:
            self._out.append(self._finish(job))

    def _finish(self, job: _Job) -> bytes:
        process = job.process
        hold = None
        try:
            process.finish()
        except TransferError as error:
            hold = (error.reason, error.code, error.subcode)
        record = process.reap()
        assert record is not None
        start = job.start
        return frame(Exited(start.slot, start.run, record.attrs(), process.usage().attrs(), hold))

    def _finish_apart(self, job: _Job) -> None:
        message = self._finish(job)
        with self._lock:
            self.connection.sendall(message)

    def _flush(self) -> None:
        if self._out:
            data = b"".join(self._out)
            self._out.clear()
            with self._lock:
                self.connection.sendall(data)

    def _stop(self) -> None:
        """Every job killed (once its start is through) and reaped, the spares removed;
        the loop ends."""
        self._starts.shutdown()
        for job in list(self.exiting.values()):
            job.process.hard_kill()
        for job in list(self.exiting.values()):
            with contextlib.suppress(ChildProcessError):
                os.waitpid(job.process.pid, 0)
        self.spares.clear()
        self._running = False


def _act(process: JobProcess, action: str) -> None:
    """A startd action on the job's process group."""
    {
        "suspend": process.suspend,
        "continue": process.resume,
        "soft kill": process.soft_kill,
        "hard kill": process.hard_kill,
        "SIGKILL": process.hard_kill,
    }.get(action, lambda: None)()


def main(argv: list[str] | None = None) -> None:
    """The starter process's entry point (its startd starts it)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", type=int, required=True, help="the startd's socket")
    parser.add_argument("--execute", required=True, help="EXECUTE: the jobs' sandboxes")
    parser.add_argument("--records", required=True, help="where each start is recorded")
    args = parser.parse_args(argv)
    # a terminal's ^C reaches the whole process group: the startd decides what stops
    signal.signal(signal.SIGINT, lambda *_: None)  # not SIG_IGN: the jobs must not inherit it
    os.set_inheritable(args.socket, False)  # never a job's
    connection = socket.socket(fileno=args.socket)
    records = Records(args.records)
    try:
        Service(connection, args.execute, records).run()
    finally:
        records.close()
        connection.close()


if __name__ == "__main__":
    main()
