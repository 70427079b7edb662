"""The collectors of COLLECTOR_HOST, as the daemons of one process reach them.

HTCondor's high availability configuration lists several collectors
(``COLLECTOR_HOST = cm1:9618, cm2:9618``): every daemon sends each update to all of
them, and a query goes to the first that answers, in order, as HTCondor's tools do.

* Updates and invalidations go to every collector at once (concurrently). The collector
  of this process, when it is one of the list, takes them directly (no HTTP); the
  others get them over HTTP, with short timeouts, in the order they were made.
* A collector that cannot be reached is logged once when it goes and once when it
  answers again, never at every update. While it is down it is tried again no more
  often than every ``RETRY`` seconds, so that a host that drops packets costs one
  connect timeout per ``RETRY``, not one per update; an update to the others never
  waits for it. What it misses it counts as lost when it hears from the daemon again.
* Every ad sent carries an ``UpdateSequenceNumber`` (per ad: 0 at its first update, one
  more at each), from which each collector counts the updates it lost (HTCondor's
  UpdatesLost: update_stats.py).
* Queries go to this process's own collector first (it gets every update, as every
  daemon sends to all), then to the others in the order listed, those known to be down
  last.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

import httpx

from .client import Api
from .errors import ApiError, Unavailable

if TYPE_CHECKING:
    from .context import Context

__all__ = ["RETRY", "Collectors"]

RETRY = 5.0  # seconds between tries of a collector that did not answer
_TIMEOUT = httpx.Timeout(10.0, connect=2.0)


class _Link:
    """One collector of the list, and whether it answers."""

    def __init__(self, url: str, own: bool) -> None:
        self.url = url
        self.own = own
        self.api = Api(url, timeout=_TIMEOUT)
        self.lock = asyncio.Lock()  # updates reach it in the order they were made
        self.state = ""  # "is down" or "refuses" after an update that did not go in
        self.retry_at = 0.0

    @property
    def down(self) -> bool:
        return self.state == "is down"

    def skipped(self) -> bool:
        """Down and not to be tried again yet."""
        return self.down and time.monotonic() < self.retry_at


class Collectors:
    """Every collector of COLLECTOR_HOST, for the daemons of one process."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        own = ctx.daemon_url("collector") if ctx.url else None
        self.links = [
            _Link(own, True) if number == ctx.own_collector and own else _Link(entry.url, False)
            for number, entry in enumerate(ctx.collector_hosts)
        ]
        self.sequence: dict[tuple[str, str, str], int] = {}  # ad -> last number sent
        self.log = ctx.logger("master")

    @property
    def urls(self) -> list[str]:
        """The collectors' APIs, in the order queries try them."""
        return [link.url for link in self._query_order()]

    def _local(self, link: _Link) -> Any:
        return self.ctx.local.get("collector") if link.own else None

    # -- updates --------------------------------------------------------------------------
    async def update(self, ads: list[dict[str, Any]], private: dict | None = None) -> None:
        """Advertise ads (JSON) to every collector, each numbered as the next update of
        its ad."""
        for ad in ads:
            key = _key(ad)
            number = self.sequence[key] = self.sequence.get(key, -1) + 1
            ad["UpdateSequenceNumber"] = number
        body: dict[str, Any] = {"ads": ads}
        if private:
            body["private"] = private
        await self._everywhere("/update", body)

    async def invalidate(self, kind: str, **how: Any) -> None:
        """Remove ads of a type (``names=[...]`` or ``constraint=...``) from every
        collector."""
        for name in how.get("names") or ():
            for key in [k for k in self.sequence if k[:2] == (kind.lower(), name)]:
                del self.sequence[key]
        await self._everywhere("/invalidate", {"type": kind, **how})

    async def _everywhere(self, path: str, body: dict[str, Any]) -> None:
        sends = []
        for link in self.links:
            local = self._local(link)
            if local is not None:
                self._direct(link, local, path, body)
            elif not link.skipped():
                sends.append(self._send(link, path, body))
        if sends:
            await asyncio.gather(*sends)

    def _direct(self, link: _Link, local: Any, path: str, body: dict[str, Any]) -> None:
        try:
            if path == "/update":
                local.take_update(body)
            else:
                local.take_invalidation(body)
        except ApiError as err:
            self._went_wrong(link, "refuses", str(err))
        else:
            self._went_right(link)

    async def _send(self, link: _Link, path: str, body: dict[str, Any]) -> None:
        async with link.lock:
            try:
                await link.api.post(path, body)
            except Unavailable as err:
                link.retry_at = time.monotonic() + RETRY
                self._went_wrong(link, "is down", str(err))
            except ApiError as err:
                self._went_wrong(link, "refuses", str(err))
            else:
                self._went_right(link)

    def _went_wrong(self, link: _Link, state: str, why: str) -> None:
        """Logged once per outage (or run of refusals), not at every update."""
        if link.state != state:
            self.log.warning("collector %s %s (%s): what it misses is lost", link.url, state, why)
        link.state = state

    def _went_right(self, link: _Link) -> None:
        if link.state:
            self.log.warning("collector %s takes updates again", link.url)
        link.state = ""

    # -- queries --------------------------------------------------------------------------
    def _query_order(self) -> list[_Link]:
        return sorted(self.links, key=lambda link: (not link.own, link.down))

    async def get(self, path: str, **params: Any) -> Any:
        """The answer of the first collector that answers."""
        failures = []
        for link in self._query_order():
            try:
                return await link.api.get(path, **params)
            except Unavailable as err:
                failures.append(str(err))
                link.retry_at = time.monotonic() + RETRY
                self._went_wrong(link, "is down", str(err))
        raise Unavailable("; ".join(failures) or "no collector: COLLECTOR_HOST is empty")

    async def close(self) -> None:
        for link in self.links:
            await link.api.close()


def _key(ad: dict[str, Any]) -> tuple[str, str, str]:
    """An ad's identity as the collector keys it: type, name (and a Submitter's schedd)."""
    return (str(ad.get("MyType")).lower(), str(ad.get("Name")), str(ad.get("ScheddName", "")))
