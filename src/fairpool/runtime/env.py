"""One event heap, in SimPy's shape: what runs when, on a clock someone else advances.

The simulator runs it as fast as it can (``run(until=...)`` jumps from event to event);
the live pool will pace the same heap by the wall clock. Daemons are written once, as
callbacks and generator processes against an ``Environment``.

Events at the same time run in the order they were scheduled (a sequence number breaks
the tie), so a run is deterministic.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

__all__ = ["Environment", "Event", "Process"]

Callback = Callable[[], Any]


@dataclass(eq=False)
class Event:
    """A callback due at ``time``; cancelled events stay in the heap and are skipped."""

    time: float
    sequence: int
    callback: Callback
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


class Process:
    """A generator that yields delays (seconds) and is resumed after each."""

    def __init__(self, env: Environment, generator: Generator[float, None, None]) -> None:
        self.env = env
        self.generator = generator
        self.alive = True
        env.schedule(0.0, self._resume)

    def _resume(self) -> None:
        try:
            delay = next(self.generator)
        except StopIteration:
            self.alive = False
            return
        self.env.schedule(delay, self._resume)


class Environment:
    """The clock and the heap of what is due."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = start
        # (time, sequence, event): tuples compare in C, and sequence numbers never tie
        self._heap: list[tuple[float, int, Event]] = []
        self._counter = itertools.count()

    def schedule(self, delay: float, callback: Callback) -> Event:
        """Run ``callback`` ``delay`` seconds from now."""
        if delay < 0:
            raise ValueError(f"cannot schedule {delay} seconds in the past")
        return self.at(self.now + delay, callback)

    def at(self, when: float, callback: Callback) -> Event:
        """Run ``callback`` at time ``when`` (not before now)."""
        event = Event(max(when, self.now), next(self._counter), callback)
        heapq.heappush(self._heap, (event.time, event.sequence, event))
        return event

    def process(self, generator: Generator[float, None, None]) -> Process:
        """Start a generator process now."""
        return Process(self, generator)

    def peek(self) -> float:
        """When the next event is due (infinity when nothing is)."""
        heap = self._heap
        while heap and heap[0][2].cancelled:
            heapq.heappop(heap)
        return heap[0][0] if heap else float("inf")

    def step(self) -> None:
        """Advance to the next event and run it."""
        if self.peek() == float("inf"):
            raise RuntimeError("no event is scheduled")
        self._run_first()

    def _run_first(self) -> None:
        """Run the first event of the heap (known to be due and not cancelled)."""
        event = heapq.heappop(self._heap)[2]
        self.now = event.time
        event.callback()

    def run(self, until: float | None = None) -> None:
        """Run events in time order until none is left or the next is after ``until``
        (then the clock stops at ``until``)."""
        while (due := self.peek()) != float("inf"):
            if until is not None and due > until:
                break
            self._run_first()  # step(), without looking at the heap twice
        if until is not None and until > self.now:
            self.now = until
