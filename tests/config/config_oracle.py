"""HTCondor's own configuration reader (htcondor2) as a test oracle, in one worker process.

htcondor2's configuration is process-global, so it lives in a worker started once per test
module (``config_oracle_worker.py``), spoken to in JSON lines: a configuration file and the
knob names to read; the answer is each knob's value as ``htcondor2.param`` gives it (text,
or a number or boolean for the knobs HTCondor types), or the error that stopped the read.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["AVAILABLE", "ConfigOracle", "OracleRefused"]

WORKER = Path(__file__).with_name("config_oracle_worker.py")
AVAILABLE = importlib.util.find_spec("htcondor2") is not None


class OracleRefused(RuntimeError):
    """htcondor2 would not read the configuration (HTCondor exits on some errors)."""


class ConfigOracle:
    """One htcondor2 worker; ``read(path, names)`` -> {name: value or None}.

    A missing LOCAL_CONFIG_FILE is not an error for the worker (the files are read alone).
    HTCondor ends the process on some configuration errors: the worker is then restarted
    and ``read`` raises OracleRefused.
    """

    def __init__(self) -> None:
        self._proc = self._start()

    @staticmethod
    def _start() -> subprocess.Popen[str]:
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith("_CONDOR_")}
        env.update(CONDOR_CONFIG="/dev/null", TZ="UTC", LC_ALL="C", PYTHONIOENCODING="utf-8")
        env["_CONDOR_REQUIRE_LOCAL_CONFIG_FILE"] = "false"
        return subprocess.Popen(
            [sys.executable, str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            text=True,
        )

    def read(self, path: str | Path, names: list[str]) -> dict[str, Any]:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        try:
            self._proc.stdin.write(json.dumps({"path": str(path), "names": names}) + "\n")
            self._proc.stdin.flush()
            line = self._proc.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:
            self.close()
            self._proc = self._start()
            raise OracleRefused(f"htcondor2 ended its process reading {path}")
        answer = json.loads(line)
        if answer.get("error"):
            raise OracleRefused(answer["error"])
        return answer["values"]

    def close(self) -> None:
        self._proc.kill()
        self._proc.wait()
