"""The state database's schema is Alembic's revisions (store/schema.py), on SQLite and
PostgreSQL: a new database gets the heads, and the tables are the ones the stores use
(store/database.py's METADATA, compared by Alembic); opening again changes nothing; a
database the code before Alembic made (its ``schema_version`` table at 3 or 5, built here
as that code built it) is upgraded in place with its rows kept, under the default owner;
processes opening one new database at once all succeed; a newer fairpool's database is
refused with one clear error; a URL's password is never shown.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    insert,
    inspect,
    text,
)

from fairpool.accounting.accountant import Usage
from fairpool.config import parse_config_text
from fairpool.daemons.context import database_url
from fairpool.errors import ConfigError, StateError
from fairpool.store.accountant_store import AccountantStore
from fairpool.store.database import DATABASE_NAME, METADATA, open_database
from fairpool.store.jobs import JobStore
from fairpool.store.persistent_ads import PersistentAds
from fairpool.store.pool_history import HISTORY_NAME, PoolHistory
from fairpool.store.schema import POOL_HISTORY, heads

T0 = 1_750_000_000


def current(engine) -> set[str]:
    with engine.connect() as conn:
        return set(MigrationContext.configure(conn).get_current_heads())


def test_a_new_database_gets_the_heads_and_the_stores_tables(engine):
    assert current(engine) == heads() == {"0008", "h0002"}
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), METADATA) == []
        assert not inspect(conn).has_table("schema_version")


def test_opening_again_changes_nothing(engine, reopen):
    store = AccountantStore(engine)
    accountant = store.load()
    accountant.update_priorities(T0)
    accountant.set_factor("a@d", 2000)
    store.save(accountant)
    again = reopen()
    assert current(again) == heads()
    with again.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM alembic_version")).scalar() == 2
    assert AccountantStore(again).load().customers["a@d"].factor == 2000


# -- databases made before Alembic -------------------------------------------------------
# The tables as the code before Alembic created them (its METADATA at schema version 5;
# version 3 had the first three), and its version table.
OLD = MetaData()
_F, _I, _S = Float, Integer, String
_OLD_TABLES = {
    "accountant_meta": [("key", _S, True), ("value", _S)],
    "customers": [
        ("name", _S, True),
        *((n, _F) for n in ("priority", "factor")),
        ("resources_used", _I),
        *((n, _F) for n in ("weighted_resources_used", "hier_weighted_resources_used")),
        *((n, _F) for n in ("accumulated_usage", "weighted_accumulated_usage")),
        *((n, _I) for n in ("begin_usage_time", "last_usage_time", "ceiling", "floor")),
        *((n, _I) for n in ("ceiling_lease_expiration", "ceiling_pre_lease_value")),
        *((n, _I) for n in ("floor_lease_expiration", "floor_pre_lease_value")),
        ("factor_lease_expiration", _I),
        ("factor_pre_lease_value", _F),
    ],
    "groups": [
        ("name", _S, True),
        *((n, _F) for n in ("quota", "config_quota")),
        ("dynamic", _I),
        *((n, _F) for n in ("subtree_quota", "requested")),
        ("surplus", _S),
        *((n, _F) for n in ("sort_key", "allocated")),
    ],
    "job_clusters": [("cluster", _I, True), ("ad", _S)],
    "jobs": [("cluster", _I, True), ("proc", _I, True), ("ad", _S)],
    "job_history": [
        ("id", _I, True),
        *((n, _I) for n in ("cluster", "proc")),
        ("owner", _S),
        ("completed", _I),
        ("ad", _S),
    ],
    "starters": [("slot", _S, True), ("pid", _I), ("create_time", _F), ("job", _S)],
    "collector_ads": [*((n, _S, True) for n in ("kind", "name", "schedd")), ("ad", _S)],
    "schema_version": [("version", _I, True)],
}
for _name, _columns in _OLD_TABLES.items():
    Table(
        _name,
        OLD,
        *(Column(c[0], c[1], primary_key=c[2:] == (True,), nullable=False) for c in _columns),
    )
OLD.tables["collector_ads"].append_column(Column("expires", Float, nullable=True))
_AT_VERSION_3 = ("accountant_meta", "customers", "groups", "schema_version")


def _old_database(location: str, version: int) -> None:
    """A database as the code before Alembic left it at ``version``, with a row in each
    table it had."""
    if "://" not in location:  # a state directory
        Path(location).mkdir(parents=True)
        location = f"sqlite:///{location}/{DATABASE_NAME}"
    engine = create_engine(location)
    names = [n for n in OLD.tables if version == 5 or n in _AT_VERSION_3]
    tables = [OLD.tables[n] for n in names]
    OLD.create_all(engine, tables=tables)
    customer = {c.name: 0 for c in OLD.tables["customers"].columns}
    customer.update(name="alice@d", priority=12.5, factor=2000.0, ceiling=4, floor=1)
    customer.update(ceiling_lease_expiration=T0 + 60, ceiling_pre_lease_value=-1)
    with engine.begin() as conn:
        conn.execute(insert(OLD.tables["schema_version"]).values(version=version))
        conn.execute(insert(OLD.tables["customers"]).values(**customer))
        conn.execute(insert(OLD.tables["accountant_meta"]).values(key="last_update", value="1.0e9"))
        conn.execute(
            insert(OLD.tables["groups"]).values(
                name="group_a",
                quota=2,
                config_quota=2,
                subtree_quota=2,
                requested=3,
                dynamic=0,
                surplus="no",
                sort_key=1,
                allocated=2,
            )
        )
        if version == 5:
            cluster = '{"ClusterId":1,"Owner":"alice","Cmd":"/bin/true"}'
            rows = {
                "job_clusters": [
                    {"cluster": 0, "ad": '{"NextClusterNum":2}'},
                    {"cluster": 1, "ad": cluster},
                ],
                "jobs": [{"cluster": 1, "proc": 1, "ad": '{"ProcId":1}'}],
                "job_history": [
                    {
                        "cluster": 1,
                        "proc": 0,
                        "owner": "alice",
                        "completed": T0,
                        "ad": cluster[:-1] + ',"ProcId":0}',
                    }
                ],
                "collector_ads": [
                    {
                        "kind": "machine",
                        "name": "slot1@gone",
                        "schedd": "",
                        "ad": '{"Name":"slot1@gone"}',
                        "expires": None,
                    }
                ],
            }
            for name, values in rows.items():
                conn.execute(insert(OLD.tables[name]), values)
    engine.dispose()


@pytest.mark.parametrize("version", [3, 5])
def test_a_database_of_the_old_scheme_is_upgraded_with_its_rows(location, reopen, version):
    _old_database(location, version)
    engine = reopen()
    assert current(engine) == heads()
    with engine.connect() as conn:
        assert not inspect(conn).has_table("schema_version")
        assert compare_metadata(MigrationContext.configure(conn), METADATA) == []
    store = AccountantStore(engine)
    accountant = store.load()
    record = accountant.customers["alice@d"]
    assert (record.priority, record.factor, record.ceiling, record.floor) == (12.5, 2000, 4, 1)
    assert record.ceiling_lease_expiration == T0 + 60
    assert accountant.last_update == 1.0e9
    assert store.group_figures()["group_a"]["requested"] == 3
    accountant.set_usage({"alice@d": Usage(1, 1.0)})  # and it is written to as before
    store.save(accountant)
    assert AccountantStore(reopen()).load().customers["alice@d"].resources_used == 1
    if version == 5:
        queue = JobStore(engine)
        stored = queue.load()
        assert stored.next_cluster == 2 and [
            (j["ClusterId"], j["ProcId"]) for j in stored.jobs
        ] == [(1, 1)]
        (done,) = queue.history()
        assert (done["Owner"], done["ProcId"]) == ("alice", 0)
        leaving = stored.jobs[0]
        queue.leave([(leaving, stored.clusters[1])], empty_clusters=[1])  # history ids go on
        assert [j["ProcId"] for j in queue.history()] == [1, 0]
        (ad,) = PersistentAds(engine).load()
        assert (ad.kind, ad.name, ad.expires) == ("machine", "slot1@gone", float("inf"))


def test_a_pool_history_file_of_before_is_upgraded_with_its_samples(tmp_path):
    old = MetaData()
    samples = Table(
        "submitter_samples",
        old,
        Column("time", Float, index=True),
        Column("name", String),
        Column("running", Integer),
        Column("idle", Integer),
    )
    Table(
        "resource_samples",
        old,
        *(Column(n, String) for n in ("name", "state", "activity")),
        Column("time", Float, index=True),
    )
    engine = create_engine(f"sqlite:///{tmp_path / HISTORY_NAME}")
    old.create_all(engine)
    with engine.begin() as conn:
        conn.execute(insert(samples).values(time=60.0, name="a@d", running=2, idle=5))
    engine.dispose()
    history = PoolHistory(tmp_path, 10_000_000)
    assert current(history.engine) == heads([POOL_HISTORY])  # and none of the state's tables
    assert not inspect(history.engine).has_table("customers")
    ((time_, name, running, idle),) = [
        (s.time, s.name, s.running, s.idle) for s in history.submitters(0, 1e9, None)
    ]
    assert (time_, name, running, idle) == (60.0, "a@d", 2, 5)
    history.close()


# -- what is refused -----------------------------------------------------------------------
def test_a_newer_fairpools_database_is_refused(engine, reopen):
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE alembic_version SET version_num = '0099' WHERE version_num NOT LIKE 'h%'")
        )
    with pytest.raises(StateError, match="made by a newer fairpool"):
        reopen()


def test_an_old_version_table_from_the_future_is_refused(tmp_path):
    engine = create_engine(f"sqlite:///{tmp_path / DATABASE_NAME}")
    OLD.create_all(engine, tables=[OLD.tables["schema_version"]])
    with engine.begin() as conn:
        conn.execute(insert(OLD.tables["schema_version"]).values(version=9))
    engine.dispose()
    with pytest.raises(StateError, match=r"newer fairpool \(schema version 9\)"):
        open_database(tmp_path)


def test_a_libpq_url_goes_through_psycopg_3(postgres_url):
    engine = open_database(postgres_url.replace("postgresql+psycopg://", "postgresql://"))
    assert engine.url.drivername == "postgresql+psycopg" and current(engine) == heads()
    engine.dispose()


def test_a_password_is_never_shown(postgres_server):
    url = postgres_server.url("no_such_database").replace("fairpool@", "fairpool:s3cret@")
    with pytest.raises(StateError) as refused:
        open_database(url)
    assert "s3cret" not in str(refused.value) and "***" in str(refused.value)
    assert "no_such_database" in str(refused.value)
    for bad, expected in (
        ("postgresql+psycopg://u:s3cret@host:port/db", "cannot be read"),
        ("mysql://u:s3cret@host/db", "expected an SQLite or PostgreSQL database, not mysql"),
    ):
        config = parse_config_text(f"DATABASE_URL = {bad}\n", "pool.config")
        with pytest.raises(ConfigError) as wrong:
            database_url(config)
        assert wrong.value.knob == "DATABASE_URL" and expected in str(wrong.value)
        assert str(wrong.value).startswith("pool.config:1: DATABASE_URL: ")
        assert "s3cret" not in str(wrong.value)


# -- several processes at once -----------------------------------------------------------
OPENER = """
import sys, time
from pathlib import Path
from fairpool.store.database import open_database
go = Path(sys.argv[2])
deadline = time.monotonic() + 20
while not go.exists() and time.monotonic() < deadline:
    time.sleep(0.005)
open_database(sys.argv[1]).dispose()
"""


def test_processes_opening_one_new_database_at_once_all_succeed(location, reopen, tmp_path):
    go = tmp_path / "go"
    openers = [
        subprocess.Popen(
            [sys.executable, "-c", OPENER, location, str(go)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    time.sleep(1.5)  # each has imported what it needs and waits for the signal
    go.touch()
    errors = [p.communicate(timeout=60)[1] for p in openers]
    assert [p.returncode for p in openers] == [0, 0, 0], errors
    assert current(reopen()) == heads()
