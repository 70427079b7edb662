"""A pool over several "hosts" simulated on this machine: each host a process of its own
(``fairpool pool start --background``) with its own directory and configuration, all on
127.0.0.1 with free ports, all reporting to the collectors of one COLLECTOR_HOST list.

    with Hosts(tmp_path, collectors=2) as pool:
        cm1 = pool.host("cm1", "COLLECTOR, NEGOTIATOR")
        cm2 = pool.host("cm2", "COLLECTOR", COLLECTOR_ARGS=f"-p {pool.ports[1]}")
        exec1 = pool.host("exec1", "STARTD", STARTD_NAME="exec1")
        pool.start(cm1, cm2)            # concurrently
        pool.start(exec1)
        pool.submit("sub1", text, work) # fairpool submit -name sub1 --pool <collectors>

Each host is a ``LivePool`` (livepool.py) whose ``url`` is its own process; the
collectors are asked through ``pool.collector(n)``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from fairpool.classad import ClassAd
from fairpool.classad.jsonads import ad_from_json
from livepool import LivePool, alive, fairpool

__all__ = ["Hosts", "free_port"]

# short intervals: a pool that moves within seconds
COMMON = {
    "NEGOTIATOR_INTERVAL": "1",
    "NEGOTIATOR_MIN_INTERVAL": "0",
    "UPDATE_INTERVAL": "2",
    "SCHEDD_INTERVAL": "2",
    "SCHEDD_MIN_INTERVAL": "1",
    "POLLING_INTERVAL": "1",
    "MASTER_UPDATE_INTERVAL": "2",
}


MASTER = [sys.executable, "-m", "fairpool.cli", "pool", "start"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Hosts:
    """The processes of one pool; every one stopped at the end."""

    def __init__(self, root: Path, collectors: int = 1, **common: object) -> None:
        self.root = root
        self.ports = [free_port() for _ in range(collectors)]
        self.collector_host = ", ".join(f"127.0.0.1:{port}" for port in self.ports)
        self.common = {**COMMON, **{k: str(v) for k, v in common.items()}}
        self.hosts: dict[str, LivePool] = {}

    def __enter__(self) -> Hosts:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop(*self.hosts.values())
        for host in self.hosts.values():
            host.http.close()

    def host(self, name: str, daemons: str, **knobs: object) -> LivePool:
        """A host (not started) running MASTER and ``daemons``, its master named
        ``name`` (MASTER_NAME)."""
        made = LivePool(
            self.root / name,
            **self.common,
            DAEMON_LIST=f"MASTER, {daemons}",
            COLLECTOR_HOST=self.collector_host,
            MASTER_NAME=name,
            **knobs,
        )
        self.hosts[name] = made
        return made

    @staticmethod
    def start(*hosts: LivePool) -> None:
        """Start hosts at once, each as ``fairpool pool start --background`` does (the
        master in a process of its own, the address it writes awaited), without the
        command's own start-up: the machine's cores go to the hosts."""
        for host in hosts:
            host.write_config()
            (host.directory / "address").unlink(missing_ok=True)
            command = [*MASTER, "--dir", str(host.directory), "--config", str(host.config)]
            with open(host.directory / "master.out", "ab") as sink:
                subprocess.Popen(command, stdout=sink, stderr=sink, start_new_session=True)
        for host in hosts:
            address = host.directory / "address"
            host.wait(address.exists, 30, f"{host.directory.name} to start")
            host.url = address.read_text().strip()

    @staticmethod
    def stop(*hosts: LivePool) -> None:
        """Stop hosts at once (SIGTERM, as ``fairpool pool stop`` sends it)."""
        pids = [pid for pid in (host.pid() for host in hosts) if pid is not None]
        for pid in pids:
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)

    # -- the collectors -------------------------------------------------------------------
    def collector(self, number: int = 0) -> str:
        """The base URL of the ``number``-th collector of COLLECTOR_HOST."""
        return f"http://127.0.0.1:{self.ports[number]}"

    def ads(self, kind: str, number: int = 0, constraint: str | None = None) -> list[ClassAd]:
        """The ads of a type in one collector (none when it does not answer)."""
        host = next(iter(self.hosts.values()))
        params: dict[str, Any] = {"type": kind, "constraint": constraint}
        try:
            response = host.http.get(f"{self.collector(number)}/collector/ads", params=params)
        except Exception:
            return []
        response.raise_for_status()
        return [ad_from_json(obj) for obj in response.json()["ads"]]

    def names(self, kind: str, number: int = 0) -> set[str]:
        return {str(ad["Name"]) for ad in self.ads(kind, number)}

    # -- users ----------------------------------------------------------------------------
    def submit(self, schedd: str, text: str, directory: Path, name: str = "job.sub") -> str:
        """``fairpool submit`` to a schedd by name, the pool found through COLLECTOR_HOST
        (the first collector that answers)."""
        directory.mkdir(parents=True, exist_ok=True)
        (directory / name).write_text(text)
        pool = ",".join(f"127.0.0.1:{port}" for port in self.ports)
        return fairpool("submit", name, "-name", schedd, "--pool", pool, cwd=directory).stdout
