"""The daemons' logs (``LOG/<Daemon>Log``): each line a time and a message, as HTCondor
writes them.

A busy startd writes four lines a job, which cost more than some of the job's own steps:
``LineFormatter`` writes each second's time once; a ``DaemonLog`` writes a plain message's
line itself, without the record, filters and formatting the logging module makes of it
(about half of a line's cost); and ``skip_record_details`` (for the program that runs the
daemons: it changes the whole process) stops ``logging`` from finding what these lines
never show, the caller's source line, thread and process (the logging HOWTO's own advice
for such programs).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
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
            with handler.lock:  # type: ignore[union-attr]
                try:  # the stream's buffer is empty (each line is flushed): to its file
                    stream = handler.stream
                    data = memoryview(line.encode(stream.encoding, stream.errors))
                    while data:
                        data = data[os.write(stream.fileno(), data) :]
                    return
                except Exception:  # closed, or the disk: the logging module says so its way
                    pass
        super()._log(level, msg, args, exc_info, extra, stack_info, stacklevel)


def skip_record_details() -> None:
    """Log records without the caller's file and line, thread and process."""
    logging._srcfile = None  # the HOWTO's way: findCaller is skipped
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
