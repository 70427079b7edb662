"""The startd's end of its starter process (fairpool.starter.service): started at the
first job, spoken to over a socket from the event loop, without ever waiting on it.

What the starter says (``Started`` or ``Refused`` for each start, ``Exited`` at each
job's end) goes to the startd's callback in the order it was said, the messages of one
read inside one ``gathered()`` block (the startd's log writes their lines at once); signals
get no answer.
Messages sent in one step of the loop leave in one write. Should the starter process die,
the startd hears of it (``on_lost``), and the next start begins another.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import msgspec

from ..starter.messages import Exited, Frames, Refused, Signal, Start, Started, Stop, frame

__all__ = ["StarterLink"]

_READ = 1 << 18  # bytes read off the socket at once
_STOP_WAIT = 5.0  # seconds a stopping starter gets to kill and reap its jobs


class StarterLink:
    """A starter process for the jobs of one startd."""

    def __init__(
        self,
        execute_dir: Path,
        records_dir: Path,
        on_message: Callable[[Started | Refused | Exited], None],
        on_lost: Callable[[], None],
        gathered: Callable[[], AbstractContextManager] = contextlib.nullcontext,
    ) -> None:
        self.execute_dir = execute_dir
        self.records_dir = records_dir
        self.on_message = on_message
        self.on_lost = on_lost
        self.gathered = gathered  # around the messages of one read (the startd's log lines)
        self.process: subprocess.Popen | None = None
        self._socket: socket.socket | None = None
        self._frames = Frames(Started | Refused | Exited)
        self._out = bytearray()  # to send at the end of this step of the loop
        self._sending = False

    def start(self, message: Start) -> None:
        """Send a start (the starter process begins with the first)."""
        self._connect()
        self._send(message)

    def signal(self, slot: str, action: str) -> None:
        if self._socket is not None:
            self._send(Signal(slot, action))

    def _connect(self) -> None:
        if self._socket is not None:
            return
        ours, theirs = socket.socketpair()
        command = [sys.executable, "-m", "fairpool.starter.service"]
        command += ["--socket", str(theirs.fileno()), "--execute", str(self.execute_dir)]
        command += ["--records", str(self.records_dir)]
        try:
            self.process = subprocess.Popen(
                command, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.setblocking(False)
        self._socket = ours
        asyncio.get_running_loop().add_reader(ours.fileno(), self._readable)

    def _send(self, message: msgspec.Struct) -> None:
        self._out += frame(message)
        if not self._sending:
            self._sending = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        connection = self._socket
        if connection is None:
            self._out.clear()
        else:
            try:
                sent = connection.send(self._out)
            except BlockingIOError:
                sent = 0
            except OSError:  # the starter is gone: _readable hears of it
                sent = len(self._out)
            del self._out[:sent]
        loop = asyncio.get_running_loop()
        if self._out:  # the socket is full: the rest once it drains
            loop.add_writer(connection.fileno(), self._flush)
        else:
            self._sending = False
            if connection is not None:
                loop.remove_writer(connection.fileno())

    def _readable(self) -> None:
        assert self._socket is not None
        try:
            data = self._socket.recv(_READ)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._lost()
            return
        with self.gathered():
            for message in self._frames.feed(data):
                self.on_message(message)

    def _lost(self) -> None:
        """The starter process ended on its own: the startd is told."""
        self._disconnect()
        self._reap(0.5)
        self.on_lost()

    def _disconnect(self) -> None:
        if self._socket is not None:
            with contextlib.suppress(Exception):
                loop = asyncio.get_running_loop()
                loop.remove_reader(self._socket.fileno())
                loop.remove_writer(self._socket.fileno())
            self._socket.close()
            self._socket = None
        self._frames = Frames(Started | Refused | Exited)

    def _reap(self, seconds: float) -> None:
        if self.process is None:
            return
        try:
            self.process.wait(seconds)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    async def stop(self) -> None:
        """Every job killed, the starter process ended."""
        connection = self._socket
        if connection is None:
            return
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(connection.fileno())
        connection.setblocking(True)
        with contextlib.suppress(OSError):
            connection.sendall(bytes(self._out) + frame(Stop()))
        self._out.clear()
        self._disconnect()
        await asyncio.get_running_loop().run_in_executor(None, self._reap, _STOP_WAIT)
