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


def _writes(monkeypatch) -> list[bytes]:
    """What each os.write of the logs module wrote."""
    import fairpool.daemons.logs as logs

    writes: list[bytes] = []
    real = logs.os.write

    def counting(fd: int, data) -> int:
        writes.append(bytes(data))
        return real(fd, data)

    monkeypatch.setattr(logs.os, "write", counting)
    return writes


def test_a_gathered_blocks_lines_go_out_in_one_write_at_its_end(tmp_path, monkeypatch):
    ours = DaemonLog("fairpool.test.gathered", tmp_path / "log")
    writes = _writes(monkeypatch)
    ours.info("before")
    with ours.gathered():
        ours.info("job %s exited", "1.0")
        with ours.gathered():  # nested: written with the outer block
            ours.info("slot1: Claimed/Busy -> Claimed/Idle")
        ours.info("job %s started", "1.1")
        assert len(writes) == 1  # nothing of the block yet
    ours.info("after")
    ours.file.close()
    assert len(writes) == 3
    assert writes[1].decode().count("\n") == 3
    messages = [line.split(" ", 2)[2] for line in (tmp_path / "log").read_text().splitlines()]
    assert messages == [
        "before",
        "job 1.0 exited",
        "slot1: Claimed/Busy -> Claimed/Idle",
        "job 1.1 started",
        "after",
    ]


def test_a_gathered_block_writes_its_lines_when_it_raises(tmp_path):
    ours = DaemonLog("fairpool.test.raised", tmp_path / "log")
    try:
        with ours.gathered():
            ours.info("logged before the error")
            raise RuntimeError("the handler failed")
    except RuntimeError:
        pass
    ours.file.close()
    assert (tmp_path / "log").read_text().endswith(" logged before the error\n")


def test_another_threads_lines_are_not_held_by_a_gathered_block(tmp_path, monkeypatch):
    import threading

    ours = DaemonLog("fairpool.test.threads", tmp_path / "log")
    writes = _writes(monkeypatch)
    with ours.gathered():
        ours.info("this thread's")
        other = threading.Thread(target=ours.info, args=("the other thread's",))
        other.start()
        other.join()
        assert [w.decode().split(" ", 2)[2] for w in writes] == ["the other thread's\n"]
    ours.file.close()
    assert writes[-1].decode().endswith(" this thread's\n")


def test_gathered_lines_that_cannot_be_written_go_the_logging_modules_way(tmp_path, capsys):
    ours = DaemonLog("fairpool.test.closed", tmp_path / "log")
    with ours.gathered():
        ours.info("lost with the file")
        ours.file.stream.close()  # the disk went away meanwhile
    assert "lost with the file" in capsys.readouterr().err  # logging's own error report
