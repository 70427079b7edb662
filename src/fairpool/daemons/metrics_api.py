"""``/metrics``: the pool's figures for Prometheus, from condor_gangliad's metric
definitions (monitor/) evaluated over the collector's ads at each scrape.

The definitions are read from ``GANGLIAD_METRICS_CONFIG_DIR`` (fairpool's default set
when it is unset) when the process starts and at each reconfig; a bad file stops the
start with one error naming it. The ads come straight from the collector's core when it
runs in this process, else from its API (``COLLECTOR_HOST``). A scraper that accepts
OpenMetrics gets OpenMetrics, the others Prometheus text.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from ..classad import ClassAd
from ..classad.jsonads import ad_from_json
from ..monitor.definitions import load_definitions
from ..monitor.evaluation import evaluate_metrics, metric_settings
from ..monitor.exposition import exposition
from ..monitor.samples import Sample
from .context import Context
from .errors import ApiError, error_body, status_of

__all__ = ["PoolMetrics"]


class PoolMetrics:
    """The metric definitions of this process and their evaluation."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.reconfig()

    def reconfig(self) -> None:
        config = self.ctx.config
        folder = (config.get("GANGLIAD_METRICS_CONFIG_DIR") or "").strip()
        self.definitions = load_definitions(Path(folder) if folder else None)
        self.settings = metric_settings(config, self.ctx.host)

    async def ads(self) -> list[ClassAd]:
        local = self.ctx.local.get("collector")
        if local is not None:
            return local.parsed_ads()  # type: ignore[attr-defined]
        found = (await self.ctx.collectors.get("/ads", type="Any"))["ads"]
        return [ad_from_json(obj, "a collector ad") for obj in found]

    async def samples(self) -> list[Sample]:
        """The metrics' values now (also what the gangliad daemon publishes), evaluated
        in a worker thread so that the daemons of this process keep answering (the
        collector replaces an ad on update, never changes one in place)."""
        ads = await self.ads()
        now = self.ctx.env.now
        return await asyncio.to_thread(evaluate_metrics, self.definitions, ads, self.settings, now)

    async def text(self, openmetrics: bool) -> tuple[bytes, str]:
        return exposition(await self.samples(), openmetrics)

    def router(self) -> APIRouter:
        api = APIRouter(tags=["metrics"])

        @api.get("/metrics", summary="The pool's metrics (Prometheus text or OpenMetrics)")
        async def metrics(request: Request) -> Response:
            wanted = request.headers.get("accept", "")
            try:
                body, kind = await self.text("application/openmetrics-text" in wanted)
            except ApiError as err:  # the collector cannot be reached
                return JSONResponse(error_body(err), status_code=status_of(err)[0])
            return Response(body, media_type=kind)

        return api
