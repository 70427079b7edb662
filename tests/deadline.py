"""A time limit for a block of test code: a hang fails the test instead of stalling the run.

``with deadline(30): ...`` raises ``Hang`` (an AssertionError) if the block runs longer than
30 seconds. It is a guard against hangs, not a speed test: the limits are many times what
the code needs (speeds are measured in benchmarks/). Main thread only (SIGALRM).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["Hang", "deadline"]


class Hang(AssertionError):
    """The block did not finish within its deadline."""


@contextmanager
def deadline(seconds: float, what: str = "the code") -> Iterator[None]:
    def expired(signum, frame):
        raise Hang(f"{what} did not finish within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
