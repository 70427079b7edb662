"""The collector's CEDAR commands: queries (QUERY_*_ADS), updates (UPDATE_*_AD) and
invalidations (INVALIDATE_*_ADS), each a call of the collector core the HTTP API calls
(daemons/collector.py).

A query ad carries the constraint as ``Requirements``, the projection as ``Projection``
(names separated by spaces or commas) and ``LimitResults``; the server applies all
three (the wheel filters nothing). The answer is one message: for each ad the integer 1
and the ad, then 0. Updates and invalidations get no answer.
"""

from __future__ import annotations

from ..classad import ClassAd, Expr
from ..classad.jsonads import ad_to_json
from ..daemons.collector import Collector
from ..errors import FairpoolError
from . import commands
from .server import Exchange, Handler
from .wire import Reader, WireError, Writer

__all__ = ["collector_handlers", "query_terms"]


def collector_handlers(collector: Collector) -> dict[int, Handler]:
    async def query(exchange: Exchange) -> None:
        message = await exchange.receive()
        ad = message.ad(what="the query ad")
        kind = commands.QUERY[exchange.command]
        target = ad.get("TargetType")
        if exchange.command in commands.QUERY_BY_TARGET and isinstance(target, str) and target:
            kind = target
        constraint, projection, limit = query_terms(ad)
        found = collector.query_ads(kind, constraint, collector.ctx.env.now)
        wanted = {name.lower() for name in projection} if projection else None
        reply = Writer()
        for each in found[:limit] if limit else found:
            reply.int(1).ad(each, projection=wanted)
        await exchange.send(reply.int(0))

    async def update(exchange: Exchange) -> None:
        message = await exchange.receive()
        ad = message.ad(what="the advertised ad")
        private = _private(message, ad)
        ad.setdefault("MyType", commands.ADVERTISE[exchange.command])
        try:
            collector.update([ad_to_json(ad)], private, collector.ctx.env.now)
        except FairpoolError as err:
            raise WireError(f"update refused: {err}") from None

    async def invalidate(exchange: Exchange) -> None:
        message = await exchange.receive()
        ad = message.ad(what="the invalidation ad")
        target = ad.get("TargetType")
        kind = target if isinstance(target, str) and target else None
        kind = kind or commands.INVALIDATE[exchange.command]
        name = ad.get("Name")
        constraint, _, _ = query_terms(ad)
        collector.invalidate(kind, [name] if isinstance(name, str) else None, constraint)

    handlers: dict[int, Handler] = dict.fromkeys(commands.QUERY, query)
    handlers.update(dict.fromkeys(commands.ADVERTISE, update))
    handlers.update(dict.fromkeys(commands.INVALIDATE, invalidate))
    return handlers


def query_terms(ad: ClassAd) -> tuple[Expr | None, list[str] | None, int]:
    """A query ad's constraint, projection and result limit (0: none)."""
    constraint = ad.lookup("Requirements") if "Requirements" in ad else None
    if constraint is not None and str(constraint).strip("() ") in ("", "true", "TRUE"):
        constraint = None
    projection = ad.get("Projection")  # "A B", "A,B", "A\nB" or {"A", "B"}
    if isinstance(projection, str):
        names = projection.replace(",", " ").split()
    elif isinstance(projection, list):
        names = [n for n in projection if isinstance(n, str)]
    else:
        names = []
    limit = ad.get("LimitResults")
    return constraint, names or None, limit if type(limit) is int and limit > 0 else 0


def _private(message: Reader, ad: ClassAd) -> dict[str, dict] | None:
    """A startd's private attributes, sent after its public ad (ClaimId...)."""
    if not message.left:
        return None
    private = message.ad(what="the private ad")
    name = ad.get("Name")
    return {name: ad_to_json(private)} if isinstance(name, str) and len(private) else None
