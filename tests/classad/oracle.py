"""classad2 (HTCondor's ClassAd library, htcondor mode) as a test oracle, in a subprocess.

Importing ``htcondor2`` switches classad2 into old-ClassAd compatibility for the whole
process, and classad2 segfaults on a few inputs (spec/classad.md §3, §7.10), so the library
lives in a worker process (oracle_worker.py) started once per test session and spoken to in
JSON lines. A crash or a hang costs one input: the worker is restarted and the answer for
that input is a skip.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import select
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["AVAILABLE", "Answer", "Oracle", "oracle"]

WORKER = Path(__file__).with_name("oracle_worker.py")
AVAILABLE = importlib.util.find_spec("classad2") is not None
TIMEOUT = 20.0  # seconds for one answer; classad2 needs milliseconds for ours


@dataclass(frozen=True)
class Answer:
    """What classad2 said: ``value`` (canonical text or PARSE_ERROR) for an expression,
    ``match`` and the two Requirements values for a match, or ``skip`` with the reason
    the input cannot be compared (``bad_ad`` names an ad classad2 would not parse)."""

    value: str | None = None
    match: bool | None = None
    my_requirements: str | None = None
    target_requirements: str | None = None
    skip: str | None = None
    bad_ad: str | None = None


def worker_environment() -> dict[str, str]:
    """The reference's environment (spec §2): no configuration, UTC, C locale."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("_CONDOR_")}
    env.update(CONDOR_CONFIG="/dev/null", TZ="UTC", LC_ALL="C", PYTHONIOENCODING="utf-8")
    return env


class Oracle:
    """A classad2 worker process; restarted whenever it dies or stops answering."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""
        self.crashes: list[str] = []

    def value(self, expr: str, my: str | None = None, target: str | None = None) -> Answer:
        """classad2's canonical value of ``expr`` (no scope, in ``my``, or in a match)."""
        return self._ask({"kind": "value", "expr": expr, "my": my, "target": target})

    def match(self, my: str, target: str) -> Answer:
        """classad2's symmetric match of two ads, with both Requirements values."""
        return self._ask({"kind": "match", "expr": None, "my": my, "target": target})

    def close(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None

    def _ask(self, request: dict[str, Any]) -> Answer:
        proc = self._started()
        assert proc.stdin is not None
        try:
            proc.stdin.write(json.dumps(request).encode() + b"\n")
            proc.stdin.flush()
            line = self._read_line(proc)
        except (BrokenPipeError, TimeoutError, EOFError) as err:
            self.crashes.append(f"{type(err).__name__}: {request}")
            self.close()
            return Answer(skip=f"classad2 worker died or hung ({type(err).__name__})")
        return Answer(**json.loads(line))

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

    def _read_line(self, proc: subprocess.Popen[bytes]) -> bytes:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([fd], [], [], TIMEOUT)
            if not ready:
                raise TimeoutError
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise EOFError
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line


@cache
def oracle() -> Oracle:
    """The session's one worker (closed when the interpreter exits)."""
    instance = Oracle()
    atexit.register(instance.close)
    return instance
