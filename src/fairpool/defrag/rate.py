"""How many machines to drain per poll, from a rate that may be fractional (defrag.md §D5).

``DEFRAG_DRAINING_MACHINES_PER_HOUR`` is split into a whole number per poll, a whole
number added at the first poll of each UTC hour, and one added at the first poll of each
UTC day, so fractional rates are kept on a per-day basis (0.5/h is 12 machines just after
midnight). As in condor_defrag, a poll interval above an hour disables draining (the rate
itself is reset: D11-1), and a late first poll after a boundary is pro-rated down.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Quota", "prorate", "quota"]

HOUR = 3600
DAY = 86400


@dataclass(frozen=True)
class Quota:
    """The rate split into per-poll, per-hour and per-day whole numbers."""

    rate: float
    per_poll: int
    per_poll_hour: int
    per_poll_day: int

    def for_poll(self, now: int, prev: int, interval: int) -> int:
        """Machines to drain at a poll at ``now``; ``prev`` is the last poll (0: none)."""
        count = self.per_poll
        if prev != 0:
            if now // HOUR != prev // HOUR:
                count += prorate(self.per_poll_hour, now - now // HOUR * HOUR, HOUR, interval)
            if now // DAY != prev // DAY:
                count += prorate(self.per_poll_day, now - now // DAY * DAY, DAY, interval)
        return count


def quota(per_hour: float, interval: int) -> Quota:
    """Split ``per_hour`` for polls every ``interval`` seconds, as ``Defrag::config`` does."""
    rate = per_hour / HOUR * interval
    per_poll = max(0, math.floor(rate + 0.00001))
    err_hour = (rate - per_poll) / interval * HOUR if interval > 0 else 0.0
    per_poll_hour = math.floor(err_hour + 0.00001)
    if per_hour < 0 or interval > HOUR:
        per_hour = 0.0
    per_poll_day = math.floor((err_hour - per_poll_hour) * 24 + 0.5)
    if per_poll_day < 0 or interval > DAY:
        per_poll_day = 0
    return Quota(per_hour, per_poll, per_poll_hour, per_poll_day)


def prorate(n: int, elapsed: int, period: int, granularity: int) -> int:
    """``n`` scaled by the part of ``period`` still ahead (plus one poll), rounded."""
    fraction = (period - elapsed) / period + granularity / period
    answer = math.floor(n * fraction + 0.5)
    if abs(answer) > abs(n):
        answer = n
    if (n > 0 > answer) or (n < 0 < answer):
        answer = 0
    return answer
