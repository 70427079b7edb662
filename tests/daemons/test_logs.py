"""The daemons' log lines: a time and a message, the time made once a second."""

from __future__ import annotations

import logging

from fairpool.daemons.logs import TIME_FORMAT, LineFormatter, skip_record_details


def _record(created: float) -> logging.LogRecord:
    record = logging.LogRecord("startd", logging.INFO, __file__, 1, "job %s", ("1.0",), None)
    record.created, record.msecs = created, (created - int(created)) * 1000
    return record


def test_lines_are_as_the_plain_formatter_writes_them():
    plain = logging.Formatter("%(asctime)s.%(msecs)03d %(message)s", TIME_FORMAT)
    ours = LineFormatter()
    for created in (1_700_000_000.25, 1_700_000_000.75, 1_700_000_001.0, 1_700_003_601.5):
        assert ours.format(_record(created)) == plain.format(_record(created))


def test_records_skip_the_details_no_line_shows(monkeypatch):
    for name in ("_srcfile", "logThreads", "logProcesses", "logMultiprocessing"):
        monkeypatch.setattr(logging, name, getattr(logging, name))  # put back afterwards
    skip_record_details()
    record = logging.getLogger("fairpool.test").makeRecord("t", logging.INFO, "f", 1, "m", (), None)
    assert record.process is None and record.thread is None
    assert logging._srcfile is None  # so no record looks for its caller's source line
