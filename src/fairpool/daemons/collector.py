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

Absent and offline ads (seed 002, "Absent ClassAds"): a slot ad that would expire is
kept as absent when ABSENT_REQUIREMENTS holds for it (``Absent = true``, its
``LastHeardFrom`` the time it went absent, its ``ClassAdLifetime``
ABSENT_EXPIRE_ADS_AFTER), as is one invalidated by an invalidation that says
``Absent = true`` (or any invalidated one with EXPIRE_INVALIDATED_ADS, through
ABSENT_REQUIREMENTS). A slot ad that says ``Offline = true`` is kept until
OFFLINE_EXPIRE_ADS_AFTER. Both are written to the persistent ad log
(store/persistent_ads.py) and read back at start; the machine's next update replaces
them. Absent ads are seen only by a query whose constraint or projection names
``Absent``; the negotiator sees neither absent nor offline slots.

As an HTCondorView server (KEEP_POOL_HISTORY), the collector samples the pool every
POOL_HISTORY_SAMPLING_INTERVAL into POOL_HISTORY_DIR (store/pool_history.py; into the
pool's database when DATABASE_URL names a PostgreSQL one) and answers ``fairpool stats``
from it. With CONDOR_VIEW_HOST it forwards every update and
invalidation it takes to those collectors (a list; one that names this collector is
ignored, as the seed says).

Update statistics (update_stats.py): each ad's ``UpdateSequenceNumber`` tells the
collector how many of its updates were lost; with COLLECTOR_DAEMON_STATS (True) each ad
kept carries its ``UpdatesTotal``, ``UpdatesSequenced``, ``UpdatesLost`` and
``LastHeardFrom``, and the collector's own ad the sums (overall and by class of ad).
Updates from daemons of this process come straight to ``take_update`` and
``take_invalidation``, the methods behind ``/update`` and ``/invalidate``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request, Response
from sqlalchemy import Engine

from ..classad import ClassAd, Expr
from ..classad.jsonads import ad_from_json, ad_to_json
from ..classad.match import evaluate, satisfied
from ..classad.refs import references
from ..config.knob_values import knob_expr
from ..errors import ClassAdSyntaxError
from ..security.levels import Level
from ..security.middleware import require
from ..store.persistent_ads import PersistentAd, PersistentAds
from ..store.pool_history import PoolHistory
from .addresses import is_local, listed_collectors
from .client import Api
from .context import Context, knob_int
from .errors import BadRequest, NotFound, Unavailable
from .jsonbody import loads
from .update_stats import AdUpdates, UpdateStats

__all__ = ["Collector"]

ANY = "any"


@dataclass
class _Entry:
    obj: dict[str, Any]  # the ad as received
    expires: float
    private: dict[str, Any] | None = None
    ad: ClassAd | None = None
    names: dict[str, str] = field(default_factory=dict)  # lower-case name -> spelling
    absent: bool = False
    offline: bool = False
    updates: AdUpdates | None = None  # COLLECTOR_DAEMON_STATS
    text: bytes | None = None  # ``obj`` as JSON, written at the first query that sends it

    def encoded(self) -> bytes:
        if self.text is None:
            self.text = _dumps(self.obj)
        return self.text

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
        self.stats = UpdateStats()
        self.reconfig()
        self.persistent = PersistentAds.at(
            (ctx.config.get("COLLECTOR_PERSISTENT_AD_LOG") or "").strip(),
            ctx.engine,
            ctx.owner(self.own_name),
        )
        self._restore()
        self._views: dict[str, Api] = {}
        self._tasks: set[asyncio.Task] = set()
        self.history: PoolHistory | None = None
        if _flag(ctx.config, "KEEP_POOL_HISTORY"):
            self.history = PoolHistory(
                self._history_place(),
                knob_int(ctx.config, "POOL_HISTORY_MAX_STORAGE", 10_000_000, minimum=1),
                ctx.owner(self.own_name),
            )
            ctx.env.process(self._sampling())
        ctx.env.process(self._housekeeping())

    def reconfig(self) -> None:
        config = self.ctx.config
        self.lifetime = knob_int(config, "CLASSAD_LIFETIME", 900, minimum=1)
        self.own_name = (config.get("COLLECTOR_NAME") or "").strip() or f"fairpool@{self.ctx.host}"
        self.absent_requirements = knob_expr(config, "ABSENT_REQUIREMENTS")
        self.absent_lifetime = knob_int(config, "ABSENT_EXPIRE_ADS_AFTER", 30 * 86400)
        self.offline_lifetime = knob_int(config, "OFFLINE_EXPIRE_ADS_AFTER", 2**31 - 1)
        self.expire_invalidated = _flag(config, "EXPIRE_INVALIDATED_ADS")
        stats = config.get_bool("COLLECTOR_DAEMON_STATS", True)
        self.daemon_stats = True if stats is None else stats
        self.sampling = knob_int(config, "POOL_HISTORY_SAMPLING_INTERVAL", 60, minimum=1)
        self.view_urls = [
            entry.url
            for entry in listed_collectors(config, "CONDOR_VIEW_HOST")
            if not self._me(entry.url)
        ]

    def _history_place(self) -> Path | Engine:
        """Where the pool's history goes: the pool's database when it is a shared
        PostgreSQL one, else its own file in POOL_HISTORY_DIR (pool_history.py)."""
        if self.ctx.shared and self.ctx.engine.dialect.name == "postgresql":
            return self.ctx.engine
        directory = (self.ctx.config.get("POOL_HISTORY_DIR") or "").strip()
        return Path(directory) if directory else self.ctx.paths.spool

    def _me(self, url: str) -> bool:
        """Whether a CONDOR_VIEW_HOST names this collector (same port, a name of this
        host)."""
        mine = self.ctx.url.split("://", 1)[-1]
        where = mine.rpartition(":")[0]
        host, _, port = url.split("://", 1)[-1].split("/", 1)[0].rpartition(":")
        return port == mine.rpartition(":")[2] and (host == self.ctx.host or is_local(host, where))

    def _restore(self) -> None:
        """The absent and offline ads the persistent log kept."""
        for kept in self.persistent.load():
            entry = _Entry(kept.obj, kept.expires, None, _parsed(kept.obj, "a persistent ad"))
            entry.absent = _field(kept.obj, "Absent") is True
            entry.offline = not entry.absent
            self.ads.setdefault(kept.kind, {})[(kept.name, kept.schedd)] = entry

    # -- the core -----------------------------------------------------------------------
    def update(self, objs: list[Any], private: dict[str, Any] | None, now: float) -> int:
        """Store ads (each replaces the ad of its type and name)."""
        for number, obj in enumerate(objs):
            if not isinstance(obj, dict):
                raise BadRequest(f"ads[{number}]: expected a JSON object")
            ad = _parsed(obj, f"ads[{number}]")  # its attributes found without case
            kind, key = _key(ad, f"ads[{number}]")
            table = self.ads.setdefault(kind, {})
            before = table.get(key)
            seen = before.updates if before is not None else None
            updates = self.stats.count(kind, seen, ad.get("UpdateSequenceNumber"))
            if self.daemon_stats:
                added = updates.attributes(now)
                obj = {**obj, **added}
                for name, value in added.items():
                    ad[name] = value
            lifetime = ad.get("ClassAdLifetime")
            ttl = lifetime if type(lifetime) is int and lifetime > 0 else self.lifetime
            secret = (private or {}).get(key[0])
            entry = table[key] = _Entry(obj, now + ttl, secret, ad, updates=updates)
            if kind == "machine" and ad.get("Offline") is True:
                entry.offline = True
                entry.expires = _until(now, self.offline_lifetime)
                self._persist(kind, key, entry)
            elif before is not None and (before.absent or before.offline):
                self.persistent.remove(kind, *key)  # the machine is back
        return len(objs)

    def take_update(self, body: dict[str, Any]) -> int:
        """An update as ``/update`` takes it (``{"ads": [...], "private": {...}}``),
        passed on to each CONDOR_VIEW_HOST."""
        ads = body.get("ads")
        if not isinstance(ads, list):
            raise BadRequest("ads: expected a list of JSON ads")
        private = body.get("private")
        if private is not None and not isinstance(private, dict):
            raise BadRequest("private: expected an object of ads by name")
        updated = self.update(ads, private, self.ctx.env.now)
        self.forward("/update", {"ads": ads})
        return updated

    def take_invalidation(self, body: dict[str, Any]) -> int:
        """An invalidation as ``/invalidate`` takes it, passed on to each
        CONDOR_VIEW_HOST."""
        kind = body.get("type")
        if not isinstance(kind, str):
            raise BadRequest("type: expected an ad type such as Machine")
        names = body.get("names")
        if names is not None and not (
            isinstance(names, list) and all(isinstance(n, str) for n in names)
        ):
            raise BadRequest("names: expected a list of ad names")
        constraint = _constraint(body.get("constraint"))
        absent = _field(body, "Absent")
        if absent is not None and not isinstance(absent, bool):
            raise BadRequest("Absent: expected true or false")
        gone = self.invalidate(kind, names, constraint, bool(absent))
        self.forward("/invalidate", body)
        return gone

    def _persist(self, kind: str, key: tuple[str, str], entry: _Entry) -> None:
        self.persistent.save(PersistentAd(kind, key[0], key[1], entry.obj, entry.expires))

    def _turn_absent(self, kind: str, key: tuple[str, str], entry: _Entry, now: float) -> None:
        """Keep the ad as absent: the time it went absent is its LastHeardFrom, as
        ``condor_status -absent`` shows it, and it lives ABSENT_EXPIRE_ADS_AFTER more."""
        obj = {
            **entry.obj,
            "Absent": True,
            "LastHeardFrom": int(now),
            "ClassAdLifetime": self.absent_lifetime,
        }
        absent = _Entry(obj, _until(now, self.absent_lifetime), None, _parsed(obj, "an ad"))
        absent.absent = True
        absent.updates = entry.updates
        self.ads.setdefault(kind, {})[key] = absent
        self._persist(kind, key, absent)
        self.log.info("%s is absent", key[0])

    def _drop(self, kind: str, key: tuple[str, str], entry: _Entry, now: float) -> bool:
        """An ad that expired: absent if ABSENT_REQUIREMENTS holds for a slot ad that is
        not absent already (True), else gone."""
        if (
            kind == "machine"
            and not entry.absent
            and self.absent_requirements is not None
            and _holds(self.absent_requirements, entry, now)
        ):
            self._turn_absent(kind, key, entry, now)
            return True
        del self.ads[kind][key]
        if entry.absent or entry.offline:
            self.persistent.remove(kind, *key)
        return False

    def invalidate(
        self,
        kind: str,
        names: list[str] | None,
        constraint: Expr | None,
        absent: bool = False,
    ) -> int:
        """Drop ads of a type by name or by constraint; how many went. ``absent``: the
        invalidation says ``Absent = true``, so slot ads turn absent instead (as do those
        for which ABSENT_REQUIREMENTS holds, with EXPIRE_INVALIDATED_ADS)."""
        gone = 0
        now = self.ctx.env.now
        sees_absent = _names_absent(constraint, None)
        for table_kind, table in self._tables(kind.lower()):
            for key, entry in list(table.items()):
                if entry.absent and not (sees_absent or names is not None):
                    continue
                named = names is not None and key[0] in names
                chosen = constraint is not None and _holds(constraint, entry, now)
                if not (named or chosen):
                    continue
                gone += 1
                if absent and table_kind == "machine" and not entry.absent:
                    self._turn_absent(table_kind, key, entry, now)
                elif self.expire_invalidated and not entry.absent:
                    self._drop(table_kind, key, entry, now)
                else:
                    del table[key]
                    if entry.absent or entry.offline:
                        self.persistent.remove(table_kind, *key)
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
        wanted, found = self._selected(kind, constraint, projection, now)
        return [_shown(entry, wanted, private) for entry in found]

    def query_json(
        self,
        kind: str,
        constraint: Expr | None,
        projection: list[str] | None,
        private: bool,
        now: float,
    ) -> bytes:
        """``query``'s answer as the JSON body ``{"ads": [...]}``. An ad sent whole is
        written once per update and its bytes kept, so that a query of thousands of ads
        costs their constraint and a join, not their encoding."""
        wanted, found = self._selected(kind, constraint, projection, now)
        parts = [
            entry.encoded()
            if wanted is None and not (private and entry.private)
            else _dumps(_shown(entry, wanted, private))
            for entry in found
        ]
        return b'{"ads":[' + b",".join(parts) + b"]}"

    def _selected(
        self, kind: str, constraint: Expr | None, projection: list[str] | None, now: float
    ) -> tuple[set[str] | None, Iterator[_Entry]]:
        """A query's projection (lower-case names, None for whole ads) and its entries."""
        wanted = {name.lower() for name in projection} if projection else None
        sees_absent = _names_absent(constraint, wanted)
        return wanted, self._matching(kind, constraint, now, sees_absent)

    def query_ads(self, kind: str, constraint: Expr | None, now: float) -> list[ClassAd]:
        """The public ads a query finds, as the parsed ads kept (for a front end that
        sends ClassAds, not JSON: the CEDAR listener; not to be changed)."""
        sees_absent = _names_absent(constraint, None)
        return [entry.classad() for entry in self._matching(kind, constraint, now, sees_absent)]

    def _matching(
        self, kind: str, constraint: Expr | None, now: float, sees_absent: bool
    ) -> Iterator[_Entry]:
        for _, table in self._tables(kind.lower()):
            for entry in table.values():
                if entry.absent and not sees_absent:
                    continue
                if constraint is None or _holds(constraint, entry, now):
                    yield entry

    def slot_ads(self) -> list[ClassAd]:
        """Every slot ad with its private attributes, for a negotiator in this process:
        copies of the parsed ads (an ad is parsed once per update), which the cycle may
        annotate while queries go on."""
        self._own(self.ctx.env.now)
        found = []
        for entry in self.ads.get("machine", {}).values():
            if entry.absent or entry.offline:
                continue
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
            for key, entry in [(k, e) for k, e in table.items() if e.expires <= now]:
                gone += not self._drop(kind, key, entry, now)
            if not table:
                del self.ads[kind]
        if gone:
            self.log.info("expired %d ads", gone)
        return gone

    def own_ad(self, now: float) -> dict[str, Any]:
        """The collector's own ad, as queries of type Collector see it."""
        machines = {k: e for k, e in self.ads.get("machine", {}).items() if not e.absent}
        states: dict[str, int] = {}
        for entry in machines.values():
            state = entry.obj.get("State")
            states[str(state)] = states.get(str(state), 0) + 1
        ad = ClassAd(
            {
                "MyType": "Collector",
                "Name": self.own_name,
                "Machine": self.ctx.host,
                **self.ctx.identity(),
                "ApiAddress": self.ctx.daemon_url(self.name),
                "DaemonStartTime": int(self.ctx.started),
                "MyCurrentTime": int(now),
                **self.stats.attributes(),
                "HostsTotal": len(machines),
                "HostsClaimed": states.get("Claimed", 0),
                "HostsUnclaimed": states.get("Unclaimed", 0),
                "HostsOwner": states.get("Owner", 0),
                "SubmitterAds": len(self.ads.get("submitter", {})),
            }
        )
        return ad_to_json(ad)

    def _tables(self, kind: str) -> list[tuple[str, dict[tuple[str, str], _Entry]]]:
        if kind in (ANY, "collector"):
            # the collector's own ad counts every slot: made only for those who see it
            self._own(self.ctx.env.now)
        if kind == ANY:
            return list(self.ads.items())
        table = self.ads.get(kind)
        return [(kind, table)] if table is not None else []

    def _own(self, now: float) -> None:
        obj = self.own_ad(now)
        entry = _Entry(obj, float("inf"), None, ad_from_json(obj))
        self.ads.setdefault("collector", {})[(self.own_name, "")] = entry

    # -- HTCondorView ---------------------------------------------------------------------
    def sample(self, now: float) -> None:
        """One history sample: each slot's state, each submitter's jobs (over schedds)."""
        assert self.history is not None
        slots = [
            (key[0], str(_field(e.obj, "State")), str(_field(e.obj, "Activity")))
            for key, e in self.ads.get("machine", {}).items()
            if not e.absent
        ]
        users: dict[str, list[int]] = {}
        for key, entry in self.ads.get("submitter", {}).items():
            counts = users.setdefault(key[0], [0, 0])
            for number, name in enumerate(("RunningJobs", "IdleJobs")):
                value = _field(entry.obj, name)
                counts[number] += value if type(value) is int else 0
        self.history.record(now, slots, [(n, r, i) for n, (r, i) in users.items()])

    def _sampling(self):
        while True:
            self.sample(self.ctx.env.now)
            yield float(self.sampling)

    def forward(self, path: str, body: dict[str, Any]) -> None:
        """The update or invalidation, to each CONDOR_VIEW_HOST (in the background: a view
        server that is down delays nothing)."""
        for url in self.view_urls:
            api = self._views.setdefault(url, Api(url))
            task = asyncio.get_running_loop().create_task(self._send(api, path, body))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _send(self, api: Api, path: str, body: dict[str, Any]) -> None:
        try:
            await api.post(path, body)
        except Unavailable as err:
            self.log.info("not forwarded to %s: %s", api.url, err)

    def _history(self) -> PoolHistory:
        if self.history is None:
            raise NotFound("this collector keeps no pool history (KEEP_POOL_HISTORY = False)")
        return self.history

    def _housekeeping(self):
        while True:
            yield min(60.0, self.lifetime / 4)
            self.expire(self.ctx.env.now)

    async def close(self) -> None:
        self.persistent.close(self.ctx.engine)
        if self.history is not None:
            self.history.close()
        for api in self._views.values():
            await api.close()

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
            return {"updated": self.take_update(await _json_body(request))}

        @api.post("/invalidate", summary="Remove ads by name or constraint")
        async def invalidate(body: dict[str, Any]) -> dict[str, int]:
            return {"invalidated": self.take_invalidation(body)}

        @api.get("/history", summary="Pool history samples (KEEP_POOL_HISTORY)")
        async def history(
            kind: str, since: float = 0.0, until: float = 1e12, name: str | None = None
        ) -> dict[str, Any]:
            store = self._history()
            if kind == "resource":
                found = store.resources(since, until, name)
            elif kind == "submitter":
                found = store.submitters(since, until, name)
            else:
                raise BadRequest("kind: expected resource or submitter")
            return {"samples": [asdict(sample) for sample in found]}

        @api.get("/history/names", summary="The resources or submitters in the history")
        async def history_names(kind: str) -> dict[str, Any]:
            if kind not in ("resource", "submitter"):
                raise BadRequest("kind: expected resource or submitter")
            return {"names": self._history().names(kind)}

        @api.get("/ads", summary="Query ads of a type, with a constraint and a projection")
        async def ads_get(
            request: Request,
            type: str = "Any",
            constraint: str | None = None,
            projection: str | None = None,
            private: bool = False,
        ) -> Response:
            names = [p for p in (projection or "").replace(",", " ").split() if p]
            return self._answer(request, type, constraint, names or None, private)

        @api.post("/query", summary="Query ads (the constraint in the body)")
        async def query(request: Request, body: dict[str, Any]) -> Response:
            projection = body.get("projection")
            if projection is not None and not (
                isinstance(projection, list) and all(isinstance(p, str) for p in projection)
            ):
                raise BadRequest("projection: expected a list of attribute names")
            return self._answer(
                request,
                str(body.get("type") or "Any"),
                body.get("constraint"),
                projection,
                bool(body.get("private")),
            )

        return api

    def _answer(
        self,
        request: Request,
        kind: str,
        constraint: object,
        projection: list[str] | None,
        private: bool,
    ) -> Response:
        if private:  # claim ids: for the negotiator's eyes only
            require(request, Level.NEGOTIATOR, "private attributes (claim ids)")
        found = self.query_json(
            kind, _constraint(constraint), projection, private, self.ctx.env.now
        )
        return Response(found, media_type="application/json")


def _shown(entry: _Entry, wanted: set[str] | None, private: bool) -> dict[str, Any]:
    """An ad as a query shows it: projected, with its private attributes if asked."""
    obj = entry.project(wanted)
    return {**obj, **entry.private} if private and entry.private else obj


def _dumps(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def _key(ad: ClassAd, where: str) -> tuple[str, tuple[str, str]]:
    kind, name = ad.get("MyType"), ad.get("Name")
    if not isinstance(kind, str) or not isinstance(name, str):
        raise BadRequest(f"{where}: an ad needs MyType and Name strings")
    schedd = ad.get("ScheddName") if kind.lower() == "submitter" else ""
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


def _flag(config: Any, name: str) -> bool:
    return bool(config.get_bool(name, False))


def _until(now: float, lifetime: int) -> float:
    """When an ad kept ``lifetime`` seconds from now expires (0: never)."""
    return now + lifetime if lifetime > 0 else float("inf")


def _names_absent(constraint: Expr | None, wanted: set[str] | None) -> bool:
    """Whether a query names ``Absent`` (its constraint or projection), which is what
    makes absent ads visible to it."""
    if wanted and "absent" in wanted:
        return True
    if constraint is None:
        return False
    found = references(constraint.node, None).unresolved
    return any(name.rpartition(".")[2].lower() == "absent" for name in found)


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
        body = loads(await request.body())
    except ValueError as err:
        raise BadRequest(f"the body is not JSON: {err}") from None
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    return body


def _body_schema(properties: dict[str, Any]) -> dict[str, Any]:
    schema = {"type": "object", "properties": properties}
    return {"requestBody": {"content": {"application/json": {"schema": schema}}}}
