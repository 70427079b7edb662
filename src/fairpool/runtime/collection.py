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

A simulation is the same in a batch: its queue, its ledger and its records live for the
whole run (full collections took a fifth of the month story's time), and it makes
objects that live on so fast that the youngest generation filled every few hundred
microseconds. A run inside ``batch_collection`` freezes survivors and lets the youngest
generation grow larger before it is collected (the month story's first 3 days: 43.6 s
-> 38.1 s of CPU); the process's collector is as it was afterwards.

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
    "THAW_AFTER",
    "batch_collection",
    "freeze_survivors",
    "leave_heap_at_exit",
]

THAW_AFTER = 3600.0
_OLDEST = 2  # CPython's generations: 0, 1, 2
BATCH_THRESHOLDS = (10_000, 10, 10)  # gc.set_threshold in a batch run (CPython's: 700, 10, 10)


def freeze_survivors(thaw_after: float = THAW_AFTER) -> None:
    """From now on, freeze what survives each full collection in this process (call once,
    from the program that runs the daemons: it changes the whole process)."""
    gc.callbacks.append(_freezer(thaw_after))


@contextmanager
def batch_collection() -> Iterator[None]:
    """Collect garbage as suits one long batch run (a simulation) while inside."""
    thresholds = gc.get_threshold()
    freezer = _freezer(THAW_AFTER)
    gc.callbacks.append(freezer)
    gc.set_threshold(*BATCH_THRESHOLDS)
    try:
        yield
    finally:
        gc.callbacks.remove(freezer)
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def leave_heap_at_exit() -> None:
    """At this process's exit, collect no garbage: freeze the heap instead (see the module
    docstring). Only for a process whose objects need no finalizer at exit (open files
    closed, connections ended): garbage in a reference cycle is never finalized."""
    atexit.unregister(gc.freeze)  # once, however often called
    atexit.register(gc.freeze)


def _freezer(thaw_after: float) -> Callable[[str, dict[str, int]], None]:
    """A gc callback that freezes after each full collection, but thaws instead once
    ``thaw_after`` seconds have passed since the last thaw."""
    thawed = time.monotonic()

    def after(phase: str, info: dict[str, int]) -> None:
        nonlocal thawed
        if phase != "stop" or info["generation"] != _OLDEST:
            return
        if time.monotonic() - thawed >= thaw_after:
            thawed = time.monotonic()
            gc.unfreeze()  # the next full collection looks at everything again
        else:
            gc.freeze()

    return after
