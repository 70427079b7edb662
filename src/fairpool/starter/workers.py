"""A few threads that run what the starter process hands them, in the order handed.

The starter hands each job's exec to a thread (it waits for the new process) and each
finish that copies files back. An executor makes a future, a work item and a semaphore
check for every task, which nobody here reads; a queue and long-lived threads do the
same work for less of the starter's CPU per job.
"""

from __future__ import annotations

import queue
import threading
import traceback
from collections.abc import Callable
from typing import Any

__all__ = ["Workers"]


class Workers:
    """``count`` threads named ``name_<n>`` taking work from one queue."""

    def __init__(self, count: int, name: str) -> None:
        self._queue: queue.SimpleQueue[tuple[Callable[..., Any], tuple] | None]
        self._queue = queue.SimpleQueue()
        self._threads = [
            threading.Thread(target=self._work, name=f"{name}_{n}", daemon=True)
            for n in range(count)
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, work: Callable[..., Any], *args: Any) -> None:
        """Run ``work(*args)`` in one of the threads, after what was handed before."""
        self._queue.put((work, args))

    def shutdown(self) -> None:
        """Wait for everything handed over, then end the threads (again: nothing)."""
        for _ in self._threads:
            self._queue.put(None)
        for thread in self._threads:
            thread.join()
        self._threads = []

    def _work(self) -> None:
        while (item := self._queue.get()) is not None:
            work, args = item
            try:
                work(*args)
            except Exception:  # the work's own trouble: this thread goes on
                traceback.print_exc()
