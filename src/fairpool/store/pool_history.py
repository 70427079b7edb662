"""The HTCondorView server's history of the pool (KEEP_POOL_HISTORY): samples on disk.

Each sample, taken every POOL_HISTORY_SAMPLING_INTERVAL by the collector, records every
slot's State and Activity and every submitter's running and idle jobs, under one
timestamp. They live in ``POOL_HISTORY_DIR/pool_history.sqlite3``, a database of their
own (HTCondor keeps its own files there too, apart from the spool), each sample written in
one transaction. When the data outgrow POOL_HISTORY_MAX_STORAGE bytes the oldest samples
are deleted, as HTCondor's view server drops its oldest files.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    delete,
    event,
    insert,
    select,
    text,
)

from ..errors import StateError
from .database import database_errors

__all__ = ["HISTORY_NAME", "PoolHistory", "ResourceSample", "SubmitterSample"]

HISTORY_NAME = "pool_history.sqlite3"
_METADATA = MetaData()

_resources = Table(
    "resource_samples",
    _METADATA,
    Column("time", Float, nullable=False, index=True),
    Column("name", String, nullable=False),
    Column("state", String, nullable=False),
    Column("activity", String, nullable=False),
)
_submitters = Table(
    "submitter_samples",
    _METADATA,
    Column("time", Float, nullable=False, index=True),
    Column("name", String, nullable=False),
    Column("running", Integer, nullable=False),
    Column("idle", Integer, nullable=False),
)


@dataclass(frozen=True)
class ResourceSample:
    time: float
    name: str
    state: str
    activity: str


@dataclass(frozen=True)
class SubmitterSample:
    time: float
    name: str
    running: int
    idle: int


class PoolHistory:
    """The samples under POOL_HISTORY_DIR."""

    def __init__(self, directory: Path, max_storage: int) -> None:
        self.path = directory / HISTORY_NAME
        self.max_storage = max_storage
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise StateError(f"cannot create it: {err.strerror}", str(directory)) from None
        with database_errors(str(self.path)):
            self.engine = create_engine(f"sqlite:///{self.path}")
            event.listen(self.engine, "connect", _pragmas)
            _METADATA.create_all(self.engine)

    def record(
        self,
        now: float,
        resources: Iterable[tuple[str, str, str]],
        submitters: Iterable[tuple[str, int, int]],
    ) -> None:
        """One sample: (name, state, activity) per slot, (name, running, idle) per
        submitter."""
        slots = [{"time": now, "name": n, "state": s, "activity": a} for n, s, a in resources]
        users = [{"time": now, "name": n, "running": r, "idle": i} for n, r, i in submitters]
        with database_errors(str(self.path)), self.engine.begin() as conn:
            if slots:
                conn.execute(insert(_resources), slots)
            if users:
                conn.execute(insert(_submitters), users)
        self._bound()

    def _used(self) -> int:
        with self.engine.connect() as conn:
            pages = conn.execute(text("PRAGMA page_count")).scalar() or 0
            free = conn.execute(text("PRAGMA freelist_count")).scalar() or 0
            size = conn.execute(text("PRAGMA page_size")).scalar() or 0
        return (pages - free) * size

    def _bound(self) -> None:
        """Delete the oldest samples while the data take more than the maximum (the file
        keeps its freed pages for the next samples)."""
        with database_errors(str(self.path)):
            for _ in range(64):  # each round drops the oldest tenth of the samples
                if self._used() <= self.max_storage:
                    return
                with self.engine.begin() as conn:
                    ordered = sorted(
                        {
                            *conn.execute(select(_resources.c.time).distinct()).scalars(),
                            *conn.execute(select(_submitters.c.time).distinct()).scalars(),
                        }
                    )
                    if len(ordered) <= 1:
                        return
                    cut = ordered[max(1, len(ordered) // 10) - 1]
                    conn.execute(delete(_resources).where(_resources.c.time <= cut))
                    conn.execute(delete(_submitters).where(_submitters.c.time <= cut))

    def resources(self, since: float, until: float, name: str | None) -> list[ResourceSample]:
        query = select(_resources).where(_resources.c.time.between(since, until))
        if name is not None:
            query = query.where(_resources.c.name == name)
        with database_errors(str(self.path)), self.engine.connect() as conn:
            rows = conn.execute(query.order_by(_resources.c.time, _resources.c.name)).all()
        return [ResourceSample(r.time, r.name, r.state, r.activity) for r in rows]

    def submitters(self, since: float, until: float, name: str | None) -> list[SubmitterSample]:
        query = select(_submitters).where(_submitters.c.time.between(since, until))
        if name is not None:
            query = query.where(_submitters.c.name == name)
        with database_errors(str(self.path)), self.engine.connect() as conn:
            rows = conn.execute(query.order_by(_submitters.c.time, _submitters.c.name)).all()
        return [SubmitterSample(r.time, r.name, r.running, r.idle) for r in rows]

    def names(self, kind: str) -> list[str]:
        table = _resources if kind == "resource" else _submitters
        with database_errors(str(self.path)), self.engine.connect() as conn:
            found = conn.execute(select(table.c.name).distinct().order_by(table.c.name))
            return list(found.scalars())

    def close(self) -> None:
        self.engine.dispose()


def _pragmas(connection, _record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()
