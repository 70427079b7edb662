"""The daemons' log lines: a time and a message, the time made once a second."""

from __future__ import annotations

import logging
import time

from fairpool.daemons.logs import TIME_FORMAT, DaemonLog, LineFormatter, skip_record_details


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


def test_a_daemon_logs_plain_lines_as_the_logging_module_writes_them(tmp_path, monkeypatch):
    """A DaemonLog writes a plain message's line itself: the same line, character for
    character, as the logging module makes through the same formatter."""
    plain = logging.getLogger("fairpool.test.plain")
    handler = logging.FileHandler(tmp_path / "plain")
    handler.setFormatter(LineFormatter())
    plain.addHandler(handler)
    plain.setLevel(logging.INFO)
    plain.propagate = False
    ours = DaemonLog("fairpool.test.ours", tmp_path / "ours")
    calls = [
        ("job %s on %s exited: %s", ("1.0", "slot1@h", {"ExitCode": 0})),
        ("a lone mapping %(n)s", ({"n": 3},)),
        ("no arguments, 100% as is", ()),
        (42, ()),
    ]
    for created in (1_700_000_000.25, 1_700_000_000.999, 1_700_000_001.0):
        monkeypatch.setattr(time, "time", lambda created=created: created)
        for message, args in calls:
            plain.info(message, *args)
            ours.info(message, *args)
    handler.close()
    ours.file.close()
    written = (tmp_path / "ours").read_text()
    assert written == (tmp_path / "plain").read_text()
    assert written.count("\n") == 12


def test_what_is_not_a_plain_line_goes_the_logging_modules_way(tmp_path):
    ours = DaemonLog("fairpool.test.exception", tmp_path / "log")
    try:
        raise ValueError("broken")
    except ValueError:
        ours.exception("it failed: %s", "badly")
    ours.debug("below the level: not written")
    ours.file.close()
    lines = (tmp_path / "log").read_text().splitlines()
    assert (
        lines[0].endswith(" it failed: badly") and lines[1] == "Traceback (most recent call last):"
    )
    assert lines[-1] == "ValueError: broken"
