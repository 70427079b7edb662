"""The startd's HTTP API: claims, activations and releases from schedds, drains from
administrators (condor_drain), and its slot ads."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from ..classad.jsonads import ad_from_json
from .errors import BadRequest
from .startd import StartdDaemon

__all__ = ["startd_router"]


def _text(body: dict[str, Any], name: str, required: bool = True) -> str | None:
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value):
        raise BadRequest(f"{name}: expected text")
    return value


def startd_router(startd: StartdDaemon) -> APIRouter:
    api = APIRouter(tags=["startd"])

    @api.post("/claim", summary="A schedd claims a slot it was matched to")
    async def claim(body: dict[str, Any]) -> dict[str, Any]:
        return startd.claim(
            _text(body, "slot") or "",
            _text(body, "claim_id") or "",
            ad_from_json(body.get("request"), "request"),
            bool(body.get("preempting")),
            _text(body, "schedd") or "",
        )

    @api.post("/activate", summary="Start a job under a claim")
    async def activate(body: dict[str, Any]) -> dict[str, Any]:
        job = ad_from_json(body.get("job"), "job")
        return await startd.activate(_text(body, "claim") or "", job)

    @api.post("/release", summary="Give up a claim (its job, if any, is vacated)")
    async def release(body: dict[str, Any]) -> dict[str, Any]:
        return startd.release(_text(body, "claim") or "")

    @api.post("/drain", summary="Drain the machine (condor_drain)")
    async def drain(body: dict[str, Any]) -> dict[str, Any]:
        how = body.get("how", "graceful")
        if how not in ("graceful", "quick", "fast"):
            raise BadRequest("how: expected graceful, quick or fast")
        return startd.drain(
            how,
            _text(body, "start", required=False),
            _text(body, "check", required=False),
            _text(body, "reason", required=False) or "by command",
            bool(body.get("resume")),
        )

    @api.post("/cancel-drain", summary="Stop draining (condor_drain -cancel)")
    async def cancel_drain(body: dict[str, Any]) -> dict[str, Any]:
        return startd.cancel_drain(_text(body, "request_id", required=False))

    @api.get("/slots", summary="The slot ads, as published")
    async def slots() -> dict[str, Any]:
        return {"ads": startd.ads()[0]}

    return api
