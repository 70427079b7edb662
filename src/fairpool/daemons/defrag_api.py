"""The defrag daemon's HTTP API: its last poll, and a poll on request."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from ..classad.jsonads import ad_to_json
from .defrag import DefragDaemon

__all__ = ["defrag_router"]


def defrag_router(defrag: DefragDaemon) -> APIRouter:
    api = APIRouter(tags=["defrag"])

    @api.get("/status", summary="The last poll (what it saw and did) and the Defrag ad")
    async def status() -> dict[str, Any]:
        return {"last": defrag.last, "ad": ad_to_json(defrag.ad())}

    @api.post("/poll", summary="Poll now and answer with what the poll did")
    async def poll() -> dict[str, Any]:
        return await defrag.poll()

    return api
