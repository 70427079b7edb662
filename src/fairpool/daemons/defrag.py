"""The defrag daemon: condor_defrag on the live pool (seed 002, "Defragmenting Dynamic Slots").

Every DEFRAG_INTERVAL it takes the collector's slot ads and runs one poll of
``fairpool.defrag.Defrag`` (the policy the simulator runs too): it cancels the draining of
machines for which DEFRAG_CANCEL_REQUIREMENTS (by default DEFRAG_WHOLE_MACHINE_EXPR) now
holds, and, within DEFRAG_DRAINING_MACHINES_PER_HOUR, DEFRAG_MAX_CONCURRENT_DRAINING and
DEFRAG_MAX_WHOLE_MACHINES, asks the best machines by DEFRAG_RANK to drain (the
DEFRAG_SCHEDULE, graceful by default, with DEFRAG_DRAINING_START_EXPR as their START,
resuming on completion) through their startds' APIs. Its Defrag ad, with the pool's
average draining badput and unclaimed time, goes to the collector after each poll and
every DEFRAG_UPDATE_INTERVAL.

The poll's counters and its last poll time (from which the hourly and daily quotas count)
are written to DEFRAG_STATE_FILE after each poll and read when the daemon starts, so a
restart neither forgets its statistics nor drains an hour's quota twice.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from ..classad import ClassAd
from ..classad.jsonads import ad_from_json, ad_to_json
from ..cli.outputs import write_file
from ..defrag import Defrag, DefragConfig, DrainRequest, machine_of
from ..errors import FairpoolError
from .client import SyncApi
from .context import Context
from .errors import Unavailable

__all__ = ["DefragDaemon"]

STATE_NAME = "defrag_state"


class _StartdRequests:
    """The poll's transport: drain and cancel requests to the startds' APIs, sent from the
    worker thread the poll runs in."""

    def __init__(self, startds: dict[str, str], log: logging.Logger) -> None:
        self.startds = startds
        self.log = log

    def _post(self, machine: str, path: str, body: dict[str, Any]) -> bool:
        url = self.startds.get(machine)
        if url is None:
            self.log.info("%s: no startd address in its ads", machine)
            return False
        api = SyncApi(url)
        try:
            api.post(path, body)
        except FairpoolError as err:
            self.log.info("%s %s refused: %s", machine, path, err)
            return False
        finally:
            api.close()
        return True

    def drain(self, machine: str, slot: str, request: DrainRequest) -> bool:
        body = {
            "how": request.how,
            "check": str(request.check),
            "start": str(request.start),
            "reason": request.reason,
            "resume": request.resume_on_completion,
        }
        drained = self._post(machine, "/drain", body)
        if drained:
            self.log.info("draining %s (%s)", machine, request.how)
        return drained

    def cancel(self, machine: str) -> None:
        if self._post(machine, "/cancel-drain", {}):
            self.log.info("cancelled draining of %s: it is whole", machine)


class DefragDaemon:
    """condor_defrag."""

    name = "defrag"

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.log = ctx.logger(self.name)
        self.last: dict[str, Any] = {}
        self._tasks: set[asyncio.Task] = set()
        self.reconfig()
        ctx.env.process(self._polling())
        ctx.env.process(self._updating())

    def reconfig(self) -> None:
        config = DefragConfig.from_knobs(self.ctx.config)
        old = getattr(self, "defrag", None)
        self.defrag = Defrag(config)
        text = (self.ctx.config.get("DEFRAG_STATE_FILE") or "").strip()
        self.state_file = Path(text) if text else self.ctx.paths.spool / STATE_NAME
        if old is not None:
            self.defrag.restore(old.state())
        else:
            self._restore()

    def spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- polls --------------------------------------------------------------------------
    def _polling(self):
        while True:
            yield float(self.defrag.config.interval)
            self.spawn(self.poll())

    def _updating(self):
        while True:
            yield float(self.defrag.config.update_interval)
            self.spawn(self.advertise())

    async def poll(self) -> dict[str, Any]:
        """One poll over the collector's slot ads; what it saw and did."""
        now = int(self.ctx.env.now)
        try:
            found = (await self.ctx.collectors.get("/ads", type="Machine"))["ads"]
        except Unavailable as err:
            self.log.info("no poll: %s", err)
            return self.last
        ads = [ad_from_json(obj, "a slot ad") for obj in found]
        startds = {
            machine_of(ad): ad["ApiAddress"] for ad in ads if isinstance(ad.get("ApiAddress"), str)
        }
        transport = _StartdRequests(startds, self.log)
        result = await asyncio.to_thread(self.defrag.poll, now, ads, transport)
        self._save()
        self.last = {
            "time": now,
            "quota": result.quota,
            "draining": sorted(result.draining),
            "whole": sorted(result.whole),
            "drained": result.drained,
            "cancelled": result.cancelled,
            "failed": result.failed,
            "reason": result.reason,
        }
        if result.reason:
            self.log.info("poll: %s", result.reason)
        await self.advertise()
        return self.last

    # -- DEFRAG_STATE_FILE --------------------------------------------------------------
    def _save(self) -> None:
        try:
            write_file(self.state_file, json.dumps(self.defrag.state()) + "\n")
        except OSError as err:
            self.log.info("cannot write %s: %s", self.state_file, err.strerror)

    def _restore(self) -> None:
        try:
            state = json.loads(self.state_file.read_text())
        except FileNotFoundError:
            return
        except (OSError, ValueError) as err:
            self.log.info("%s not read (%s): starting afresh", self.state_file, err)
            return
        if isinstance(state, dict):
            self.defrag.restore(state)

    # -- the collector ------------------------------------------------------------------
    def ad(self) -> ClassAd:
        ad = self.defrag.ad(int(self.ctx.env.now))
        ad["Machine"] = self.ctx.host
        ad["ApiAddress"] = self.ctx.daemon_url(self.name)
        ad["DaemonStartTime"] = int(self.ctx.started)
        return ad

    async def advertise(self) -> None:
        await self.ctx.collectors.update([ad_to_json(self.ad())])

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
