"""The HTCondorView server's history of the pool (KEEP_POOL_HISTORY): samples on disk.

Each sample, taken every POOL_HISTORY_SAMPLING_INTERVAL by the collector, records every
slot's State and Activity and every submitter's running and idle jobs, under one
timestamp, written in one transaction. They live in ``POOL_HISTORY_DIR/pool_history.sqlite3``,
a database of their own (HTCondor keeps its own files there too, apart from the spool), or
in the pool's PostgreSQL database (DATABASE_URL), under the collector's name. When the
data outgrow POOL_HISTORY_MAX_STORAGE bytes the oldest samples are deleted, as HTCondor's
view server drops its oldest files: the bytes are the file's pages in use (SQLite), or
the collector's own rows (PostgreSQL, whose tables other collectors may share).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import ColumnElement, Engine, Select, Table, delete, func, insert, select, text

from ..errors import StateError
from .database import database_errors, open_database, shown, sqlite_url
from .database import resource_samples as _resources
from .database import submitter_samples as _submitters
from .schema import POOL_HISTORY

__all__ = ["HISTORY_NAME", "PoolHistory", "ResourceSample", "SubmitterSample"]

HISTORY_NAME = "pool_history.sqlite3"


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
    """The samples under POOL_HISTORY_DIR (a directory), or in a shared database (an
    engine) under ``collector``'s name."""

    def __init__(self, location: Path | Engine, max_storage: int, collector: str = "") -> None:
        self.max_storage = max_storage
        self.collector = collector
        self.own = not isinstance(location, Engine)
        if isinstance(location, Engine):
            self.engine = location
        else:
            try:
                location.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise StateError(f"cannot create it: {err.strerror}", str(location)) from None
            url = sqlite_url(location / HISTORY_NAME)
            self.engine = open_database(url, branches=(POOL_HISTORY,))
        self.where = shown(self.engine.url)

    def record(
        self,
        now: float,
        resources: Iterable[tuple[str, str, str]],
        submitters: Iterable[tuple[str, int, int]],
    ) -> None:
        """One sample: (name, state, activity) per slot, (name, running, idle) per
        submitter."""
        mine = {"collector": self.collector, "time": now}
        slots = [{**mine, "name": n, "state": s, "activity": a} for n, s, a in resources]
        users = [{**mine, "name": n, "running": r, "idle": i} for n, r, i in submitters]
        with database_errors(self.where), self.engine.begin() as conn:
            if slots:
                conn.execute(insert(_resources), slots)
            if users:
                conn.execute(insert(_submitters), users)
        self._bound()

    def _used(self) -> int:
        with self.engine.connect() as conn:
            if conn.dialect.name == "sqlite":
                pages = conn.execute(text("PRAGMA page_count")).scalar() or 0
                free = conn.execute(text("PRAGMA freelist_count")).scalar() or 0
                size = conn.execute(text("PRAGMA page_size")).scalar() or 0
                return (pages - free) * size
            return sum(
                conn.execute(
                    select(
                        func.coalesce(func.sum(func.pg_column_size(table.table_valued())), 0)
                    ).where(self._mine(table))
                ).scalar()
                or 0
                for table in (_resources, _submitters)
            )

    def _bound(self) -> None:
        """Delete the oldest samples while the data take more than the maximum (the file
        keeps its freed pages for the next samples)."""
        with database_errors(self.where):
            for _ in range(64):  # each round drops the oldest tenth of the samples
                if self._used() <= self.max_storage:
                    return
                with self.engine.begin() as conn:
                    ordered = sorted(
                        {
                            *conn.execute(self._times(_resources)).scalars(),
                            *conn.execute(self._times(_submitters)).scalars(),
                        }
                    )
                    if len(ordered) <= 1:
                        return
                    cut = ordered[max(1, len(ordered) // 10) - 1]
                    for table in (_resources, _submitters):
                        conn.execute(delete(table).where(self._mine(table), table.c.time <= cut))

    def resources(self, since: float, until: float, name: str | None) -> list[ResourceSample]:
        query = select(_resources).where(
            self._mine(_resources), _resources.c.time.between(since, until)
        )
        if name is not None:
            query = query.where(_resources.c.name == name)
        with database_errors(self.where), self.engine.connect() as conn:
            rows = conn.execute(query.order_by(_resources.c.time, _resources.c.name)).all()
        return [ResourceSample(r.time, r.name, r.state, r.activity) for r in rows]

    def submitters(self, since: float, until: float, name: str | None) -> list[SubmitterSample]:
        query = select(_submitters).where(
            self._mine(_submitters), _submitters.c.time.between(since, until)
        )
        if name is not None:
            query = query.where(_submitters.c.name == name)
        with database_errors(self.where), self.engine.connect() as conn:
            rows = conn.execute(query.order_by(_submitters.c.time, _submitters.c.name)).all()
        return [SubmitterSample(r.time, r.name, r.running, r.idle) for r in rows]

    def names(self, kind: str) -> list[str]:
        table = _resources if kind == "resource" else _submitters
        query = select(table.c.name).where(self._mine(table)).distinct().order_by(table.c.name)
        with database_errors(self.where), self.engine.connect() as conn:
            return list(conn.execute(query).scalars())

    def close(self) -> None:
        if self.own:
            self.engine.dispose()

    def _mine(self, table: Table) -> ColumnElement[bool]:
        return table.c.collector == self.collector

    def _times(self, table: Table) -> Select:
        return select(table.c.time).where(self._mine(table)).distinct()
