"""Opening a state database: SQLite by default (one file in the state directory, WAL
journal, so a reader never blocks the writer and a kill -9 loses no committed transaction),
or any SQLAlchemy URL (PostgreSQL for state shared by several hosts).

Schema changes are migrations: each entry of ``MIGRATIONS`` runs once, in order, and the
database remembers the last one applied.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
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
from sqlalchemy.exc import SQLAlchemyError

from ..errors import StateError

__all__ = [
    "DATABASE_NAME",
    "METADATA",
    "collector_ads",
    "customers",
    "database_errors",
    "groups",
    "job_clusters",
    "job_history",
    "jobs",
    "meta",
    "open_database",
    "starters",
]

DATABASE_NAME = "state.sqlite3"
STATE_FILES = (DATABASE_NAME, "Accountantnew.log")

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

# The schedd's job queue: each cluster's ad, and each job's attributes that differ from
# it (JSON ads, classad/jsonads.py), as HTCondor's job queue keeps cluster and proc ads.
job_clusters = Table(
    "job_clusters",
    METADATA,
    Column("cluster", Integer, primary_key=True),
    Column("ad", String, nullable=False),
)

jobs = Table(
    "jobs",
    METADATA,
    Column("cluster", Integer, primary_key=True),
    Column("proc", Integer, primary_key=True),
    Column("ad", String, nullable=False),
)

# Jobs that left the queue (completed or removed), whole, in the order they left.
job_history = Table(
    "job_history",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("cluster", Integer, nullable=False),
    Column("proc", Integer, nullable=False),
    Column("owner", String, nullable=False),
    Column("completed", Integer, nullable=False),
    Column("ad", String, nullable=False),
)

# The startd's running starters, so that a restarted startd finds what its last run
# left behind.
starters = Table(
    "starters",
    METADATA,
    Column("slot", String, primary_key=True),
    Column("pid", Integer, nullable=False),
    Column("create_time", Float, nullable=False),
    Column("job", String, nullable=False),
)

# The collector's persistent ads (COLLECTOR_PERSISTENT_AD_LOG): absent and offline slot
# ads, kept across restarts until they expire (``expires`` NULL: never).
collector_ads = Table(
    "collector_ads",
    METADATA,
    Column("kind", String, primary_key=True),
    Column("name", String, primary_key=True),
    Column("schedd", String, primary_key=True),
    Column("ad", String, nullable=False),
    Column("expires", Float, nullable=True),
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
    4: [  # the live pool: the job queue, the history, the startd's starters
        "CREATE TABLE IF NOT EXISTS job_clusters (cluster INTEGER PRIMARY KEY,"
        " ad VARCHAR NOT NULL)",
        "CREATE TABLE IF NOT EXISTS jobs (cluster INTEGER NOT NULL, proc INTEGER NOT NULL,"
        " ad VARCHAR NOT NULL, PRIMARY KEY (cluster, proc))",
        "CREATE TABLE IF NOT EXISTS job_history (id INTEGER PRIMARY KEY, cluster INTEGER NOT NULL,"
        " proc INTEGER NOT NULL, owner VARCHAR NOT NULL, completed INTEGER NOT NULL,"
        " ad VARCHAR NOT NULL)",
        "CREATE TABLE IF NOT EXISTS starters (slot VARCHAR PRIMARY KEY, pid INTEGER NOT NULL,"
        " create_time FLOAT NOT NULL, job VARCHAR NOT NULL)",
    ],
    5: [  # the collector's absent and offline ads
        "CREATE TABLE IF NOT EXISTS collector_ads (kind VARCHAR NOT NULL, name VARCHAR NOT NULL,"
        " schedd VARCHAR NOT NULL, ad VARCHAR NOT NULL, expires FLOAT,"
        " PRIMARY KEY (kind, name, schedd))",
    ],
}


def open_database(location: str | Path, create: bool = True, fsync: bool = True) -> Engine:
    """An engine for a state directory (SQLite inside it) or an SQLAlchemy URL.

    ``create=False``: the directory must exist and hold state already (a command that only
    reads never leaves an empty state behind a typo). ``fsync=False``: SQLite commits
    survive the process's crash but not the machine's (for what a power loss ends anyway,
    like the startd's record of its jobs' processes). Any problem is a ``StateError``."""
    url = str(location)
    if "://" not in url:
        directory = Path(location)
        _check_directory(directory, create)
        url = f"sqlite:///{directory / DATABASE_NAME}"
    with database_errors(url.removeprefix("sqlite:///")):
        engine = create_engine(url)
        if engine.dialect.name == "sqlite":
            event.listen(engine, "connect", _sqlite_pragmas if fsync else _sqlite_pragmas_nosync)
        _migrate(engine)
    return engine


def _check_directory(directory: Path, create: bool) -> None:
    if directory.exists() and not directory.is_dir():
        raise StateError("is a file, expected a state directory", str(directory))
    if not create and not any((directory / name).is_file() for name in STATE_FILES):
        raise StateError(
            "no fairpool state here (fairpool negotiate creates a state directory)", str(directory)
        )
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise StateError(
            f"cannot create the state directory: {err.strerror}", str(directory)
        ) from None


@contextmanager
def database_errors(where: str) -> Iterator[None]:
    """SQLAlchemy's errors (a corrupt file, another program's database, a locked or
    read-only one) as one ``StateError`` naming the database."""
    try:
        yield
    except SQLAlchemyError as err:
        cause = str(getattr(err, "orig", None) or err).splitlines()[0]
        raise StateError(f"not a usable fairpool state database ({cause})", where) from None
    except (ValueError, TypeError) as err:  # a stored value of the wrong kind
        raise StateError(f"not a usable fairpool state database ({err})", where) from None


def _sqlite_pragmas(connection, _record, synchronous: str = "FULL") -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA synchronous={synchronous}")
    cursor.execute("PRAGMA busy_timeout=30000")  # daemons of several processes share it
    cursor.close()


def _sqlite_pragmas_nosync(connection, record) -> None:
    _sqlite_pragmas(connection, record, "NORMAL")  # in WAL mode: no fsync at commit


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
