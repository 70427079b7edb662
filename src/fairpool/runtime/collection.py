"""Python's cyclic garbage collector in a long-running daemon process.

A schedd holding 100,000 jobs keeps millions of container objects alive as long as the
jobs are queued, and a full collection walks every one of them (half a second on a
small machine). The interpreter runs one whenever the objects that survived the younger
collections have grown by a quarter, so a submission, a cycle's matches or a burst of
job starts paid for walking the whole queue again, several times over.

What survives a full collection is live, so it is moved out of the collector's way
(``gc.freeze``): the next full collections walk only what came since. Frozen objects
are still freed by reference counting when they go; only a reference cycle among them
that becomes garbage later is not found, so once every ``THAW_AFTER`` seconds they are
thawed and the next full collection examines the whole heap again.

The daemons' process makes short-lived container objects fast as well (each job's start
and end: futures, a task, events, rows, ads' tables), and at CPython's threshold of 700
its youngest generation was collected every sixty or so jobs of the job-start benchmark,
each collection walking what was still alive of the last ones' work and every middle
collection walking the survivors of ten: 400 young and 37 middle collections, 0.12 s of
CPU, in a run of 8,000 jobs (its submission included). ``freeze_survivors`` lets the
youngest grow to 10,000 objects (``DAEMON_THRESHOLDS``): 18 and 2 collections, 0.04 s,
more of the young objects gone by reference counting before any collection looks at
them.

A simulation is the same in a batch: its queue, its ledger and its records live for the
whole run (full collections took a fifth of the month story's time), and it makes
objects that live on so fast that the youngest generation filled every few hundred
microseconds. A run inside ``batch_collection`` lets the youngest generation grow to a
million objects before it is collected (the month story's first 3 days: 43.6 s -> 38.1 s
of CPU at ten thousand; at a million, its collections took 0.02 s instead of 1.0 s and
its peak memory was the same; a run may hold up to that many young objects more), and
freezes what survives *every* collection, not only a full one: the middle generation's
collections walked the last hundred thousand survivors again each time (a tenth of the
month's time; 24.5 s -> 22.4 s of CPU for its first 3 days). Garbage in a reference
cycle whose objects were frozen first is then found only after a thaw, so a batch run
thaws whenever the frozen heap has doubled since the last full collection that walked it
all: what it may hold back is bounded by what lives, and walking the whole heap at each
doubling costs in all about one more walk of it. The process's collector is as it was
afterwards, the run's objects all in its oldest generation.

A one-shot command (``fairpool simulate``) ends with its run's objects still in memory,
much of them garbage in reference cycles (the run's processes and callbacks hold the
simulation): the interpreter's exit collected them in a last full collection and freed
them one by one, 2.3 s of a 3-day month story's 26 s. ``leave_heap_at_exit`` freezes the
heap as the process exits, after the command's files are written and closed, and leaves
the memory to the operating system.
"""

from __future__ import annotations

import atexit
import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = [
    "BATCH_THRESHOLDS",
    "DAEMON_THRESHOLDS",
    "THAW_AFTER",
    "YOUNG_FROZEN_FLOOR",
    "batch_collection",
    "freeze_survivors",
    "leave_heap_at_exit",
]

THAW_AFTER = 3600.0
_OLDEST = 2  # CPython's generations: 0, 1, 2
BATCH_THRESHOLDS = (1_000_000, 10, 10)  # gc.set_threshold in a batch run (CPython: 700)
YOUNG_FROZEN_FLOOR = 1_000_000  # a batch run's frozen heap may double from at least this
DAEMON_THRESHOLDS = (10_000, 10, 10)  # gc.set_threshold in the daemons' process


def freeze_survivors(thaw_after: float = THAW_AFTER) -> None:
    """From now on, freeze what survives each full collection in this process, and let
    the youngest generation grow to ``DAEMON_THRESHOLDS`` (call once, from the program
    that runs the daemons: it changes the whole process)."""
    gc.callbacks.append(_freezer(thaw_after))
    gc.set_threshold(*DAEMON_THRESHOLDS)


@contextmanager
def batch_collection() -> Iterator[None]:
    """Collect garbage as suits one long batch run (a simulation) while inside."""
    thresholds = gc.get_threshold()
    freezer = _freezer(THAW_AFTER, young=True)
    gc.callbacks.append(freezer)
    gc.set_threshold(*BATCH_THRESHOLDS)
    try:
        yield
    finally:
        gc.callbacks.remove(freezer)
        gc.set_threshold(*thresholds)
        gc.freeze()  # the young generation too: all of it old, not walked young at once
        gc.unfreeze()


def leave_heap_at_exit() -> None:
    """At this process's exit, collect no garbage: freeze the heap instead (see the module
    docstring). Only for a process whose objects need no finalizer at exit (open files
    closed, connections ended): garbage in a reference cycle is never finalized."""
    atexit.unregister(gc.freeze)  # once, however often called
    atexit.register(gc.freeze)


def _freezer(thaw_after: float, young: bool = False) -> Callable[[str, dict[str, int]], None]:
    """A gc callback that freezes after each full collection (and each younger one, when
    ``young``), but thaws instead once ``thaw_after`` seconds have passed since the last
    thaw (or, when ``young``, once the frozen heap has doubled since a full collection
    last walked it all); after a thaw nothing is frozen until the next full collection
    has walked the whole heap."""
    thawed = time.monotonic()
    walked = 0  # objects frozen right after the last full collection of the whole heap
    waiting = False  # thawed: the next full collection walks everything

    def after(phase: str, info: dict[str, int]) -> None:
        nonlocal thawed, walked, waiting
        full = info["generation"] == _OLDEST
        if phase != "stop" or not (full or (young and not waiting)):
            return
        if full and (time.monotonic() - thawed >= thaw_after or (young and _doubled(walked))):
            thawed, waiting = time.monotonic(), True
            gc.unfreeze()  # the next full collection looks at everything again
            return
        gc.freeze()
        if full and waiting:
            waiting, walked = False, gc.get_freeze_count()

    return after


def _doubled(walked: int) -> bool:
    """Whether the frozen heap has doubled since ``walked`` (counting it walks it all: only
    at a full collection, a few hundred times rarer than the young ones)."""
    return gc.get_freeze_count() > 2 * max(walked, YOUNG_FROZEN_FLOOR)
