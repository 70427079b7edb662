"""The HTTP front end's gate: every request to a pool process is authenticated and
authorized here, before any daemon's handler sees it.

A request presents a bearer token (``Authorization: Bearer ...``), or nothing and is
then the local user owning its socket (FS) or no one. The level its route needs
(routes.py) is checked against the process's policy (settings.py): a caller no method
proved where one must be, or a bad token, is answered 401 with ``WWW-Authenticate``;
one without the level 403; both as the daemons' JSON error bodies, and logged as
HTCondor logs them (``PERMISSION DENIED``). A route open to everyone (``ALLOW_READ =
*``) lets a request in without finding out who sent it; a handler that needs to know
(``caller_of``) finds out then. A request for a route the gate does not know is
answered 404 here: what the gate cannot see it does not let through.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from ..daemons.errors import ApiError, NotFound, Unauthenticated, error_body
from ..daemons.identity import Caller
from .levels import Level
from .principal import Principal
from .routes import RouteLevels
from .settings import Security

__all__ = ["Guard", "caller_of", "require"]

_KEY = "fairpool.presented"


class _Presented:
    """What a request presented, and who that proves once asked."""

    def __init__(self, security: Security, scope: dict[str, Any]) -> None:
        self.security = security
        client = scope.get("client") or (None, None)
        self.host, self.port = client[0], client[1]
        self.token = _bearer(scope)
        self._principal: Principal | None = None

    def principal(self) -> Principal:
        if self._principal is None:
            self._principal = self.security.authenticate(self.token, self.host, self.port)
        return self._principal

    def authorize(self, level: Level, what: str) -> None:
        if self.token is None and self.security.open_to_all(level):
            return
        self.security.check(self.principal(), level, what)


def _bearer(scope: dict[str, Any]) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            kind, _, token = value.decode("latin-1").strip().partition(" ")
            if kind.lower() != "bearer" or not token.strip():
                raise Unauthenticated("Authorization: expected Bearer and a token")
            return token.strip()
    return None


class Guard:
    """ASGI middleware around a pool process's whole application."""

    def __init__(self, app: Any, security: Callable[[], Security], log: logging.Logger) -> None:
        self.app = app
        self.security = security  # the process's, read anew after a reconfig
        self.log = log
        self.levels = RouteLevels(app)
        undeclared = self.levels.undeclared()
        if undeclared:  # a programming error: no route is served without a level
            raise RuntimeError(f"routes without a level in security/routes.py: {undeclared}")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        found = self.levels.find(scope["method"], scope["path"])
        security = self.security()
        try:
            if found is None:  # only the routes the gate knows are reachable
                raise NotFound(f"no route {scope['method']} {scope['path']} here")
            route, level = found
            presented = _Presented(security, scope)
            presented.authorize(level, route)
        except ApiError as err:
            await self._refuse(err, scope, security)(scope, receive, send)
            return
        scope[_KEY] = presented
        await self.app(scope, receive, send)

    def _refuse(self, err: ApiError, scope: dict[str, Any], security: Security) -> JSONResponse:
        client = scope.get("client") or ("nowhere", 0)
        if err.status in (401, 403):  # as HTCondor logs PERMISSION DENIED
            self.log.info(
                "refused %s %s from %s: %s", scope["method"], scope["path"], client[0], err
            )
        headers = None
        if isinstance(err, Unauthenticated):
            headers = {"WWW-Authenticate": f'Bearer realm="{security.trust_domain}"'}
        return JSONResponse(error_body(err), err.status, headers=headers)


def _presented(request: Request) -> _Presented:
    presented = request.scope.get(_KEY)
    if presented is None:  # served without the guard: nothing is let through
        raise ApiError("this request did not pass the pool's security guard")
    return presented


def caller_of(request: Request) -> Caller:
    """Who sent the request, as the daemons' cores take a caller."""
    presented = _presented(request)
    return presented.security.caller(presented.principal())


def require(request: Request, level: Level, what: str) -> None:
    """Refuse the request (401, 403) unless its caller holds ``level`` for ``what``."""
    _presented(request).authorize(level, what)
