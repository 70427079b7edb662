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
"""

from __future__ import annotations

import gc
import time

__all__ = ["THAW_AFTER", "freeze_survivors"]

THAW_AFTER = 3600.0
_OLDEST = 2  # CPython's generations: 0, 1, 2


def freeze_survivors(thaw_after: float = THAW_AFTER) -> None:
    """From now on, freeze what survives each full collection in this process (call once,
    from the program that runs the daemons: it changes the whole process)."""
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

    gc.callbacks.append(after)
