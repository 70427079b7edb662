"""Group commit: writes from an event loop, committed by one thread, several at a time.

A commit that is durable waits for the disk (an fsync, a few milliseconds). A busy schedd
writes at every job start and end; committing each on the event loop stops the whole
daemon for each fsync. Here the loop hands each write over and awaits it, so it goes on
serving other work, and the writes queued while a commit is under way go together in
the next transaction: one fsync for all of them. A commit starts once the loop has run what
it was running when the first write came, so the writes of one step go together too (a
job's exit and the start of the next job on its claim: one fsync, not two). Each caller
still resumes only once its write is on disk, in the order the writes were handed over.
The thread keeps its connection from one commit to the next (taking one from the
engine's pool and giving it back cost as much as a commit's statements); a commit that
fails gives it up, and the next takes a fresh one.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import Connection, Engine

__all__ = ["GroupCommit", "Write", "WriterClosed"]

Write = Callable[[Connection], None]


class WriterClosed(RuntimeError):
    """A write or flush handed to a writer already closed (its daemon is stopping)."""


class GroupCommit:
    """One engine's writer thread."""

    def __init__(self, engine: Engine, on_error: Callable[[Exception], None] | None = None) -> None:
        """``on_error`` hears of each write that fails (its future carries the error too,
        for a caller that awaits it)."""
        self.engine = engine
        self.on_error = on_error
        self._pending: list[tuple[Write, asyncio.Future[None]]] = []
        self._lock = threading.Lock()
        self._draining = False  # the thread commits, or is about to (see write)
        self._due = False  # a commit starts when the loop gets to it
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="group-commit")
        self._connection: Connection | None = None  # the thread's, between commits
        self._closed = False

    def write(self, write: Write) -> asyncio.Future[None]:
        """Hand ``write`` over now (writes commit in the order handed over); the future
        is done once it is on disk, or carries its error. WriterClosed after ``close``."""
        self._must_be_open()
        loop = asyncio.get_running_loop()
        saved: asyncio.Future[None] = loop.create_future()
        with self._lock:
            self._pending.append((write, saved))
            schedule = not self._draining and not self._due
            self._due = self._due or schedule
        if schedule:
            loop.call_soon(self._start)
        return saved

    def flush(self) -> None:
        """Wait until every write handed over is committed (before reading them back)."""
        self._must_be_open()
        self._start()
        self._thread.submit(lambda: None).result()

    def close(self) -> None:
        """Wait for the writes handed over, then stop the thread."""
        self._closed = True
        self._start()
        self._thread.submit(self._let_go)
        self._thread.shutdown(wait=True)

    def _must_be_open(self) -> None:
        if self._closed:
            raise WriterClosed("the database writer is closed: its daemon is stopping")

    def _start(self) -> None:
        """The commit of the writes handed over, on the thread (unless under way)."""
        with self._lock:
            start = self._due and not self._draining
            self._due = False
            self._draining = self._draining or start
        if start:
            self._thread.submit(self._drain)

    def _drain(self) -> None:
        while True:
            with self._lock:
                batch, self._pending = self._pending, []
                if not batch:
                    self._draining = False
                    return
            try:
                if self._connection is None:
                    self._connection = self.engine.connect()
                with self._connection.begin():
                    for write, _ in batch:
                        write(self._connection)
            except Exception:
                self._let_go()
                outcomes = self._one_by_one(batch)  # only the writes that fail report it
            else:
                outcomes = [(saved, None) for _, saved in batch]
            _settle(outcomes, self.on_error)

    def _let_go(self) -> None:
        """Give the thread's connection back (it failed, or the writer closes)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(Exception):
                connection.close()

    def _one_by_one(self, batch: list[tuple[Write, asyncio.Future[None]]]) -> list[_Outcome]:
        outcomes: list[_Outcome] = []
        for write, saved in batch:
            try:
                with self.engine.begin() as conn:
                    write(conn)
            except Exception as err:
                outcomes.append((saved, err))
            else:
                outcomes.append((saved, None))
        return outcomes


_Outcome = tuple[asyncio.Future[None], Exception | None]


def _settle(outcomes: list[_Outcome], on_error: Callable[[Exception], None] | None) -> None:
    """Tell the loop how a batch went, in one call (one wake-up for all its writes)."""
    loop = outcomes[0][0].get_loop()
    with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits
        loop.call_soon_threadsafe(_resolve, outcomes, on_error)


def _resolve(outcomes: list[_Outcome], on_error: Callable[[Exception], None] | None) -> None:
    for saved, error in outcomes:
        if error is not None and on_error is not None:
            on_error(error)
        if saved.done():  # cancelled: its caller stopped waiting
            continue
        if error is None:
            saved.set_result(None)
        else:
            saved.set_exception(error)
            if on_error is not None:
                saved.exception()  # heard of: no warning when nobody awaits it
