"""The schedd's HTTP API: submit, query, act on and edit jobs, the history, and what the
negotiator and the startds say to it. Requests are JSON; ads are JSON ads
(classad/jsonads.py); the caller is who the security gate found (a token's identity, or
the local user at the other end: security/middleware.py)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from ..classad import Expr
from ..classad.jsonads import ad_to_json
from ..errors import ClassAdSyntaxError
from ..security.middleware import caller_of
from .errors import BadRequest, Forbidden, NotFound
from .schedd import Schedd

__all__ = ["schedd_router"]


def _constraint(text: object, where: str = "constraint") -> Expr | None:
    if text is None or text == "":
        return None
    if not isinstance(text, str):
        raise BadRequest(f"{where}: expected a ClassAd expression")
    try:
        return Expr(text)
    except ClassAdSyntaxError as err:
        raise BadRequest(f"{where}: {err.message}") from None


def _projection(names: object) -> set[str] | None:
    if names is None or names == "":
        return None
    if isinstance(names, str):
        names = names.replace(",", " ").split()
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise BadRequest("projection: expected attribute names")
    return {n.lower() for n in names} or None


def _ids(body: dict[str, Any]) -> list[str] | None:
    ids = body.get("jobs")
    if ids is None:
        return None
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise BadRequest("jobs: expected a list of job ids (cluster or cluster.proc)")
    return ids


def schedd_router(schedd: Schedd) -> APIRouter:
    api = APIRouter(tags=["schedd"])

    @api.get("/submit-info", summary="The next cluster number and who the caller is")
    async def submit_info(request: Request) -> dict[str, Any]:
        return schedd.submit_info(caller_of(request))

    @api.post("/submit", summary="Queue a whole submission (clusters and their jobs)")
    async def submit(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        first = body.get("first_cluster")
        if type(first) is not int:
            raise BadRequest("first_cluster: expected the number submit-info gave")
        clusters = body.get("clusters")
        if not isinstance(clusters, list):
            raise BadRequest("clusters: expected a list of clusters")
        return schedd.submit(caller_of(request), first, clusters)

    @api.get("/jobs", summary="The jobs in the queue (condor_q)")
    async def jobs(constraint: str | None = None, projection: str | None = None) -> dict:
        wanted = _projection(projection)
        found = schedd.jobs(_constraint(constraint))
        return {
            "schedd": schedd.schedd_name,
            "address": f"<{schedd.ctx.url.split('://')[-1]}>",
            "ads": [ad_to_json(job, wanted) for job in found],
        }

    @api.get("/jobs/{job}", summary="One job, and its autocluster while it is idle")
    async def job(job: str) -> dict[str, Any]:
        ad = schedd.require(job)
        return {
            "ad": ad_to_json(ad),
            "autocluster": schedd.index.autocluster_of(job),
            "submitter": schedd.queue.submitter[job],
            "schedd": schedd.schedd_name,
            "schedd_address": schedd.url,
        }

    @api.post("/act", summary="Remove, hold or release jobs (condor_rm, condor_hold, ...)")
    async def act(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        action = body.get("action")
        if action not in ("remove", "hold", "release"):
            raise BadRequest("action: expected remove, hold or release")
        owner = body.get("owner")
        if owner is not None and not isinstance(owner, str):
            raise BadRequest("owner: expected a user name")
        reason = body.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise BadRequest("reason: expected text")
        names, missing = schedd.select(_ids(body), owner, _constraint(body.get("constraint")))
        caller = caller_of(request)
        if names and not any(caller.owns(schedd.queue.jobs[n].get("Owner")) for n in names):
            raise Forbidden(f"{caller.name or 'an unauthenticated caller'} owns none of the jobs")
        results = await schedd.act(caller, action, names, reason)
        results.update({name: "not found" for name in missing})
        return {"results": results}

    @api.post("/edit", summary="Set an attribute of jobs (condor_qedit)")
    async def edit(request: Request, body: dict[str, Any]) -> dict[str, Any]:
        attribute, value = body.get("attribute"), body.get("value")
        if not isinstance(attribute, str) or not attribute:
            raise BadRequest("attribute: expected an attribute name")
        if not isinstance(value, str):
            raise BadRequest("value: expected a ClassAd expression")
        owner = body.get("owner")
        names, missing = schedd.select(_ids(body), owner, _constraint(body.get("constraint")))
        if missing:
            raise NotFound(f"no job {missing[0]} in the queue")
        return {"edited": schedd.edit(caller_of(request), names, attribute, value)}

    @api.get("/history", summary="Jobs that left the queue, newest first (condor_history)")
    async def history(
        constraint: str | None = None,
        projection: str | None = None,
        limit: int | None = None,
        since: str | None = None,
    ) -> dict[str, Any]:
        if limit is not None and limit < 0:
            raise BadRequest("limit: expected a number of 0 or more")
        wanted = _projection(projection)
        found = schedd.history(_constraint(constraint), limit, _constraint(since, "since"))
        return {"ads": [ad_to_json(ad, wanted) for ad in found]}

    @api.post("/negotiate", summary="Resource requests, for the negotiator")
    async def negotiate(body: dict[str, Any]) -> dict[str, Any]:
        significant = body.get("significant")
        if not isinstance(significant, list) or not all(isinstance(s, str) for s in significant):
            raise BadRequest("significant: expected a list of attribute names")
        submitters = body.get("submitters")
        if submitters is not None and not (
            isinstance(submitters, list) and all(isinstance(s, str) for s in submitters)
        ):
            raise BadRequest("submitters: expected a list of submitter names")
        negotiator = body.get("negotiator", "")
        if not isinstance(negotiator, str):
            raise BadRequest("negotiator: expected the negotiator's name")
        chosen = None if submitters is None else set(submitters)
        return {
            "schedd": schedd.schedd_name,
            "submitters": schedd.requests(significant, chosen, negotiator),
        }

    @api.post("/matches", summary="The negotiator's matches for this schedd's jobs")
    async def matches(body: dict[str, Any]) -> dict[str, int]:
        found = body.get("matches")
        if not isinstance(found, list):
            raise BadRequest("matches: expected a list")
        negotiator = body.get("negotiator", "")
        if not isinstance(negotiator, str):
            raise BadRequest("negotiator: expected the negotiator's name")
        return {"taken": schedd.take_matches(found, negotiator)}

    @api.post("/events", summary="A startd's news of this schedd's jobs")
    async def events(body: dict[str, Any]) -> dict[str, int]:
        found = body.get("events")
        if not isinstance(found, list):
            raise BadRequest("events: expected a list")
        await schedd.heard(found)
        return {"heard": len(found)}

    @api.post("/reschedule", summary="Advertise now and ask for a negotiation cycle")
    async def reschedule() -> dict[str, bool]:
        await schedd.reschedule()
        return {"ok": True}

    return api
