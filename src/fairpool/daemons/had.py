"""High availability of the central manager: whether this central manager's negotiator
is the active one.

HTCondor's condor_had daemons elect the active central manager among themselves and
start or stop its negotiator; in fairpool the database the central managers share
decides (store/leadership.py), and the negotiator of every central manager runs, active
or standing by. Every HAD_CONNECTION_TIMEOUT each one records its contact and takes or
renews the lease, which lasts the stabilization period. The holder is *active* only
until a deadline on its own monotonic clock: the moment its last successful renewal was
sent, plus the lease, less two timeouts. The database lets another take the lease only
after its expiry, which it counted from a later moment (when the renewal arrived), so a
holder that can no longer renew (its database connection cut, its process stopped)
stops negotiating before any other can start. Whatever the database then answers late
is judged by when it was asked.

* Becoming active: the accountant is read again from the database (the former holder's
  last committed cycle), then cycles start at once.
* Standing by: no cycles, no Negotiator or Accounting ads, no accountant edits.
* HAD_USE_PRIMARY: an active central manager other than the primary that sees the
  primary's contact hands over: it starts no new cycle, lets a running one finish, stops,
  then releases the lease, which the primary takes at its next attempt.
* A clean stop of the active central manager releases the lease too.

Each cycle's commit is fenced by the lease (negotiator.py), and its matches are sent only
before the deadline. The HAD ad (HTCondor's ``HadIsActive``, ``HadList``, ``HadIndex``,
``HadSelfID``, ``HadControlleeName``) says which one is active.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any

from ..classad import ClassAd
from ..errors import StateError
from ..store.leadership import Lease, Standing
from .context import Context
from .had_config import HadSettings

if TYPE_CHECKING:
    from .negotiator import Negotiator

__all__ = ["Had"]


class Had:
    """This central manager's standing in its HA group."""

    def __init__(self, ctx: Context, negotiator: Negotiator, settings: HadSettings, group: str):
        self.ctx, self.negotiator, self.settings = ctx, negotiator, settings
        self.log = negotiator.log
        timeout = settings.timeout
        self.lease = Lease(
            ctx.engine,
            group,
            settings.me,
            settings.stabilization,
            primary=settings.primary,
            fresh=3 * timeout,
            bound=max(1.0, timeout),
        )
        self.term = 0
        self.holding = False
        self.deadline = 0.0  # monotonic: active until then
        self.handing_over = False
        self.holder = ""  # the holder the last attempt saw
        self.since: float | None = None  # wall clock: active since, or standing by since
        self._attempt_task: asyncio.Task | None = None
        self._next_ad = 0.0  # monotonic: the next HAD ad (HAD_UPDATE_INTERVAL)
        self._timer = ctx.env.schedule(0.0, self._tick)

    # -- what the negotiator asks -------------------------------------------------------
    def active(self) -> bool:
        """Holding the lease, before the deadline: matches may be sent."""
        return self.holding and time.monotonic() < self.deadline

    def may_start(self) -> bool:
        """A new cycle may begin."""
        return self.active() and not self.handing_over

    @property
    def list_text(self) -> str:
        return ", ".join(self.settings.entries)

    def status(self) -> dict[str, Any]:
        self._expire()  # "standing by since" is never an old "active since"
        return {
            "active": self.active(),
            "self": self.settings.me,
            "list": list(self.settings.entries),
            "index": self.settings.index,
            "holder": self.holder,
            "term": self.term if self.holding else None,
            "since": self.since,
            "use_primary": self.settings.use_primary,
            "stabilization_period": self.settings.stabilization,
        }

    def ad(self) -> ClassAd:
        """The HAD ad, as condor_had publishes one."""
        return ClassAd(
            {
                "MyType": "HAD",
                "Name": self.settings.me,
                "Machine": self.ctx.host,
                **self.ctx.identity(),
                "DaemonStartTime": int(self.ctx.started),
                "HadIsActive": self.active(),
                "HadList": self.list_text,
                "HadIndex": self.settings.index,
                "HadSelfID": self.settings.me,
                "HadControlleeName": "NEGOTIATOR",
                "HadUsePrimary": self.settings.use_primary,
                "HadStabilizationPeriod": self.settings.stabilization,
            }
        )

    # -- the timer ----------------------------------------------------------------------
    def _tick(self) -> None:
        self._timer = self.ctx.env.schedule(self.settings.timeout, self._tick)
        now = time.monotonic()
        self._expire()
        if now >= self._next_ad:
            self._next_ad = now + self.settings.update_interval
            self.negotiator.spawn(self.negotiator.advertise())
        if self._attempt_task is None or self._attempt_task.done():
            task = asyncio.get_running_loop().create_task(self._attempt())
            self._attempt_task = task

    async def _attempt(self) -> None:
        sent = time.monotonic()
        try:
            standing = await asyncio.to_thread(self.lease.attempt, not self.handing_over)
        except StateError as err:
            self.log.info("HAD: cannot reach the database: %s", err)
            return
        self.holder = standing.holder
        deadline = sent + self.settings.stabilization - 2 * self.settings.timeout
        if standing.mine and deadline > time.monotonic():
            if self.holding and standing.term == self.term:
                self.deadline = max(self.deadline, deadline)
            else:
                await self._start(standing, deadline)
        elif self.holding and standing.primary_up and standing.holder == self.settings.me:
            await self._hand_over()
        elif self.holding:
            self._stop(f"the lease is {standing.holder or 'no one'}'s (term {standing.term})")

    async def _start(self, standing: Standing, deadline: float) -> None:
        """Take the lease's new term: read the accountant again, then negotiate."""
        try:
            await self.negotiator.reload()
        except StateError as err:
            self.log.info("HAD: cannot read the accountant: %s", err)
            return
        self.term, self.holding, self.deadline = standing.term, True, deadline
        self.since = time.time()
        self.log.info("HAD: active (term %d of the lease)", self.term)
        self.negotiator.became_active()

    def _expire(self) -> None:
        """Stand by once the deadline has passed, dated when it passed."""
        late = time.monotonic() - self.deadline
        if self.holding and late >= 0:
            why = "its lease ran out (no renewal reached the database in time)"
            self._stop(why, time.time() - late)

    def _stop(self, why: str, at: float | None = None) -> None:
        if not self.holding:
            return
        self.holding = False
        self.since = time.time() if at is None else at
        self.log.info("HAD: standing by: %s", why)
        self.negotiator.became_standby()

    async def _hand_over(self) -> None:
        """HAD_USE_PRIMARY: let the primary have the lease."""
        self.handing_over = True
        try:
            async with self.negotiator.lock:  # a running cycle finishes first
                self._stop(f"the primary {self.settings.primary} is up: handing over")
            await asyncio.to_thread(self.lease.release, self.term)
        except StateError as err:
            self.log.info("HAD: cannot release the lease: %s", err)
        finally:
            self.handing_over = False

    async def close(self) -> None:
        """A clean stop: release the lease, so that a standby takes it at once."""
        self._timer.cancel()
        if self._attempt_task is not None:
            self._attempt_task.cancel()
        if self.holding:
            self.holding = False
            with contextlib.suppress(StateError, TimeoutError):
                release = asyncio.to_thread(self.lease.release, self.term)
                await asyncio.wait_for(release, self.settings.timeout)
