"""Opening a state database: SQLite by default (one file in the state directory, WAL
journal, so a reader never blocks the writer and a kill -9 loses no committed transaction),
or an SQLAlchemy URL (``DATABASE_URL``: PostgreSQL, for state several hosts share).

The tables below are the schema as this fairpool writes it; Alembic's revisions
(migrations/, run by schema.py when a database is opened) make it. In a database several
daemons share, each row names the daemon it belongs to (``accountant``, ``schedd``,
``collector``; empty where the database is the daemon.s own).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import (
    URL,
    BigInteger,
    Column,
    Engine,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    event,
    make_url,
)
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from ..errors import StateError
from .schema import BRANCHES, upgrade

__all__ = [
    "DATABASE_NAME",
    "METADATA",
    "collector_ads",
    "customers",
    "database_errors",
    "database_url",
    "groups",
    "had_leases",
    "had_members",
    "job_clusters",
    "job_history",
    "jobs",
    "meta",
    "negotiation_cycles",
    "negotiation_matches",
    "open_database",
    "resource_samples",
    "shown",
    "sqlite_url",
    "submitter_samples",
]

DATABASE_NAME = "state.sqlite3"
STATE_FILES = (DATABASE_NAME, "Accountantnew.log")
DIALECTS = ("sqlite", "postgresql")

METADATA = MetaData()


def _owner(name: str) -> Column:
    """The daemon a row belongs to (its name in a shared database; empty in its own)."""
    return Column(name, String, primary_key=True, server_default="")


meta = Table(
    "accountant_meta",
    METADATA,
    _owner("accountant"),
    Column("key", String, primary_key=True),
    Column("value", String, nullable=False),
)

customers = Table(
    "customers",
    METADATA,
    _owner("accountant"),
    Column("name", String, primary_key=True),
    Column("priority", Float, nullable=False),
    Column("factor", Float, nullable=False),
    Column("resources_used", Integer, nullable=False),
    Column("weighted_resources_used", Float, nullable=False),
    Column("hier_weighted_resources_used", Float, nullable=False),
    Column("accumulated_usage", Float, nullable=False),
    Column("weighted_accumulated_usage", Float, nullable=False),
    Column("begin_usage_time", BigInteger, nullable=False),
    Column("last_usage_time", BigInteger, nullable=False),
    Column("ceiling", Integer, nullable=False),
    Column("floor", Integer, nullable=False),
    Column("ceiling_lease_expiration", BigInteger, nullable=False, server_default="0"),
    Column("ceiling_pre_lease_value", Integer, nullable=False, server_default="-1"),
    Column("floor_lease_expiration", BigInteger, nullable=False, server_default="0"),
    Column("floor_pre_lease_value", Integer, nullable=False, server_default="0"),
    Column("factor_lease_expiration", BigInteger, nullable=False, server_default="0"),
    Column("factor_pre_lease_value", Float, nullable=False, server_default="0"),
)

groups = Table(
    "groups",
    METADATA,
    _owner("accountant"),
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
    _owner("schedd"),
    Column("cluster", Integer, primary_key=True, autoincrement=False),
    Column("ad", String, nullable=False),
)

jobs = Table(
    "jobs",
    METADATA,
    _owner("schedd"),
    Column("cluster", Integer, primary_key=True, autoincrement=False),
    Column("proc", Integer, primary_key=True, autoincrement=False),
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
    Column("completed", BigInteger, nullable=False),
    Column("ad", String, nullable=False),
    Column("schedd", String, nullable=False, server_default=""),
    Index("ix_job_history_schedd_id", "schedd", "id"),
)

# The collector's persistent ads (COLLECTOR_PERSISTENT_AD_LOG): absent and offline slot
# ads, kept across restarts until they expire (``expires`` NULL: never).
collector_ads = Table(
    "collector_ads",
    METADATA,
    _owner("collector"),
    Column("kind", String, primary_key=True),
    Column("name", String, primary_key=True),
    Column("schedd", String, primary_key=True),
    Column("ad", String, nullable=False),
    Column("expires", Float, nullable=True),
)

# The HTCondorView server's samples of the pool (pool_history.py).
resource_samples = Table(
    "resource_samples",
    METADATA,
    Column("time", Float, nullable=False),
    Column("name", String, nullable=False),
    Column("state", String, nullable=False),
    Column("activity", String, nullable=False),
    Column("collector", String, nullable=False, server_default=""),
    Index("ix_resource_samples_collector_time", "collector", "time"),
)

submitter_samples = Table(
    "submitter_samples",
    METADATA,
    Column("time", Float, nullable=False),
    Column("name", String, nullable=False),
    Column("running", Integer, nullable=False),
    Column("idle", Integer, nullable=False),
    Column("collector", String, nullable=False, server_default=""),
    Index("ix_submitter_samples_collector_time", "collector", "time"),
)


# High availability of the central manager (leadership.py, match_records.py): each HA
# group's lease (the group is the accountant its central managers share; the holder a
# HAD_LIST entry; expiry in the database's clock), each member's last contact, and the
# matches of each committed cycle.
had_leases = Table(
    "had_leases",
    METADATA,
    Column("accountant", String, primary_key=True),
    Column("holder", String, nullable=False, server_default=""),
    Column("term", Integer, nullable=False, server_default="0"),
    Column("expires", Float, nullable=False, server_default="0"),
)

had_members = Table(
    "had_members",
    METADATA,
    Column("accountant", String, primary_key=True),
    Column("member", String, primary_key=True),
    Column("seen", Float, nullable=False),
)

negotiation_cycles = Table(
    "negotiation_cycles",
    METADATA,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("accountant", String, nullable=False),
    Column("holder", String, nullable=False),
    Column("term", Integer, nullable=False),
    Column("started", Float, nullable=False),  # the negotiator's clock
    Column("committed", Float, nullable=False),  # the database's clock
    Column("finished", Float, nullable=True),  # the negotiator's clock; NULL: not sent
    Index("ix_negotiation_cycles_accountant_id", "accountant", "id"),
)

negotiation_matches = Table(
    "negotiation_matches",
    METADATA,
    Column("cycle", Integer, nullable=False),
    Column("slot", String, nullable=False),
    Column("claim", String, nullable=False),  # a digest of the slot's ClaimId
    Column("job", String, nullable=False),
    Column("schedd", String, nullable=False),
    Column("submitter", String, nullable=False),
    Index("ix_negotiation_matches_cycle", "cycle"),
)


def open_database(
    location: str | Path | URL,
    create: bool = True,
    fsync: bool = True,
    branches: Sequence[str] = BRANCHES,
) -> Engine:
    """An engine for a state directory (SQLite inside it) or an SQLAlchemy URL, its
    schema brought to this fairpool's (schema.py; ``branches``: which tables).

    ``create=False``: the directory must exist and hold state already (a command that only
    reads never leaves an empty state behind a typo). ``fsync=False``: SQLite commits
    survive the process's crash but not the machine's (for what a power loss ends anyway,
    like the startd's record of its jobs' processes). Any problem is a ``StateError``,
    which never shows a URL's password."""
    if isinstance(location, URL):
        url = location
    elif "://" in str(location):
        url = database_url(str(location))
    else:
        directory = Path(location)
        _check_directory(directory, create)
        url = sqlite_url(directory / DATABASE_NAME)
    where = shown(url)
    with database_errors(where):
        try:
            engine = create_engine(url, connect_args=_connect_args(url))
        except ImportError as err:  # the dialect's driver
            raise StateError(
                f"cannot use it: {err.name or err} is not installed"
                " (PostgreSQL: pip install 'fairpool[postgres]')",
                where,
            ) from None
        if engine.dialect.name == "sqlite":
            event.listen(engine, "connect", _sqlite_pragmas if fsync else _sqlite_pragmas_nosync)
        try:
            upgrade(engine, where, branches)
        except BaseException:
            engine.dispose()  # no connection left open to a database that cannot be used
            raise
    return engine


def sqlite_url(path: Path) -> URL:
    """The URL of an SQLite file (any character of its path kept as it is)."""
    return URL.create("sqlite", database=str(path))


def database_url(text: str) -> URL:
    """An SQLAlchemy URL of a database fairpool can use (SQLite or PostgreSQL; a
    ``postgresql://`` URL, as libpq writes them, through psycopg 3)."""
    try:
        url = make_url(text.strip())
    except (ArgumentError, ValueError):  # not shown: it may hold a password
        raise StateError(
            "a database URL that cannot be read: expected an SQLAlchemy URL such as"
            " postgresql+psycopg://user@host/database"
        ) from None
    if url.get_backend_name() not in DIALECTS:
        raise StateError(
            f"expected an SQLite or PostgreSQL database, not {url.get_backend_name()}",
            shown(url),
        )
    if url.drivername == "postgresql":  # SQLAlchemy's default driver is psycopg 2
        url = url.set(drivername="postgresql+psycopg")
    return url


def shown(url: URL | str) -> str:
    """A database's URL as messages and logs show it: its password hidden, an SQLite
    file as its path."""
    url = make_url(url) if isinstance(url, str) else url
    if url.get_backend_name() == "sqlite" and url.database:
        return url.database
    return url.render_as_string(hide_password=True)


def _connect_args(url: URL) -> dict[str, object]:
    """A server that does not answer is an error after 10 s (libpq would wait forever),
    unless the URL sets its own ``connect_timeout``."""
    if url.get_backend_name() == "postgresql" and "connect_timeout" not in url.query:
        return {"connect_timeout": 10}
    return {}


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
    read-only one, a server that cannot be reached) as one ``StateError`` naming the
    database (``where``: as ``shown`` gives it)."""
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
