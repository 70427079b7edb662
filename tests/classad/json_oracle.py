"""classad2's JSON ad reader and writer as a test oracle, in a worker process
(json_oracle_worker.py), for the same reasons as oracle.py: importing htcondor2 changes
classad2 for the whole process, and the library must never load in fairpool's."""

from __future__ import annotations

import atexit
import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

from tests.classad.oracle import AVAILABLE, Oracle, worker_environment

__all__ = ["AVAILABLE", "JsonOracle", "json_oracle"]

WORKER = Path(__file__).with_name("json_oracle_worker.py")


class JsonOracle(Oracle):
    """A classad2 worker that writes ads as JSON and reads JSON ads."""

    def write(self, ad_text: str) -> dict[str, Any]:
        """classad2's ``printJson()`` of the ad ``ad_text`` (new syntax)."""
        return self._request({"kind": "write", "ad": ad_text})

    def read(self, ad_text: str, json_text: str) -> dict[str, Any]:
        """Whether classad2 reads ``json_text`` as the same ad as ``ad_text``."""
        return self._request({"kind": "read", "ad": ad_text, "json": json_text})

    def _request(self, request: dict[str, Any]) -> dict[str, Any]:
        proc = self._started()
        assert proc.stdin is not None
        try:
            proc.stdin.write(json.dumps(request).encode() + b"\n")
            proc.stdin.flush()
            return json.loads(self._read_line(proc))
        except (BrokenPipeError, TimeoutError, EOFError) as err:
            self.close()
            return {"error": f"classad2 worker died or hung ({type(err).__name__})"}

    def _started(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [sys.executable, str(WORKER)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=worker_environment(),
            )
            self._buffer = b""
        return self._proc


@cache
def json_oracle() -> JsonOracle:
    """The session's one worker (closed when the interpreter exits)."""
    instance = JsonOracle()
    atexit.register(instance.close)
    return instance
