"""Each submitter's idle jobs in queue order, read only as far as the reader goes.

Claim reuse (claims.py) runs the submitter's first idle job in queue order that fits the
slot, every time a job exits; sorting every idle job each time made a queue of 100,000
idle jobs cost tens of milliseconds per job start. Each submitter keeps its entries
(place in the queue, job) sorted by place. A job that stops being idle leaves its entry
behind, for the queue to judge (``live``): entries at the head are dropped as readers
pass them, and all of them at once when they are most of the list.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Iterator

from ..classad import ClassAd

__all__ = ["IdleOrder"]

_Entry = tuple[int, str]  # (place in the queue, job)


class IdleOrder:
    """Idle jobs by submitter, in queue order, with entries left by jobs that went."""

    def __init__(self) -> None:
        self._entries: dict[str, list[_Entry]] = {}
        self._idle: Counter[str] = Counter()  # the live entries of each submitter

    def add(self, submitter: str, place: int, name: str) -> None:
        """A job of ``submitter`` became idle (its entry may still be there)."""
        self._idle[submitter] += 1
        entries = self._entries.setdefault(submitter, [])
        entry = (place, name)
        if not entries or entries[-1] < entry:
            entries.append(entry)  # the usual case: a newly queued job
            return
        at = bisect.bisect_left(entries, entry)
        if at == len(entries) or entries[at] != entry:
            entries.insert(at, entry)

    def remove(self, submitter: str) -> None:
        """A job of ``submitter`` stopped being idle (its entry stays, for now)."""
        self._idle[submitter] -= 1
        if self._idle[submitter] <= 0:
            del self._idle[submitter]

    def read(
        self, submitter: str, live: Callable[[str, int, str], ClassAd | None]
    ) -> Iterator[ClassAd]:
        """The submitter's idle jobs in queue order: ``live(submitter, place, name)``
        gives the job of an entry that still stands for an idle job, else None. Jobs
        may come and go between reads: each read goes on after the last job it gave."""
        entries = self._entries.get(submitter)
        if not entries:
            return
        if len(entries) > 64 and len(entries) > 2 * self._idle[submitter]:
            entries[:] = [e for e in entries if live(submitter, *e) is not None]
        gone = 0
        while gone < len(entries) and live(submitter, *entries[gone]) is None:
            gone += 1
        del entries[:gone]  # passed by every reader from now on
        at = 0
        while at < len(entries):
            entry = entries[at]
            job = live(submitter, *entry)
            if job is None:
                at += 1
                continue
            yield job
            at = bisect.bisect_right(entries, entry)
