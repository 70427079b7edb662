"""The web dashboard at ``/dashboard``: the pool now, fair share, the negotiator's last
cycles and a page per job, read only through the daemons' APIs.

The collector (``COLLECTOR_HOST``) names the schedds and the negotiator (their
``ApiAddress``); each page's data comes from their APIs, is turned into figures by
figures.py and rendered by pages.py. ``/dashboard/data/...`` answers the same data as
JSON, which the page fetches every two seconds to update itself. The job page's "why
is it idle" is condor_q -better-analyze's analysis (cli/listings/analysis.py) over the
job, the slots and the negotiator's own reasons from its kept cycles. The simulations
page shows the outputs of ``fairpool simulate --out DIR`` for each directory
``DASHBOARD_SIMULATIONS`` names. Chart.js is vendored in static/ (no build step, no
network).
"""

from __future__ import annotations

import asyncio
import csv
import json
import time
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from ..classad.jsonads import ad_from_json
from ..cli.listings.analysis import better_analyze, last_word
from ..daemons.client import Api
from ..daemons.context import Context
from ..daemons.errors import ApiError, NotFound, error_body, status_of
from .figures import (
    Page,
    fairshare_page,
    job_page,
    negotiator_page,
    pool_page,
    simulation_page,
)
from .pages import render

__all__ = ["ROOT", "mount_dashboard"]

ROOT = "/dashboard"
STATIC = Path(__file__).parent / "static"
_TITLES = {"pool": "The pool now", "fairshare": "Fair share", "negotiator": "Negotiator"}


class _Reads:
    """The API clients of one request, closed at its end."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.apis: dict[str, Api] = {}

    async def __aenter__(self) -> _Reads:
        return self

    async def __aexit__(self, *exc: object) -> None:
        for api in self.apis.values():
            await api.close()

    def api(self, url: str) -> Api:
        if url not in self.apis:
            self.apis[url] = Api(url)
        return self.apis[url]

    async def ads(self, kind: str, projection: str | None = None) -> list[dict[str, Any]]:
        answer = await self.ctx.collectors.get("/ads", type=kind, projection=projection)
        return answer["ads"]

    async def addresses(self, kind: str) -> list[str]:
        ads = await self.ads(kind, "ApiAddress")
        return sorted({a["ApiAddress"] for a in ads if isinstance(a.get("ApiAddress"), str)})

    async def negotiator(self, path: str, **params: Any) -> Any:
        """The pool's negotiator's answer (the first one the collector names), or None
        when no negotiator runs."""
        found = await self.addresses("Negotiator")
        return await self.api(found[0]).get(path, **params) if found else None

    async def jobs(self) -> list[dict[str, Any]]:
        found = []
        for schedd in await self.addresses("Scheduler"):
            answer = await self.api(schedd).get("/jobs", projection="JobStatus")
            found.extend(answer["ads"])
        return found

    async def cycles(self, last: int = 1000) -> list[dict[str, Any]]:
        answer = await self.negotiator("/cycles", last=last)
        return answer["cycles"] if answer else []


async def _page(reads: _Reads, name: str) -> Page:
    if name == "pool":
        slots = await reads.ads("Machine", "Name,State,Cpus")
        accountant = await reads.negotiator("/accountant") or {}
        cycles = await reads.cycles(last=1)
        groups = sorted(set(accountant.get("groups") or {}) | _cycle_groups(cycles))
        submitters = await reads.ads("Submitter")
        return pool_page(slots, await reads.jobs(), submitters, groups)
    if name == "fairshare":
        return fairshare_page(await reads.negotiator("/accountant") or {}, await reads.cycles())
    return negotiator_page(await reads.cycles())


def _cycle_groups(cycles: list[dict[str, Any]]) -> set[str]:
    return {g for cycle in cycles[-1:] for g in cycle.get("groups", {}) if g != "<none>"}


async def _job(reads: _Reads, job_id: str) -> Page:
    cluster, _, proc = job_id.partition(".")
    if not (cluster.isdigit() and proc.isdigit()):
        raise NotFound(f"{job_id}: expected a job id such as 12.0")
    for schedd in await reads.addresses("Scheduler"):
        api = reads.api(schedd)
        try:
            answer = await api.get(f"/jobs/{job_id}")
        except NotFound:
            constraint = f"ClusterId == {int(cluster)} && ProcId == {int(proc)}"
            gone = (await api.get("/history", constraint=constraint, limit=1))["ads"]
            if gone:
                left = "It left the queue: the negotiator has nothing more to say about it."
                return job_page(job_id, gone[0], schedd, left)
            continue
        job = ad_from_json(answer["ad"], f"job {job_id}")
        slots = [ad_from_json(a, "a slot ad") for a in await reads.ads("Machine")]
        cycles = await reads.cycles()
        word = last_word(cycles, schedd, job_id, answer.get("autocluster"))
        analysis = better_analyze(
            job, slots, now=time.time(), word=word, submitter=answer.get("submitter", "")
        )
        return job_page(job_id, answer["ad"], str(answer.get("schedd") or schedd), analysis)
    return job_page(job_id, None, "", "")


def _simulations(ctx: Context) -> list[Path]:
    """DASHBOARD_SIMULATIONS: the simulation output directories the dashboard shows."""
    return [Path(p).expanduser() for p in ctx.config.get_list("DASHBOARD_SIMULATIONS")]


def _simulation(ctx: Context, number: int) -> Page:
    """The n-th simulation's page, from its summary.json and timeseries.csv."""
    folders = _simulations(ctx)
    if not 0 <= number < len(folders):
        raise NotFound(f"no simulation {number}: DASHBOARD_SIMULATIONS names {len(folders)}")
    folder = folders[number]
    try:
        summary = json.loads((folder / "summary.json").read_text())
        with open(folder / "timeseries.csv", newline="") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, ValueError, csv.Error) as err:
        raise NotFound(f"{folder}: not the outputs of fairpool simulate ({err})") from None
    return simulation_page(summary, rows)


def _simulation_list(ctx: Context) -> Page:
    rows = [[str(n), str(folder)] for n, folder in enumerate(_simulations(ctx))]
    return {
        "figures": {},
        "tables": {"simulations": _table_of(["Simulation", "Directory"], rows)},
        "charts": {},
    }


def _table_of(columns: list[str], rows: list[list[str]]) -> dict[str, Any]:
    return {"columns": columns, "rows": rows, "links": {"0": "simulation/{}"}}


def _refused(err: ApiError, html: bool) -> HTMLResponse | JSONResponse:
    status = status_of(err)[0]
    if html:
        return HTMLResponse(f"<!doctype html><title>fairpool</title><p>{err}</p>", status)
    return JSONResponse(error_body(err), status)


def mount_dashboard(app: FastAPI, ctx: Context) -> None:
    """Serve the dashboard (its pages, their data and its static files) from ``app``."""
    app.mount(f"{ROOT}/static", StaticFiles(directory=STATIC), name="dashboard-static")
    api = APIRouter(prefix=ROOT, tags=["dashboard"])

    @api.get("", include_in_schema=False)
    async def home() -> RedirectResponse:
        return RedirectResponse(f"{ROOT}/")

    async def page(name: str, html: bool) -> Any:
        try:
            async with _Reads(ctx) as reads:
                data = await _page(reads, name)
        except ApiError as err:
            return _refused(err, html)
        if not html:
            return data
        return HTMLResponse(render(name, _TITLES[name], data, f"{ROOT}/data/{name}", ROOT))

    @api.get("/", response_class=HTMLResponse, summary="The pool now")
    async def pool() -> Any:
        return await page("pool", True)

    @api.get("/fairshare", response_class=HTMLResponse, summary="Fair share")
    async def fairshare() -> Any:
        return await page("fairshare", True)

    @api.get("/negotiator", response_class=HTMLResponse, summary="The negotiator's cycles")
    async def negotiator() -> Any:
        return await page("negotiator", True)

    @api.get("/data/{name}", summary="A page's figures, as its view fetches them")
    async def data(name: str) -> Any:
        if name == "simulations":
            return _simulation_list(ctx)
        if name not in _TITLES:
            return _refused(NotFound(f"no dashboard page {name}"), False)
        return await page(name, False)

    async def job(job_id: str, html: bool) -> Any:
        try:
            async with _Reads(ctx) as reads:
                found = await _job(reads, job_id)
        except ApiError as err:
            return _refused(err, html)
        if not html:
            return found
        source = f"{ROOT}/data/job/{job_id}"
        return HTMLResponse(render("job", f"Job {job_id}", found, source, ROOT))

    @api.get("/job/{job_id}", response_class=HTMLResponse, summary="One job; why it is idle")
    async def job_html(job_id: str) -> Any:
        return await job(job_id, True)

    @api.get("/data/job/{job_id}", summary="One job's figures, as its page fetches them")
    async def job_data(job_id: str) -> Any:
        return await job(job_id, False)

    @api.get("/simulations", response_class=HTMLResponse, summary="Simulation directories")
    async def simulations() -> Any:
        page = _simulation_list(ctx)
        source = f"{ROOT}/data/simulations"
        return HTMLResponse(render("simulations", "Simulations", page, source, ROOT))

    @api.get("/simulation/{number}", response_class=HTMLResponse, summary="A simulation's outputs")
    async def simulation(number: int) -> Any:
        try:
            page = await asyncio.to_thread(_simulation, ctx, number)
        except ApiError as err:
            return _refused(err, True)
        source = f"{ROOT}/data/simulation/{number}"
        title = f"Simulation {number}: {page['title']}"
        return HTMLResponse(render("simulation", title, page, source, ROOT))

    @api.get("/data/simulation/{number}", summary="A simulation's figures")
    async def simulation_data(number: int) -> Any:
        try:
            return await asyncio.to_thread(_simulation, ctx, number)
        except ApiError as err:
            return _refused(err, False)

    app.include_router(api)
