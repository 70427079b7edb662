"""A real pool for tests: ``fairpool pool start --background`` in a temporary directory on
a free loopback port, with the configuration a test gives, and always stopped.

    with LivePool(tmp_path, NUM_CPUS=4) as pool:
        pool.submit(submit_text)                 # fairpool submit, as the test's user
        pool.wait(lambda: not pool.jobs(), 60)   # bounded waits only
        pool.history()

Everything goes through the pool's API or its commands, as a user's would.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from fairpool.classad import ClassAd
from fairpool.classad.jsonads import ad_from_json

BASE = {
    "DAEMON_LIST": "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, STARTD",
    "COLLECTOR_HOST": "127.0.0.1:0",
    "NEGOTIATOR_INTERVAL": "2",
    "NEGOTIATOR_MIN_INTERVAL": "0",
    "UPDATE_INTERVAL": "5",
    "SCHEDD_INTERVAL": "5",
    "POLLING_INTERVAL": "1",
    "NUM_CPUS": "2",
    "MEMORY": "2048",
}


def fairpool(
    *args: str, cwd: Path | None = None, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """The fairpool command, as a separate process (``env``: variables added to ours)."""
    result = subprocess.run(
        [sys.executable, "-m", "fairpool.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env} if env else None,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"fairpool {' '.join(args)} failed: {result.stderr or result.stdout}")
    return result


class LivePool:
    def __init__(
        self, directory: Path, token: str | None = None, verify: Any = True, **knobs: object
    ) -> None:
        """``token``: the bearer token the test's requests carry (a pool that requires
        them: tests/securepool.py); ``verify``: the CAs of an HTTPS pool."""
        self.directory = directory
        self.knobs = {**BASE, **{k: str(v) for k, v in knobs.items()}}
        # one static slot per core unless a test says otherwise (a personal pool has one
        # partitionable slot, as HTCondor 23 has)
        self.knobs.setdefault("NUM_SLOTS", self.knobs["NUM_CPUS"])
        self.config = directory / "test_config"
        self.url = ""
        headers = {"authorization": f"Bearer {token}"} if token else None
        self.http = httpx.Client(timeout=30, headers=headers, verify=verify)

    # -- life ---------------------------------------------------------------------------
    def __enter__(self) -> LivePool:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.http.close()

    def write_config(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        lines = [f"LOCAL_DIR = {self.directory}"] + [f"{k} = {v}" for k, v in self.knobs.items()]
        self.config.write_text("\n".join(lines) + "\n")

    def start(self, wait_for_slots: bool = True) -> None:
        self.write_config()
        directory, config = str(self.directory), str(self.config)
        fairpool("pool", "start", "--dir", directory, "--config", config, "--background")
        self.url = (self.directory / "address").read_text().strip()
        if wait_for_slots:
            self.wait(lambda: self.slots(), 30, "the startd's slots in the collector")

    def stop(self) -> None:
        if self.pid() is not None:
            fairpool("pool", "stop", "--dir", str(self.directory), check=False)

    def kill(self) -> None:
        """kill -9 of the pool's process."""
        pid = self.pid()
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        self.wait(lambda: not alive(pid), 10, "the pool to die")
        (self.directory / "master.pid").unlink(missing_ok=True)

    def pid(self) -> int | None:
        try:
            pid = int((self.directory / "master.pid").read_text())
        except (OSError, ValueError):
            return None
        return pid if alive(pid) else None

    # -- waiting ------------------------------------------------------------------------
    @staticmethod
    def wait(condition: Callable[[], Any], seconds: float, what: str = "the condition") -> Any:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            value = condition()
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"waited {seconds} s for {what}")

    def cedar_address(self) -> str:
        """The pool's CEDAR listener, as HTCondor's clients are given it (sinful)."""
        return (self.directory / "cedar_address").read_text().strip()

    # -- the API --------------------------------------------------------------------------
    def get(self, path: str, **params: Any) -> Any:
        response = self.http.get(f"{self.url}{path}", params=params)
        response.raise_for_status()
        return response.json()

    def post(self, path: str, body: Any = None) -> Any:
        response = self.http.post(f"{self.url}{path}", json=body)
        response.raise_for_status()
        return response.json()

    def slots(self, constraint: str | None = None) -> list[ClassAd]:
        found = self.get("/collector/ads", type="Machine", constraint=constraint)["ads"]
        return [ad_from_json(ad) for ad in found]

    def jobs(self, constraint: str | None = None) -> list[ClassAd]:
        return [ad_from_json(ad) for ad in self.get("/schedd/jobs", constraint=constraint)["ads"]]

    def history(self) -> list[ClassAd]:
        return [ad_from_json(ad) for ad in self.get("/schedd/history")["ads"]]

    def accountant(self) -> dict[str, dict[str, Any]]:
        state = self.get("/negotiator/accountant")
        return {c["name"]: c for c in state["customers"]}

    def submit(self, text: str, directory: Path, name: str = "job.sub") -> str:
        directory.mkdir(parents=True, exist_ok=True)
        (directory / name).write_text(text)
        env_pool = ["--pool", self.url]
        return fairpool("submit", name, *env_pool, cwd=directory).stdout

    def set_knobs(self, **knobs: object) -> None:
        """Change knobs in the pool's configuration file and reconfigure."""
        self.knobs.update({k: str(v) for k, v in knobs.items()})
        self.write_config()
        fairpool("reconfig", "--pool", self.url)


def alive(pid: int) -> bool:
    """Whether a process runs (and is no zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def events(log: Path) -> dict[str, list[int]]:
    """Each job's user-log event numbers in order (tests/schedd/test_userlog.py checks the
    format against HTCondor's own reader)."""
    out: dict[str, list[int]] = {}
    for line in log.read_text().splitlines():
        if line[:3].isdigit() and line[3:5] == " (":
            cluster, proc, _ = line[5:].split(")")[0].split(".")
            out.setdefault(f"{int(cluster)}.{int(proc)}", []).append(int(line[:3]))
    return out
