"""The level each request needs: every HTTP route of a pool process and every CEDAR
command, in one table (docs/security.md prints it).

The HTTP table is checked against the routes the master actually serves
(``RouteLevels``): the master does not start while a route is missing from the table
(and tests/security/test_routes.py fails), so a new endpoint is never open by omission.
Some handlers ask for more than their route's level once they have read the request:
the collector's private attributes (claim ids) need NEGOTIATOR, and a job action or
edit needs the job's owner or an ADMINISTRATOR.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from starlette.routing import Mount, compile_path

from .levels import Level

__all__ = ["HTTP_LEVELS", "RouteLevels", "cedar_levels", "served_routes"]

READ, WRITE, ADMINISTRATOR, DAEMON, NEGOTIATOR = (
    Level.READ,
    Level.WRITE,
    Level.ADMINISTRATOR,
    Level.DAEMON,
    Level.NEGOTIATOR,
)

# every daemon's application (and the master's own) answers with its OpenAPI schema
_DOCUMENTATION = ("/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc")
_APPLICATIONS = ("", "/master", "/collector", "/negotiator", "/schedd", "/startd", "/defrag")
_MORE_APPLICATIONS = ("/gangliad", "/adstash")

HTTP_LEVELS: dict[str, Level] = {
    "GET /master/status": READ,
    "POST /master/reconfig": ADMINISTRATOR,
    "POST /master/off": ADMINISTRATOR,
    "POST /collector/update": DAEMON,
    "POST /collector/invalidate": DAEMON,
    "GET /collector/history": READ,
    "GET /collector/history/names": READ,
    "GET /collector/ads": READ,  # private=true: NEGOTIATOR
    "POST /collector/query": READ,  # "private": true: NEGOTIATOR
    "GET /negotiator/cycles": READ,
    "POST /negotiator/reschedule": WRITE,
    "GET /negotiator/autocluster-attrs": READ,
    "POST /negotiator/cycle": ADMINISTRATOR,
    "GET /negotiator/accountant": READ,
    "GET /negotiator/config": READ,  # secrets left out
    "POST /negotiator/accountant": ADMINISTRATOR,
    "GET /schedd/submit-info": READ,
    "POST /schedd/submit": WRITE,  # as the job's Owner
    "GET /schedd/jobs": READ,
    "GET /schedd/jobs/{job}": READ,
    "POST /schedd/act": WRITE,  # the jobs' owner, or an ADMINISTRATOR
    "POST /schedd/edit": WRITE,  # the jobs' owner, or an ADMINISTRATOR
    "GET /schedd/history": READ,
    "POST /schedd/negotiate": NEGOTIATOR,
    "POST /schedd/matches": NEGOTIATOR,
    "POST /schedd/events": DAEMON,
    "POST /schedd/reschedule": WRITE,
    "POST /startd/claim": DAEMON,  # with the claim id of the negotiator's match
    "POST /startd/activate": DAEMON,  # with the claim's own id
    "POST /startd/release": DAEMON,
    "POST /startd/drain": ADMINISTRATOR,
    "POST /startd/cancel-drain": ADMINISTRATOR,
    "GET /startd/slots": READ,
    "GET /defrag/status": READ,
    "POST /defrag/poll": ADMINISTRATOR,
    "GET /gangliad/status": READ,
    "POST /gangliad/publish": ADMINISTRATOR,
    "GET /adstash/status": READ,
    "POST /adstash/run": ADMINISTRATOR,
    "GET /metrics": READ,
    "GET /dashboard": READ,
    "GET /dashboard/": READ,
    "GET /dashboard/fairshare": READ,
    "GET /dashboard/negotiator": READ,
    "GET /dashboard/data/{name}": READ,
    "GET /dashboard/job/{job_id}": READ,
    "GET /dashboard/data/job/{job_id}": READ,
    "GET /dashboard/simulations": READ,
    "GET /dashboard/simulation/{number}": READ,
    "GET /dashboard/data/simulation/{number}": READ,
    "GET /dashboard/static/{path:path}": READ,
    **{
        f"GET {app}{page}": READ
        for app in (*_APPLICATIONS, *_MORE_APPLICATIONS)
        for page in _DOCUMENTATION
    },
}


@functools.cache
def cedar_levels() -> dict[int, Level]:
    """The level of each CEDAR command, by its number (a command missing here is
    refused to everyone)."""
    from ..cedar import commands  # the listener imports this module: no cycle at import

    edits = (
        commands.SET_PRIORITYFACTOR,
        commands.SET_PRIORITY,
        commands.SET_ACCUMUSAGE,
        commands.RESET_USAGE,
        commands.SET_BEGINTIME,
        commands.SET_LASTTIME,
        commands.SET_CEILING,
        commands.DELETE_USER,
        commands.RESET_ALL_USAGE,
    )
    return {
        **dict.fromkeys(commands.QUERY, READ),
        **dict.fromkeys(commands.ADVERTISE, DAEMON),
        **dict.fromkeys(commands.INVALIDATE, DAEMON),
        commands.GET_PRIORITY: READ,
        commands.GET_PRIORITY_ROLLUP: READ,
        commands.GET_RESLIST: READ,
        **dict.fromkeys(edits, ADMINISTRATOR),
        commands.QUERY_JOB_ADS: READ,
        commands.QUERY_SCHEDD_HISTORY: READ,
        commands.ACT_ON_JOBS: WRITE,
        commands.QMGMT_WRITE_CMD: WRITE,
        commands.RESCHEDULE: WRITE,
    }


def served_routes(app: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """Every (method, path template) an ASGI application serves, through its mounts
    (a mounted application without routes, such as static files, serves every path
    under its mount) and included routers. HEAD is served with GET and not listed."""
    for route in getattr(app, "routes", ()):
        if isinstance(route, Mount):
            if getattr(route.app, "routes", None) is not None:
                yield from served_routes(route.app, prefix + route.path)
            else:
                yield "GET", f"{prefix}{route.path}/{{path:path}}"
            continue
        included = getattr(route, "original_router", None)  # FastAPI keeps includes whole
        if included is not None:
            context = getattr(route, "include_context", None)
            yield from served_routes(included, prefix + getattr(context, "prefix", ""))
            continue
        path = getattr(route, "path", None)
        for method in sorted(getattr(route, "methods", None) or ()):
            if path is not None and method != "HEAD":
                yield method, prefix + path


@dataclass(frozen=True)
class _Route:
    method: str
    template: str
    pattern: re.Pattern[str]
    level: Level


class RouteLevels:
    """The level of each route an application serves, found by a request's method and
    path as the application's router finds the route."""

    def __init__(self, app: Any, table: dict[str, Level] = HTTP_LEVELS) -> None:
        served = list(served_routes(app))
        self.missing = [f"{m} {t}" for m, t in served if f"{m} {t}" not in table]
        self.routes = [
            _Route(m, t, compile_path(t)[0], table[f"{m} {t}"])
            for m, t in served
            if f"{m} {t}" in table
        ]

    def undeclared(self) -> list[str]:
        """The served routes the table gives no level (which are never reached)."""
        return self.missing

    def find(self, method: str, path: str) -> tuple[str, Level] | None:
        """The route a request is for, as ``METHOD template``, and its level; None when
        no route with a level serves it."""
        wanted = "GET" if method == "HEAD" else method
        for route in self.routes:
            if route.method == wanted and route.pattern.match(path):
                return f"{route.method} {route.template}", route.level
        return None
