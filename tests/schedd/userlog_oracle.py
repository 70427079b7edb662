"""htcondor2.JobEventLog (HTCondor's own job event log reader) as a test oracle.

Importing htcondor2 switches classad2 into old-ClassAd mode for the whole process, so the
reader lives in a worker (userlog_oracle_worker.py) started once per test session with
``TZ=America/Chicago`` (a zone with daylight saving time and an offset from UTC, so local
and UTC timestamps differ). ``read(path, options)`` gives every event in a file;
``follow(path)`` keeps a reader open across appends, as condor_wait does.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import select
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

__all__ = ["AVAILABLE", "TZ", "EventLogOracle", "oracle"]

WORKER = Path(__file__).with_name("userlog_oracle_worker.py")
AVAILABLE = importlib.util.find_spec("htcondor2") is not None
TZ_NAME = "America/Chicago"
TZ = ZoneInfo(TZ_NAME)
TIMEOUT = 20.0  # seconds for one answer; the reader needs milliseconds


class EventLogOracle:
    """One reader worker; every request is answered within TIMEOUT or the test fails."""

    def __init__(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith("_CONDOR_")}
        env.update(CONDOR_CONFIG="/dev/null", TZ=TZ_NAME, LC_ALL="C", PYTHONIOENCODING="utf-8")
        self._proc = subprocess.Popen(
            [sys.executable, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )
        self._buffer = b""

    def read(self, path: str | Path, options: str = "") -> list[dict[str, Any]]:
        """Every event in the file, as the reader gives them (see the worker's docstring)."""
        handle = self.open(path, options)
        try:
            return self.next(handle, options)
        finally:
            self.ask({"op": "close", "handle": handle})

    def open(self, path: str | Path, options: str = "") -> int:
        return self.ask({"op": "open", "path": str(path), "options": options})["handle"]

    def next(self, handle: int, options: str = "") -> list[dict[str, Any]]:
        """The events appended since the last call (``events(stop_after=0)``)."""
        answer = self.ask({"op": "next", "handle": handle, "options": options})
        if "error" in answer:
            raise AssertionError(f"HTCondor's reader refused the log: {answer['error']}")
        return answer["events"]

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(json.dumps(request).encode() + b"\n")
        self._proc.stdin.flush()
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([fd], [], [], TIMEOUT)
            if not ready:
                raise TimeoutError(f"the reader did not answer {request} in {TIMEOUT} s")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise EOFError(f"the reader died on {request}")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return json.loads(line)

    def close(self) -> None:
        self._proc.kill()
        self._proc.wait()


@cache
def oracle() -> EventLogOracle:
    """The session's one worker (closed when the interpreter exits)."""
    instance = EventLogOracle()
    atexit.register(instance.close)
    return instance
