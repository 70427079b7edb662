"""The negotiator's HTTP API: its last cycles (the matches and the reasons jobs stayed
idle), a cycle on request, and the accountant for ``fairpool userprio``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from .errors import BadRequest
from .negotiator import Negotiator

__all__ = ["negotiator_router"]


def negotiator_router(negotiator: Negotiator) -> APIRouter:
    api = APIRouter(tags=["negotiator"])

    @api.get("/cycles", summary="The last cycles: matches, rejections (why jobs stayed idle)")
    async def cycles(last: int = 1) -> dict[str, Any]:
        if last < 1:
            raise BadRequest("last: expected a number of cycles of 1 or more")
        return {"cycles": list(negotiator.cycles)[-last:]}

    @api.post("/reschedule", summary="Run a cycle soon (condor_reschedule)")
    async def reschedule() -> dict[str, bool]:
        negotiator.reschedule()
        return {"ok": True}

    @api.post("/cycle", summary="Run a cycle now and answer with what it decided")
    async def cycle() -> dict[str, Any]:
        result = await negotiator.cycle()
        return {"cycle": negotiator.cycles[-1] if result is not None else None}

    @api.get("/accountant", summary="Every accountant record (condor_userprio)")
    async def accountant() -> dict[str, Any]:
        return negotiator.accountant_state()

    @api.post("/accountant", summary="Records edited from a copy of a given version")
    async def edit(body: dict[str, Any]) -> dict[str, Any]:
        version = body.get("version")
        changed, deleted = body.get("changed", []), body.get("deleted", [])
        if type(version) is not int:
            raise BadRequest("version: expected the version the records were read at")
        if not isinstance(changed, list) or not isinstance(deleted, list):
            raise BadRequest("changed and deleted: expected lists")
        return await negotiator.edit_accountant(version, changed, deleted)

    return api
