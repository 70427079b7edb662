"""condor_gangliad: the pool's metrics sent to Ganglia every GANGLIAD_INTERVAL.

``use FEATURE : ganglia`` adds GANGLIAD to DAEMON_LIST, as in HTCondor. Each
publication evaluates the metric definitions over the collector's ads (the same as
``/metrics``: metrics_api.py) and sends every metric as gmetric does, in gmond's own
protocol over UDP (monitor/gmond.py), to each ``udp_send_channel`` of gmond's
configuration (``GANGLIA_CONFIG``), on behalf of the metric's machine
(monitor/ganglia.py). ``GANGLIA_SEND_DATA_FOR_ALL_HOSTS`` False (the default) keeps to
the hosts ``GANGLIA_GSTAT_COMMAND`` lists. A publication that fails (an unreachable
collector, a gstat that fails) is logged and tried again at the next interval.
"""

from __future__ import annotations

import asyncio
import shlex
import socket
import time
from pathlib import Path
from typing import Any

from fastapi import APIRouter

from ..errors import ConfigError, FairpoolError
from ..monitor.ganglia import Publication, monitored_hosts, packets, send_channels
from .context import Context, knob_int
from .metrics_api import PoolMetrics

__all__ = ["Gangliad", "gangliad_router"]

GSTAT = "gstat --all --mpifile --gmond_ip=localhost --gmond_port=8649"
GMOND_CONFIG = "/etc/ganglia/gmond.conf"


class Gangliad:
    """The daemon: a publication every interval, and its last outcome."""

    name = "gangliad"

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.log = ctx.logger(self.name)
        self.metrics = PoolMetrics(ctx)
        self.last: dict[str, Any] = {}
        self._next: Any = None
        self._tasks: set[asyncio.Task] = set()
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._socket.setblocking(False)
        self.reconfig()
        self._plan(1.0)  # the first soon after the daemons' first ads

    def reconfig(self) -> None:
        config = self.ctx.config
        self.interval = knob_int(config, "GANGLIAD_INTERVAL", 60, minimum=1)
        self.min_lifetime = knob_int(config, "GANGLIAD_MIN_METRIC_LIFETIME", 0)
        every = config.get_bool("GANGLIA_SEND_DATA_FOR_ALL_HOSTS", False)
        self.all_hosts = bool(every)
        self.gstat = (config.get("GANGLIA_GSTAT_COMMAND") or "").strip() or GSTAT
        path = Path((config.get("GANGLIA_CONFIG") or "").strip() or GMOND_CONFIG)
        try:
            text = path.read_text()
        except OSError as err:
            raise ConfigError(f"GANGLIA_CONFIG = {path}: cannot read: {err.strerror}") from None
        self.channels = send_channels(text, str(path))
        self.metrics.reconfig()

    def _plan(self, delay: float) -> None:
        self._next = self.ctx.env.at(self.ctx.env.now + delay, self._due)

    def _due(self) -> None:
        task = asyncio.get_running_loop().create_task(self.publish())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        self._plan(self.interval)

    async def publish(self) -> int:
        """One publication; the number of metrics sent."""
        try:
            samples = await self.metrics.samples()
            hosts = None if self.all_hosts else await self._hosts()
        except FairpoolError as err:
            self.log.info("no publication: %s", err)
            self.last = {"time": time.time(), "metrics": 0, "problem": str(err)}
            return 0
        publication = Publication(self.interval, self.min_lifetime, hosts)
        sent = packets(samples, publication)
        loop = asyncio.get_running_loop()
        for channel in self.channels:
            for metadata, value in sent:
                await loop.sock_sendto(self._socket, metadata, channel)
                await loop.sock_sendto(self._socket, value, channel)
        self.last = {"time": time.time(), "metrics": len(sent), "problem": ""}
        return len(sent)

    async def _hosts(self) -> frozenset[str]:
        try:
            process = await asyncio.create_subprocess_exec(
                *shlex.split(self.gstat),
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
            )
        except OSError as err:
            raise FairpoolError(f"GANGLIA_GSTAT_COMMAND {self.gstat!r}: {err}") from None
        try:
            out, _ = await asyncio.wait_for(process.communicate(), 30)
        except TimeoutError:
            process.kill()
            await process.wait()
            raise FairpoolError(
                f"GANGLIA_GSTAT_COMMAND {self.gstat!r}: no answer in 30 s"
            ) from None
        if process.returncode != 0:
            raise FairpoolError(f"GANGLIA_GSTAT_COMMAND {self.gstat!r} failed")
        return monitored_hosts(out.decode(errors="replace"))

    async def close(self) -> None:
        if self._next is not None:
            self._next.cancel()
        for task in list(self._tasks):
            task.cancel()
        self._socket.close()


def gangliad_router(gangliad: Gangliad) -> APIRouter:
    api = APIRouter(tags=["gangliad"])

    @api.get("/status", summary="The last publication to Ganglia")
    async def status() -> dict[str, Any]:
        return {
            "channels": [f"{host}:{port}" for host, port in gangliad.channels],
            "interval": gangliad.interval,
            "all_hosts": gangliad.all_hosts,
            "last": gangliad.last,
        }

    @api.post("/publish", summary="Publish now")
    async def publish() -> dict[str, int]:
        return {"metrics": await gangliad.publish()}

    return api
