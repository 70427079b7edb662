"""The daemons' logs (``LOG/<Daemon>Log``): each line a time and a message, as HTCondor
writes them.

A busy startd writes four lines a job, which cost more than some of the job's own steps:
``LineFormatter`` writes each second's time once; a ``DaemonLog`` writes a plain message's
line itself, without the record, filters and formatting the logging module makes of it
(about half of a line's cost); and ``skip_record_details`` (for the program that runs the
daemons: it changes the whole process) stops ``logging`` from finding what these lines
never show, the caller's source line, thread and process (the logging HOWTO's own advice
for such programs).

Each line is written as it is logged, as HTCondor writes its lines, but for the lines of
one ``gathered()`` block: a startd reads its starter's messages several jobs at a time
and logs three lines for each, and those go out in one write once the block ends (the
write is what a line costs in a busy pool). The block is one synchronous step: nothing
the lines record leaves the process before they are written.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = ["TIME_FORMAT", "DaemonLog", "LineFormatter", "skip_record_details"]

TIME_FORMAT = "%m/%d/%y %H:%M:%S"


class LineFormatter(logging.Formatter):
    """``MM/DD/YY HH:MM:SS.mmm message``; the date and time made once a second."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s.%(msecs)03d %(message)s", TIME_FORMAT)
        self._second: int | None = None
        self._text = ""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        return self._stamp(record.created, datefmt or TIME_FORMAT)

    def line(self, created: float, message: str) -> str:
        """What ``format`` makes of a record created at ``created`` with this message
        and no exception or stack, and the handler's line end."""
        msecs = int((created - int(created)) * 1000)  # as LogRecord reckons them
        return f"{self._stamp(created, TIME_FORMAT)}.{msecs:03d} {message}\n"

    def _stamp(self, created: float, datefmt: str) -> str:
        second = int(created)
        if second != self._second:
            self._text = time.strftime(datefmt, self.converter(second))
            self._second = second
        return self._text


class DaemonLog(logging.Logger):
    """A daemon's log file. A plain message (no exception, stack or extra, the file the
    only handler) is written as its line at once, under the handler's lock; anything else
    goes the logging module's way, through the same handler."""

    def __init__(self, name: str, path: Path) -> None:
        super().__init__(name, logging.INFO)
        self.propagate = False
        self.file = logging.FileHandler(path)
        self.file.setFormatter(LineFormatter())
        self.addHandler(self.file)
        self._gathering: int | None = None  # the thread whose lines wait for one write
        self._gathered: list[tuple[str, int, str]] = []  # (line, level, message)

    @contextlib.contextmanager
    def gathered(self) -> Iterator[None]:
        """The plain lines this thread logs in the block, written in one write at its end
        (in their order; another thread's lines meanwhile go out at once). Nested blocks
        write at the outermost one's end."""
        if self._gathering is not None:
            yield
            return
        self._gathering = threading.get_ident()
        try:
            yield
        finally:
            self._gathering = None
            gathered, self._gathered = self._gathered, []
            if gathered and not self._write("".join(line for line, _, _ in gathered)):
                for _, level, text in gathered:  # as a line that cannot be written
                    super()._log(level, text, None)

    def _log(  # type: ignore[override]
        self,
        level: int,
        msg: object,
        args: Any,
        exc_info: Any = None,
        extra: Mapping[str, object] | None = None,
        stack_info: bool = False,
        stacklevel: int = 1,
    ) -> None:
        handler = self.file
        plain = not (exc_info or extra is not None or stack_info or self.filters)
        formatter = handler.formatter
        if plain and self.handlers == [handler] and not handler.filters and level >= handler.level:
            if args and len(args) == 1 and isinstance(args[0], Mapping) and args[0]:
                args = args[0]  # as LogRecord takes a lone mapping
            text = str(msg) % args if args else str(msg)
            assert isinstance(formatter, LineFormatter)
            line = formatter.line(time.time(), text)
            if self._gathering is not None and self._gathering == threading.get_ident():
                self._gathered.append((line, level, text))
                return
            if self._write(line):
                return
        super()._log(level, msg, args, exc_info, extra, stack_info, stacklevel)

    def _write(self, lines: str) -> bool:
        """Whole lines to the file, under the handler's lock; False when they could not
        be (closed, or the disk: the logging module then says so its way)."""
        handler = self.file
        with handler.lock:  # type: ignore[union-attr]
            try:  # the stream's buffer is empty (each line is flushed): to its file
                stream = handler.stream
                data = memoryview(lines.encode(stream.encoding, stream.errors))
                while data:
                    data = data[os.write(stream.fileno(), data) :]
                return True
            except Exception:
                return False


def skip_record_details() -> None:
    """Log records without the caller's file and line, thread and process."""
    logging._srcfile = None  # the HOWTO's way: findCaller is skipped
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
