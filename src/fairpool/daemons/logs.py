"""The daemons' logs (``LOG/<Daemon>Log``): each line a time and a message, as HTCondor
writes them.

A busy startd writes four lines a job, which cost more than some of the job's own steps:
``LineFormatter`` writes each second's time once, and ``skip_record_details`` (for the
program that runs the daemons: it changes the whole process) stops ``logging`` from
finding what these lines never show, the caller's source line, thread and process (the
logging HOWTO's own advice for such programs).
"""

from __future__ import annotations

import logging
import time

__all__ = ["TIME_FORMAT", "LineFormatter", "skip_record_details"]

TIME_FORMAT = "%m/%d/%y %H:%M:%S"


class LineFormatter(logging.Formatter):
    """``MM/DD/YY HH:MM:SS.mmm message``; the date and time made once a second."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s.%(msecs)03d %(message)s", TIME_FORMAT)
        self._second: int | None = None
        self._text = ""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        second = int(record.created)
        if second != self._second:
            self._text = time.strftime(datefmt or TIME_FORMAT, self.converter(second))
            self._second = second
        return self._text


def skip_record_details() -> None:
    """Log records without the caller's file and line, thread and process."""
    logging._srcfile = None  # the HOWTO's way: findCaller is skipped
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
