"""The schedd's CEDAR commands, each a call of the schedd core the HTTP API calls
(daemons/schedd.py): the queue (QUERY_JOB_ADS), remove/hold/release (ACT_ON_JOBS),
the history (QUERY_SCHEDD_HISTORY), and submit and edit (qmgmt.py).

Observed with the wheel (spec/cedar.md and this listener's log):

* a queue query is answered one message per job (with ``ServerTime`` when the query
  asks for it), then an ad holding ``Owner = 0``;
* a history query (``Requirements``, ``Projection``, ``NumJobMatches`` and, for
  ``since=``, ``Since``: an expression, a job id made ``ClusterID == c && ProcID == p``)
  is answered in one message: every ad, then ``Owner = 0`` with ``NumJobMatches``, the
  number of ads sent (the wheel checks it);
* an action runs the authentication-method exchange, then sends ``JobAction`` (1 hold,
  2 release, 3 remove, 4 remove-x) with ``ActionConstraint`` or ``ActionIds``; the
  answer counts the results as ``result_total_0`` .. ``_5`` (error, success, not
  found, bad status, already done, permission denied) with ``TotalJobAds`` and
  ``ActionResult``; when every job succeeded the client confirms with an integer and
  is answered 0. The wheel sends no reason, so the user log says who acted.
"""

from __future__ import annotations

from collections import Counter

from ..classad import ClassAd
from ..daemons.errors import BadRequest
from ..daemons.schedd import Schedd
from . import commands
from .collector import query_terms
from .qmgmt import queue_management
from .server import Exchange, Handler
from .wire import Writer

__all__ = ["schedd_handlers"]

_ACTIONS = {1: "hold", 2: "release", 3: "remove", 4: "remove"}
_REASONS = ("HoldReason", "ReleaseReason", "RemoveReason", "Reason")
# fairpool's results in the order of the wheel's result_total_N
_RESULTS = ("error", "ok", "not found", "bad status", "already done", "permission denied")


def schedd_handlers(schedd: Schedd) -> dict[int, Handler]:
    async def query(exchange: Exchange) -> None:
        ad = (await exchange.receive()).ad(what="the query ad")
        constraint, projection, limit = query_terms(ad)
        found = schedd.jobs(constraint)
        wanted = {n.lower() for n in projection} if projection else None
        # the time the answer was made, for the client's run times (SendServerTime)
        extra = {"ServerTime": int(schedd.ctx.env.now)} if ad.get("SendServerTime") else None
        for job in found[:limit] if limit else found:
            await exchange.send(Writer().ad(job, projection=wanted, extra=extra))
        await exchange.send(Writer().ad(ClassAd({"Owner": 0})))

    async def history(exchange: Exchange) -> None:
        ad = (await exchange.receive()).ad(what="the history query")
        constraint, projection, _ = query_terms(ad)
        limit = ad.get("NumJobMatches")
        since = ad.lookup("Since") if "Since" in ad else None  # ``since=``, an expression
        matches = limit if type(limit) is int and limit >= 0 else None
        found = schedd.history(constraint, matches, since)
        wanted = {n.lower() for n in projection} if projection else None
        reply = Writer()
        for job in found:
            reply.ad(job, projection=wanted)
        end = ClassAd({"Owner": 0, "NumJobMatches": len(found), "MalformedAds": 0})
        await exchange.send(reply.ad(end))

    async def act(exchange: Exchange) -> None:
        caller = await exchange.authenticate()
        ad = (await exchange.receive()).ad(what="the action ad")
        action = _ACTIONS.get(ad.get("JobAction"))
        ids = ad.get("ActionIds")
        listed = ids.replace(" ", "").split(",") if isinstance(ids, str) else None
        constraint = ad.lookup("ActionConstraint") if "ActionConstraint" in ad else None
        try:
            if action is None:
                raise BadRequest(
                    f"JobAction {ad.get('JobAction')}: fairpool does hold, release and remove"
                )
            names, missing = schedd.select(listed, None, constraint)
        except BadRequest as err:
            schedd.log.info("action refused: %s", err)
            names, missing = [], []
            results = {"": "error"}
        else:
            reason = next((ad[n] for n in _REASONS if isinstance(ad.get(n), str)), None)
            results = await schedd.act(caller, action, names, reason)
            results.update(dict.fromkeys(missing, "not found"))
        counts = Counter(results.values())
        reply = ClassAd({f"result_total_{n}": counts[r] for n, r in enumerate(_RESULTS)})
        reply["TotalJobAds"] = len(names) + len(missing)
        reply["ActionResult"] = int(counts["ok"] == len(results))
        await exchange.send(Writer().ad(reply))
        if reply["ActionResult"]:
            (await exchange.receive()).int("the confirmation")
            await exchange.send(Writer().int(0))

    async def qmgmt(exchange: Exchange) -> None:
        await queue_management(schedd, exchange)

    async def reschedule(exchange: Exchange) -> None:
        schedd.spawn(schedd.reschedule())

    return {
        commands.QUERY_JOB_ADS: query,
        commands.QUERY_SCHEDD_HISTORY: history,
        commands.ACT_ON_JOBS: act,
        commands.QMGMT_WRITE_CMD: qmgmt,
        commands.RESCHEDULE: reschedule,
    }
