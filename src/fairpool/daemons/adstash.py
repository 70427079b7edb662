"""condor_adstash as a daemon of the master: ``use FEATURE : adstash`` adds ADSTASH to
DAEMON_LIST, as in HTCondor, and every ADSTASH_SAMPLE_INTERVAL the schedds' histories
are sent from the checkpoint on (adstash/run.py), as ``fairpool adstash`` sends them.

The knobs are condor_adstash's: ``ADSTASH_READ_SCHEDDS`` (``*``: every schedd the
collector knows; else their names), ``ADSTASH_CHECKPOINT_FILE``, ``ADSTASH_INTERFACE``
(``elasticsearch``, or ``jsonfile``: JSON lines in ``ADSTASH_JSON_DIR``/adstash.jsonl),
``ADSTASH_SE_HOST`` with ``ADSTASH_SE_USE_HTTPS``, ``ADSTASH_SE_INDEX_NAME`` (the dated
indices' prefix) and ``ADSTASH_SE_BUNCH_SIZE``. A run goes in a worker thread (the
history is read through the schedds' APIs, which this process may be serving); a run
that fails is logged and the next one starts from the checkpoint.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from fastapi import APIRouter

from ..adstash import Checkpoint, ElasticTarget, JsonLinesTarget, stash
from ..errors import ConfigError, FairpoolError
from .client import SyncApi
from .context import Context, knob_int

__all__ = ["AdstashDaemon", "adstash_router"]

INTERFACES = ("elasticsearch", "jsonfile")


class AdstashDaemon:
    """The daemon: a run every interval, one at a time, and the last outcome."""

    name = "adstash"

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.log = ctx.logger(self.name)
        self.last: dict[str, Any] = {}
        self._next: Any = None
        self._tasks: set[asyncio.Task] = set()
        self._running: asyncio.Lock | None = None
        self.reconfig()
        self._plan(2.0)  # the first soon after the daemons' first ads

    def reconfig(self) -> None:
        config = self.ctx.config
        self.interval = knob_int(config, "ADSTASH_SAMPLE_INTERVAL", 1200, minimum=1)
        self.batch = knob_int(config, "ADSTASH_SE_BUNCH_SIZE", 250, minimum=1)
        log = self.ctx.paths.log
        where = _text(config, "ADSTASH_CHECKPOINT_FILE", "")
        self.checkpoint = Path(where) if where else log / "adstash_checkpoint.json"
        self.interface = _text(config, "ADSTASH_INTERFACE", "elasticsearch").lower()
        if self.interface not in INTERFACES:
            raise ConfigError(
                f"ADSTASH_INTERFACE = {self.interface!r}: expected one of {', '.join(INTERFACES)}"
            )
        self.json_dir = Path(_text(config, "ADSTASH_JSON_DIR", "") or log)
        scheme = "https" if config.get_bool("ADSTASH_SE_USE_HTTPS", False) else "http"
        host = _text(config, "ADSTASH_SE_HOST", "") or f"{self.ctx.host}:9200"
        self.se_url = host if "://" in host else f"{scheme}://{host}"
        self.prefix = _text(config, "ADSTASH_SE_INDEX_NAME", "htcondor")
        wanted = _text(config, "ADSTASH_READ_SCHEDDS", "*")
        self.schedds = None if wanted == "*" else {n.strip() for n in wanted.split(",")}

    def _plan(self, delay: float) -> None:
        self._next = self.ctx.env.at(self.ctx.env.now + delay, self._due)

    def _due(self) -> None:
        task = asyncio.get_running_loop().create_task(self.run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        self._plan(self.interval)

    async def run(self) -> dict[str, Any]:
        """One run (none while another goes on); what it sent."""
        if self._running is None:
            self._running = asyncio.Lock()
        async with self._running:
            try:
                found = await self.ctx.collectors.get(
                    "/ads", type="Scheduler", projection="Name,ApiAddress"
                )
                sent = await asyncio.to_thread(self._run, found["ads"])
                self.last = {"time": time.time(), "sent": sent, "problem": ""}
            except FairpoolError as err:
                self.log.info("adstash: %s", err)
                self.last = {"time": time.time(), "sent": {}, "problem": str(err)}
        return self.last

    def _run(self, ads: list[dict[str, Any]]) -> dict[str, int]:
        schedds = {
            str(ad["Name"]): SyncApi(ad["ApiAddress"])
            for ad in ads
            if isinstance(ad.get("ApiAddress"), str)
            and (self.schedds is None or ad.get("Name") in self.schedds)
        }
        target: Any
        if self.interface == "jsonfile":
            self.json_dir.mkdir(parents=True, exist_ok=True)
            target = JsonLinesTarget(self.json_dir / "adstash.jsonl")
        else:
            target = ElasticTarget(self.se_url, self.checkpoint.with_name("adstash_rejects.jsonl"))
        try:
            report = stash(
                schedds, target, Checkpoint(self.checkpoint), prefix=self.prefix, batch=self.batch
            )
        finally:
            for api in schedds.values():
                api.close()
        if report.total:
            self.log.info("sent %d job(s): %s", report.total, report.sent)
        return report.sent

    async def close(self) -> None:
        if self._next is not None:
            self._next.cancel()
        for task in list(self._tasks):
            task.cancel()


def _text(config: Any, name: str, default: str) -> str:
    return (config.get(name) or "").strip() or default


def adstash_router(daemon: AdstashDaemon) -> APIRouter:
    api = APIRouter(tags=["adstash"])

    @api.get("/status", summary="The last run")
    async def status() -> dict[str, Any]:
        return {"interval": daemon.interval, "interface": daemon.interface, "last": daemon.last}

    @api.post("/run", summary="A run now")
    async def run() -> dict[str, Any]:
        return await daemon.run()

    return api
