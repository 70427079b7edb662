"""The event heap paced by the wall clock, for the live pool's daemons.

The live pool runs the simulator's ``Environment`` (env.py), with ``now`` read from the
wall clock instead of jumping from event to event: ``run()`` is an asyncio task that
sleeps until the next event is due (or until an earlier one is scheduled) and then
runs every event whose time has come. So the daemons' timers (the negotiator's cycle,
the collector's expiry, the startd's evaluation passes, the schedd's updates) are events
on one heap, as in the simulator: there is no second scheduling loop.

An event's callback runs on the event loop; one that raises is logged and the heap goes
on (a daemon's timer must not stop the others). Work that waits on the network is
started from a callback as an asyncio task.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from .env import Callback, Environment, Event

__all__ = ["RealtimeEnvironment"]

_log = logging.getLogger(__name__)
_LONGEST_SLEEP = 3600.0


class RealtimeEnvironment(Environment):
    """An ``Environment`` whose clock is the wall clock (epoch seconds)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._wakeup: asyncio.Event | None = None
        super().__init__(clock())

    @property  # type: ignore[override]
    def now(self) -> float:
        return self._clock()

    @now.setter
    def now(self, value: float) -> None:
        """The wall clock is not set: the heap only reads it."""

    def at(self, when: float, callback: Callback) -> Event:
        event = super().at(when, callback)
        if self._wakeup is not None:
            self._wakeup.set()  # it may be due before the runner's current sleep ends
        return event

    async def run(self) -> None:  # type: ignore[override]
        """Run events as they fall due, until cancelled."""
        self._wakeup = asyncio.Event()
        try:
            while True:
                due = self.peek() - self._clock()
                if due > 0:
                    self._wakeup.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._wakeup.wait(), min(due, _LONGEST_SLEEP))
                    continue
                try:
                    self.step()
                except Exception:
                    _log.exception("a timer failed")
                await asyncio.sleep(0)  # let requests in between events
        finally:
            self._wakeup = None
