"""The schedd's CEDAR commands (probe)."""

from __future__ import annotations

from collections import Counter

from ..classad import ClassAd
from ..daemons.schedd import Schedd
from . import commands
from .collector import query_terms
from .qmgmt import queue_management
from .server import Exchange, Handler
from .wire import Writer

__all__ = ["schedd_handlers"]

_ACTIONS = {1: "hold", 2: "release", 3: "remove", 4: "remove"}
_REASONS = ("HoldReason", "ReleaseReason", "RemoveReason", "Reason")
# the order of the wheel's result_total_N attributes, as fairpool's act names results
_RESULTS = ("error", "ok", "not found", "bad status", "already done", "permission denied")


def schedd_handlers(schedd: Schedd) -> dict[int, Handler]:
    async def query(exchange: Exchange) -> None:
        message = await exchange.receive()
        ad = message.ad(what="the query ad")
        schedd.log.info("query %s", dict(ad.items()))
        constraint, projection, limit = query_terms(ad)
        found = schedd.jobs(constraint)
        wanted = {n.lower() for n in projection} if projection else None
        for job in found[:limit] if limit else found:
            await exchange.send(Writer().ad(job, projection=wanted))
        await exchange.send(Writer().ad(ClassAd({"Owner": 0})))

    async def act(exchange: Exchange) -> None:
        caller = await exchange.authenticate()
        ad = (await exchange.receive()).ad(what="the action ad")
        schedd.log.info("act %s", dict(ad.items()))
        action = _ACTIONS.get(ad.get("JobAction"))
        constraint = ad.lookup("ActionConstraint") if "ActionConstraint" in ad else None
        ids = ad.get("ActionIds")
        listed = ids.replace(" ", "").split(",") if isinstance(ids, str) else None
        names, missing = schedd.select(listed, None, constraint)
        reason = next((ad.get(n) for n in _REASONS if isinstance(ad.get(n), str)), None)
        results = await schedd.act(caller, action, names, reason)
        results.update(dict.fromkeys(missing, "not found"))
        counts = Counter(results.values())
        reply = ClassAd({f"result_total_{i}": counts[r] for i, r in enumerate(_RESULTS)})
        reply["TotalJobAds"] = len(results)
        reply["ActionResult"] = 1 if counts["ok"] == len(results) else 0
        await exchange.send(Writer().ad(reply))
        confirm = (await exchange.receive()).int("the confirmation")
        schedd.log.info("confirm %d", confirm)
        await exchange.send(Writer().int(0))

    async def qmgmt(exchange: Exchange) -> None:
        await queue_management(schedd, exchange)

    async def history(exchange: Exchange) -> None:
        ad = (await exchange.receive()).ad(what="the history query")
        constraint, projection, _ = query_terms(ad)
        limit = ad.get("NumJobMatches")
        found = schedd.history(constraint, limit if type(limit) is int and limit >= 0 else None)
        wanted = {n.lower() for n in projection} if projection else None
        reply = Writer()
        for job in found:
            reply.ad(job, projection=wanted)
        end = ClassAd({"Owner": 0, "NumJobMatches": len(found), "MalformedAds": 0})
        await exchange.send(reply.ad(end))

    async def probe(exchange: Exchange) -> None:
        if exchange.command in (478, 1112):
            caller = await exchange.authenticate()
            schedd.log.info("caller %s", caller)
        for _ in range(10):
            message = await exchange.receive()
            schedd.log.info("probe %d: %r", exchange.command, message.data[:300])

    return {
        commands.QUERY_JOB_ADS: query,
        commands.ACT_ON_JOBS: act,
        commands.QMGMT_WRITE_CMD: qmgmt,
        commands.QUERY_SCHEDD_HISTORY: history,
    }
