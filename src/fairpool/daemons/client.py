"""Talking to a daemon's API: JSON over HTTP, refusals back as exceptions.

``Api`` (asyncio, for daemons talking to each other) and ``SyncApi`` (for commands) send
JSON and return the JSON answer; a refusal comes back as the ``ApiError`` the daemon
raised (errors.py), and a daemon that cannot be reached as ``Unavailable`` naming it.
Each request carries the process's bearer token, and an HTTPS daemon's certificate is
checked against the CAs the process trusts (security/credentials.py).
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from ..security import credentials
from .errors import ApiError, Unavailable, error_from_body
from .jsonbody import loads

__all__ = ["Api", "SyncApi"]

_TIMEOUT = httpx.Timeout(30.0, connect=5.0)


def _answer(response: httpx.Response) -> Any:
    try:
        body = loads(response.content) if response.content else None
    except ValueError:
        body = None
    if response.status_code >= 400:
        raise error_from_body(response.status_code, body)
    return body


def _unreachable(url: str, err: Exception) -> ApiError:
    return Unavailable(f"cannot reach {url}: {err}")


def _headers(body: bytes | None, token: str | None) -> dict[str, str]:
    headers = {"content-type": "application/json"} if body is not None else {}
    token = token or credentials.bearer()
    if token:
        headers["authorization"] = f"Bearer {token}"
    return headers


class Api:
    """One daemon's API, from an asyncio program."""

    def __init__(
        self, url: str, timeout: httpx.Timeout = _TIMEOUT, token: str | None = None
    ) -> None:
        self.url = url.rstrip("/")
        self.token = token  # None: the process's own (credentials.py)
        self._client = httpx.AsyncClient(timeout=timeout, verify=credentials.trusted())

    async def call(self, method: str, path: str, body: Any = None, **params: Any) -> Any:
        url = f"{self.url}{path}"
        content = None if body is None else json.dumps(body).encode()
        headers = _headers(content, self.token)
        query = {k: v for k, v in params.items() if v is not None}
        try:
            response = await self._client.request(
                method, url, content=content, headers=headers, params=query
            )
        except httpx.HTTPError as err:
            raise _unreachable(url, err) from None
        return _answer(response)

    async def get(self, path: str, **params: Any) -> Any:
        return await self.call("GET", path, **params)

    async def post(self, path: str, body: Any = None) -> Any:
        return await self.call("POST", path, body)

    async def close(self) -> None:
        await self._client.aclose()


class SyncApi:
    """One daemon's API, from a command."""

    def __init__(
        self, url: str, timeout: httpx.Timeout = _TIMEOUT, token: str | None = None
    ) -> None:
        self.url = url.rstrip("/")
        self.token = token  # None: the process's own (credentials.py)
        self._client = httpx.Client(timeout=timeout, verify=credentials.trusted())

    def call(self, method: str, path: str, body: Any = None, **params: Any) -> Any:
        url = f"{self.url}{path}"
        content = None if body is None else json.dumps(body).encode()
        headers = _headers(content, self.token)
        query = {k: v for k, v in params.items() if v is not None}
        try:
            response = self._client.request(
                method, url, content=content, headers=headers, params=query
            )
        except httpx.HTTPError as err:
            raise _unreachable(url, err) from None
        return _answer(response)

    def get(self, path: str, **params: Any) -> Any:
        return self.call("GET", path, **params)

    def post(self, path: str, body: Any = None) -> Any:
        return self.call("POST", path, body)

    def close(self) -> None:
        self._client.close()
