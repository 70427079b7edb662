"""Bringing a database to the schema this fairpool writes: Alembic's revisions
(migrations/versions/), applied when the database is opened, whole or not at all, by one
process at a time.

Two branches of revisions: ``state`` (the pool's database: the accountant, the job queue
and history, the collector's persistent ads) and ``pool_history``
(the HTCondorView samples, in a file of their own unless they share the pool's PostgreSQL
database). Opening checks the database's revisions first, so a database already at the
heads costs one query; otherwise the upgrade runs under a lock (SQLite: ``BEGIN
IMMEDIATE``; PostgreSQL: a transaction-scoped advisory lock), so two processes opening a
new database at once apply it once, and in one transaction (both engines' DDL is
transactional), so a crash midway leaves the database as it was.

A database made before Alembic keeps its version in a ``schema_version`` table (1 to 5):
it is stamped with the matching revision, that table dropped (``alembic_version`` takes
its place) and the rest applied. A pool-history file of then has no version at all; its
tables tell.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, Engine, inspect, text

from ..errors import StateError

__all__ = ["BRANCHES", "POOL_HISTORY", "STATE", "heads", "upgrade"]

STATE = "state"
POOL_HISTORY = "pool_history"
BRANCHES = (STATE, POOL_HISTORY)
MIGRATIONS = Path(__file__).with_name("migrations")
_LEGACY = {1: "0001", 2: "0002", 3: "0003", 4: "0004", 5: "0005"}  # schema_version -> revision
_LOCK = int.from_bytes(b"fairpool", "big") >> 1  # the advisory lock's key (a positive bigint)


@functools.cache
def _script() -> ScriptDirectory:
    return ScriptDirectory(str(MIGRATIONS))


def heads(branches: Sequence[str] = BRANCHES) -> set[str]:
    """The revisions a database of these branches is brought to."""
    return {_script().get_revision(f"{branch}@head").revision for branch in branches}


def upgrade(engine: Engine, where: str, branches: Sequence[str] = BRANCHES) -> None:
    """Bring the database to the heads of ``branches`` (a ``StateError`` if it was made by
    a newer fairpool)."""
    wanted = heads(branches)
    with engine.connect() as conn:
        if wanted <= set(MigrationContext.configure(conn).get_current_heads()):
            return
    with engine.connect() as conn:
        _lock(conn)
        config = Config()
        # the value is read with configparser's interpolation: a % in the path is doubled
        config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
        config.attributes["connection"] = conn
        try:
            _adopt_legacy(conn, config, where)
            for branch in branches:
                command.upgrade(config, f"{branch}@head")
        except CommandError as err:  # a revision this fairpool does not know
            raise StateError(f"made by a newer fairpool ({err})", where) from None
        conn.commit()


def _lock(conn: Connection) -> None:
    """Begin the upgrade's transaction, holding the database's write lock (SQLite) or
    fairpool's advisory lock (PostgreSQL) until it commits."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK})


def _adopt_legacy(conn: Connection, config: Config, where: str) -> None:
    """Stamp a database made before Alembic with the revisions it has."""
    found = inspect(conn)
    if found.has_table("alembic_version"):
        return
    stamps = []
    if found.has_table("schema_version"):
        version = conn.execute(text("SELECT max(version) FROM schema_version")).scalar()
        if version is not None and version not in _LEGACY:
            raise StateError(f"made by a newer fairpool (schema version {version})", where)
        if version is not None:
            stamps.append(_LEGACY[version])
        conn.execute(text("DROP TABLE schema_version"))
    if found.has_table("resource_samples"):
        stamps.append("h0001")
    if stamps:
        command.stamp(config, stamps)
