"""The negotiator's HTTP API: its last cycles (the matches and the reasons jobs stayed
idle), a cycle on request, the accountant for ``fairpool userprio``, and the configuration
it runs by (``condor_config_val -negotiator -dump``; for ``fairpool simulate
--from-pool``)."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter

from .errors import BadRequest
from .negotiator import Negotiator

__all__ = ["negotiator_router"]

# knobs that name or hold secrets are left out of the configuration the API gives
_SECRET = re.compile(r"^(SEC_|AUTH_)|PASSWORD|TOKEN|DATABASE_URL|_KEY(_|$)|CERT", re.IGNORECASE)


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

    @api.get("/autocluster-attrs", summary="The job attributes its cycles tell apart")
    async def autocluster_attrs() -> dict[str, list[str]]:
        """What a schedd groups idle jobs by before the first cycle asks for them."""
        return {"AutoClusterAttrs": list(await negotiator.significant())}

    @api.post("/cycle", summary="Run a cycle now and answer with what it decided")
    async def cycle() -> dict[str, Any]:
        result = await negotiator.cycle()
        return {"cycle": negotiator.cycles[-1] if result is not None else None}

    @api.get("/config", summary="The knobs the negotiator runs by, expanded (no secrets)")
    async def config() -> dict[str, Any]:
        knobs = negotiator.ctx.config.items()
        return {"knobs": [[name, value] for name, value in knobs if not _SECRET.search(name)]}

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
