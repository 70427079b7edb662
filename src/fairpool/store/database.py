"""Opening a state database: SQLite by default (one file in the state directory, WAL
journal, so a reader never blocks the writer and a kill -9 loses no committed transaction),
or any SQLAlchemy URL (PostgreSQL for state shared by several hosts).

Schema changes are migrations: each entry of ``MIGRATIONS`` runs once, in order, and the
database remembers the last one applied.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import (
    Column,
    Engine,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    event,
    select,
    text,
)

__all__ = ["METADATA", "customers", "groups", "meta", "open_database"]

METADATA = MetaData()

meta = Table(
    "accountant_meta",
    METADATA,
    Column("key", String, primary_key=True),
    Column("value", String, nullable=False),
)

customers = Table(
    "customers",
    METADATA,
    Column("name", String, primary_key=True),
    Column("priority", Float, nullable=False),
    Column("factor", Float, nullable=False),
    Column("resources_used", Integer, nullable=False),
    Column("weighted_resources_used", Float, nullable=False),
    Column("hier_weighted_resources_used", Float, nullable=False),
    Column("accumulated_usage", Float, nullable=False),
    Column("weighted_accumulated_usage", Float, nullable=False),
    Column("begin_usage_time", Integer, nullable=False),
    Column("last_usage_time", Integer, nullable=False),
    Column("ceiling", Integer, nullable=False),
    Column("floor", Integer, nullable=False),
    Column("ceiling_lease_expiration", Integer, nullable=False, server_default="0"),
    Column("ceiling_pre_lease_value", Integer, nullable=False, server_default="-1"),
    Column("floor_lease_expiration", Integer, nullable=False, server_default="0"),
    Column("floor_pre_lease_value", Integer, nullable=False, server_default="0"),
    Column("factor_lease_expiration", Integer, nullable=False, server_default="0"),
    Column("factor_pre_lease_value", Float, nullable=False, server_default="0"),
)

groups = Table(
    "groups",
    METADATA,
    Column("name", String, primary_key=True),
    Column("quota", Float, nullable=False),
    Column("config_quota", Float, nullable=False),
    Column("dynamic", Integer, nullable=False),
    Column("subtree_quota", Float, nullable=False),
    Column("requested", Float, nullable=False),
    Column("surplus", String, nullable=False),
    Column("sort_key", Float, nullable=False),
    Column("allocated", Float, nullable=False),
)

schema_version = Table(
    "schema_version",
    METADATA,
    Column("version", Integer, primary_key=True),
)

# version -> SQL run to reach it from the one before (1 creates the tables above)
MIGRATIONS: dict[int, list[str]] = {
    1: [],
    2: [
        "CREATE TABLE IF NOT EXISTS groups (name VARCHAR PRIMARY KEY, quota FLOAT NOT NULL,"
        " config_quota FLOAT NOT NULL, dynamic INTEGER NOT NULL, subtree_quota FLOAT NOT NULL,"
        " requested FLOAT NOT NULL, surplus VARCHAR NOT NULL, sort_key FLOAT NOT NULL,"
        " allocated FLOAT NOT NULL)"
    ],
    3: [  # condor_userprio -duration leases
        *(
            f"ALTER TABLE customers ADD COLUMN {name} {kind} NOT NULL DEFAULT {default}"
            for name, kind, default in (
                ("ceiling_lease_expiration", "INTEGER", 0),
                ("ceiling_pre_lease_value", "INTEGER", -1),
                ("floor_lease_expiration", "INTEGER", 0),
                ("floor_pre_lease_value", "INTEGER", 0),
                ("factor_lease_expiration", "INTEGER", 0),
                ("factor_pre_lease_value", "FLOAT", 0),
            )
        )
    ],
}


def open_database(location: str | Path) -> Engine:
    """An engine for a state directory (SQLite inside it) or an SQLAlchemy URL."""
    url = str(location)
    if "://" not in url:
        directory = Path(location)
        directory.mkdir(parents=True, exist_ok=True)
        url = f"sqlite:///{directory / 'state.sqlite3'}"
    engine = create_engine(url)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    _migrate(engine)
    return engine


def _sqlite_pragmas(connection, _record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.close()


def _migrate(engine: Engine) -> None:
    with engine.begin() as conn:
        METADATA.create_all(conn, tables=[schema_version])
        stored = conn.execute(select(schema_version.c.version)).scalar() or 0
        current = stored
        if current == 0:  # a new database: the tables as they are now
            METADATA.create_all(conn)
            current = max(MIGRATIONS)
        for version in sorted(v for v in MIGRATIONS if v > current):
            for statement in MIGRATIONS[version]:
                conn.execute(text(statement))
        if stored < max(MIGRATIONS):
            conn.execute(schema_version.delete())
            conn.execute(schema_version.insert().values(version=max(MIGRATIONS)))
