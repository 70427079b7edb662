"""The collector: every daemon's ads, kept until they expire, and queries over them.

Ads are keyed as HTCondor keys them: by MyType and Name (a Submitter ad also by the
schedd that sends it). An update replaces the ad; an ad not updated within its lifetime
(its ``ClassAdLifetime`` attribute, else ``CLASSAD_LIFETIME``) is dropped, as is one
invalidated. A query names an ad type (``Any`` spans them all), a constraint and a
projection.

Ads are kept as they arrived, as JSON (classad/jsonads.py), so a query without a
constraint costs only the JSON it sends back, and parsed, so that a bad ad is refused
when it is sent and a constraint (or a negotiator in this process) finds it ready.
Private attributes (a slot's ``ClaimId``, which a claim must present) are kept apart
and given only to a query that asks for them: the negotiator's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Request, Response

from ..classad import ClassAd, Expr
from ..classad.jsonads import ad_from_json, ad_to_json
from ..classad.match import evaluate, satisfied
from ..errors import ClassAdSyntaxError
from .context import Context, knob_int
from .errors import BadRequest

__all__ = ["Collector"]

ANY = "any"


@dataclass
class _Entry:
    obj: dict[str, Any]  # the ad as received
    expires: float
    private: dict[str, Any] | None = None
    ad: ClassAd | None = None
    names: dict[str, str] = field(default_factory=dict)  # lower-case name -> spelling

    def classad(self) -> ClassAd:
        assert self.ad is not None  # parsed at update (the collector's own ad: at once)
        return self.ad

    def project(self, wanted: set[str] | None) -> dict[str, Any]:
        if wanted is None:
            return self.obj
        if not self.names:
            self.names = {name.lower(): name for name in self.obj}
        return {self.names[n]: self.obj[self.names[n]] for n in wanted if n in self.names}


class Collector:
    """The ads of a pool, by type."""

    name = "collector"

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.log = ctx.logger(self.name)
        self.ads: dict[str, dict[tuple[str, str], _Entry]] = {}  # type -> key -> entry
        self.updates = 0
        self.reconfig()
        ctx.env.process(self._housekeeping())

    def reconfig(self) -> None:
        config = self.ctx.config
        self.lifetime = knob_int(config, "CLASSAD_LIFETIME", 900, minimum=1)
        self.own_name = (config.get("COLLECTOR_NAME") or "").strip() or f"fairpool@{self.ctx.host}"

    # -- the core -----------------------------------------------------------------------
    def update(self, objs: list[Any], private: dict[str, Any] | None, now: float) -> int:
        """Store ads (each replaces the ad of its type and name)."""
        for number, obj in enumerate(objs):
            if not isinstance(obj, dict):
                raise BadRequest(f"ads[{number}]: expected a JSON object")
            kind, key = _key(obj, f"ads[{number}]")
            ad = _parsed(obj, f"ads[{number}]")
            lifetime = _field(obj, "ClassAdLifetime")
            ttl = lifetime if type(lifetime) is int and lifetime > 0 else self.lifetime
            secret = (private or {}).get(key[0])
            self.ads.setdefault(kind, {})[key] = _Entry(obj, now + ttl, secret, ad)
            self.updates += 1
        return len(objs)

    def invalidate(self, kind: str, names: list[str] | None, constraint: Expr | None) -> int:
        """Drop ads of a type by name or by constraint; how many went."""
        gone = 0
        for table_kind, table in self._tables(kind.lower()):
            for key, entry in list(table.items()):
                named = names is not None and key[0] in names
                chosen = constraint is not None and _holds(constraint, entry, self.ctx.env.now)
                if named or chosen:
                    del table[key]
                    gone += 1
            if not table:
                self.ads.pop(table_kind, None)
        return gone

    def query(
        self,
        kind: str,
        constraint: Expr | None,
        projection: list[str] | None,
        private: bool,
        now: float,
    ) -> list[dict[str, Any]]:
        wanted = {name.lower() for name in projection} if projection else None
        found = []
        for _, table in self._tables(kind.lower()):
            for entry in table.values():
                if constraint is not None and not _holds(constraint, entry, now):
                    continue
                obj = entry.project(wanted)
                if private and entry.private:
                    obj = {**obj, **entry.private}
                found.append(obj)
        return found

    def slot_ads(self) -> list[ClassAd]:
        """Every slot ad with its private attributes, for a negotiator in this process:
        copies of the parsed ads (an ad is parsed once per update), which the cycle may
        annotate while queries go on."""
        self._own(self.ctx.env.now)
        found = []
        for entry in self.ads.get("machine", {}).values():
            ad = entry.classad().copy()
            for name, value in (entry.private or {}).items():
                ad[name] = value
            found.append(ad)
        return found

    def parsed_ads(self) -> list[ClassAd]:
        """Every ad as parsed (public attributes only), for a reader in this process
        that only reads them (the pool's /metrics): no JSON, no copies."""
        return [entry.classad() for _, table in self._tables(ANY) for entry in table.values()]

    def expire(self, now: float) -> int:
        gone = 0
        for kind, table in list(self.ads.items()):
            for key in [k for k, e in table.items() if e.expires <= now]:
                del table[key]
                gone += 1
            if not table:
                del self.ads[kind]
        if gone:
            self.log.info("expired %d ads", gone)
        return gone

    def own_ad(self, now: float) -> dict[str, Any]:
        """The collector's own ad, as queries of type Collector see it."""
        machines = self.ads.get("machine", {})
        states: dict[str, int] = {}
        for entry in machines.values():
            state = entry.obj.get("State")
            states[str(state)] = states.get(str(state), 0) + 1
        ad = ClassAd(
            {
                "MyType": "Collector",
                "Name": self.own_name,
                "Machine": self.ctx.host,
                "MyAddress": _sinful(self.ctx.url),
                "ApiAddress": self.ctx.daemon_url(self.name),
                "DaemonStartTime": int(self.ctx.started),
                "MyCurrentTime": int(now),
                "UpdatesTotal": self.updates,
                "HostsTotal": len(machines),
                "HostsClaimed": states.get("Claimed", 0),
                "HostsUnclaimed": states.get("Unclaimed", 0),
                "HostsOwner": states.get("Owner", 0),
                "SubmitterAds": len(self.ads.get("submitter", {})),
                "CondorVersion": "$CondorVersion: fairpool $",
            }
        )
        return ad_to_json(ad)

    def _tables(self, kind: str) -> list[tuple[str, dict[tuple[str, str], _Entry]]]:
        self._own(self.ctx.env.now)
        if kind == ANY:
            return list(self.ads.items())
        table = self.ads.get(kind)
        return [(kind, table)] if table is not None else []

    def _own(self, now: float) -> None:
        obj = self.own_ad(now)
        entry = _Entry(obj, float("inf"), None, ad_from_json(obj))
        self.ads.setdefault("collector", {})[(self.own_name, "")] = entry

    def _housekeeping(self):
        while True:
            yield min(60.0, self.lifetime / 4)
            self.expire(self.ctx.env.now)

    # -- the API ------------------------------------------------------------------------
    def router(self) -> APIRouter:
        api = APIRouter(tags=[self.name])

        @api.post(
            "/update",
            summary="Advertise ads (each replaces the ad of its type and name)",
            openapi_extra=_body_schema(
                {
                    "ads": {"type": "array", "items": {"type": "object"}},
                    "private": {"type": "object"},
                }
            ),
        )
        async def update(request: Request) -> dict[str, int]:
            body = await _json_body(request)
            ads = body.get("ads")
            if not isinstance(ads, list):
                raise BadRequest("ads: expected a list of JSON ads")
            private = body.get("private")
            if private is not None and not isinstance(private, dict):
                raise BadRequest("private: expected an object of ads by name")
            return {"updated": self.update(ads, private, self.ctx.env.now)}

        @api.post("/invalidate", summary="Remove ads by name or constraint")
        async def invalidate(body: dict[str, Any]) -> dict[str, int]:
            kind = body.get("type")
            if not isinstance(kind, str):
                raise BadRequest("type: expected an ad type such as Machine")
            names = body.get("names")
            if names is not None and not (
                isinstance(names, list) and all(isinstance(n, str) for n in names)
            ):
                raise BadRequest("names: expected a list of ad names")
            constraint = _constraint(body.get("constraint"))
            return {"invalidated": self.invalidate(kind, names, constraint)}

        @api.get("/ads", summary="Query ads of a type, with a constraint and a projection")
        async def ads_get(
            type: str = "Any",
            constraint: str | None = None,
            projection: str | None = None,
            private: bool = False,
        ) -> Response:
            names = [p for p in (projection or "").replace(",", " ").split() if p]
            return self._answer(type, constraint, names or None, private)

        @api.post("/query", summary="Query ads (the constraint in the body)")
        async def query(body: dict[str, Any]) -> Response:
            projection = body.get("projection")
            if projection is not None and not (
                isinstance(projection, list) and all(isinstance(p, str) for p in projection)
            ):
                raise BadRequest("projection: expected a list of attribute names")
            return self._answer(
                str(body.get("type") or "Any"),
                body.get("constraint"),
                projection,
                bool(body.get("private")),
            )

        return api

    def _answer(
        self, kind: str, constraint: object, projection: list[str] | None, private: bool
    ) -> Response:
        found = self.query(kind, _constraint(constraint), projection, private, self.ctx.env.now)
        return Response(json.dumps({"ads": found}), media_type="application/json")


def _key(obj: dict[str, Any], where: str) -> tuple[str, tuple[str, str]]:
    kind, name = _field(obj, "MyType"), _field(obj, "Name")
    if not isinstance(kind, str) or not isinstance(name, str):
        raise BadRequest(f"{where}: an ad needs MyType and Name strings")
    schedd = _field(obj, "ScheddName") if kind.lower() == "submitter" else ""
    return kind.lower(), (name, schedd if isinstance(schedd, str) else "")


def _field(obj: dict[str, Any], name: str) -> Any:
    value = obj.get(name)
    if value is None:
        lower = name.lower()
        value = next((v for k, v in obj.items() if k.lower() == lower), None)
    return value


def _parsed(obj: dict[str, Any], where: str) -> ClassAd:
    """The ad, parsed as it arrives (each distinct expression text parsed once: the
    parse is cached), so that a stored ad can always be read and a constraint or the
    negotiator finds it ready."""
    try:
        return ad_from_json(obj, where)
    except ClassAdSyntaxError as err:
        raise BadRequest(err.message) from None


def _holds(constraint: Expr, entry: _Entry, now: float) -> bool:
    return satisfied(evaluate(constraint, entry.classad(), now=now))


def _constraint(text: object) -> Expr | None:
    if text is None or text == "":
        return None
    if not isinstance(text, str):
        raise BadRequest("constraint: expected a ClassAd expression")
    try:
        return Expr(text)
    except ClassAdSyntaxError as err:
        raise BadRequest(f"constraint: {err.message}") from None


async def _json_body(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body())
    except ValueError as err:
        raise BadRequest(f"the body is not JSON: {err}") from None
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    return body


def _body_schema(properties: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    return {"requestBody": {"content": {"application/json": {"schema": schema}}}}


def _sinful(url: str) -> str:
    """``http://127.0.0.1:9618`` as HTCondor writes an address: ``<127.0.0.1:9618>``."""
    return f"<{url.split('://', 1)[-1].split('/', 1)[0]}>"
