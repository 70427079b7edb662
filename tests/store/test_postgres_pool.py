"""A personal pool whose DATABASE_URL names PostgreSQL (the test's own server): its jobs
run to completion, the pool is killed with kill -9 during the run and started again, and
the queue, the history and the accountant's usage are intact, in PostgreSQL under the
schedd's name, with Accountantnew.log still written in SPOOL for HTCondor's tools and the
starter's record of its jobs in SPOOL's own files.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, func, select

from fairpool.store.classadlog import read_accountant_log
from fairpool.store.database import DATABASE_NAME, customers, job_history, jobs
from livepool import LivePool, fairpool

JOBS = 6


def test_a_pool_on_postgresql_survives_kill_9(tmp_path: Path, postgres_url: str) -> None:
    work = tmp_path / "work"
    submit = (
        "executable = /bin/sleep\narguments = 1\nrequest_memory = 64\n"
        f"should_transfer_files = NO\nqueue {JOBS}\n"
    )
    knobs = {"DATABASE_URL": postgres_url, "NEGOTIATOR_INTERVAL": 1, "PRIORITY_HALFLIFE": 600}
    pool = LivePool(tmp_path / "pool", **knobs)
    with pool:
        pool.submit(submit, work)
        pool.wait(lambda: len(pool.history()) >= 2, 30, "some jobs to finish")
        pool.wait(lambda: pool.jobs("JobStatus == 2"), 10, "jobs running")
        before = next(iter(pool.accountant().values()))
        pool.kill()
        pool.start(wait_for_slots=False)  # the same configuration: the same database
        pool.wait(lambda: len(pool.history()) == JOBS, 40, "every job to complete")
        assert not pool.jobs()
        after = pool.accountant()[before["name"]]
        (schedd,) = [ad["Name"] for ad in pool.get("/collector/ads", type="Scheduler")["ads"]]
        history = pool.history()
    assert sorted((h["ClusterId"], h["ProcId"]) for h in history) == [(1, p) for p in range(JOBS)]
    assert all(h["JobStatus"] == 4 for h in history)
    assert after["accumulated_usage"] >= before["accumulated_usage"] > 0
    database = create_engine(postgres_url)
    with database.connect() as conn:  # the rows are PostgreSQL's, under the schedd's name
        owners = conn.execute(select(job_history.c.schedd).distinct()).scalars().all()
        assert owners == [schedd] and schedd
        assert conn.execute(select(func.count()).select_from(jobs)).scalar() == 0
        users = conn.execute(select(customers.c.name, customers.c.accountant)).all()
        assert (before["name"], "") in users  # the pool's default negotiator's accountant
    database.dispose()
    log = (tmp_path / "pool" / "log" / "MasterLog").read_text()
    assert f"database: {postgres_url}" in log  # the test's URL has no password to hide
    spool = tmp_path / "pool" / "spool"
    _, logged = read_accountant_log((spool / "Accountantnew.log").read_text())
    assert before["name"] in {record.name for record in logged}
    assert not (spool / DATABASE_NAME).exists()  # nothing of the pool's state in SPOOL
    assert [p.name for p in (spool / "starters").iterdir()]  # but the starter's record


def test_a_pool_whose_database_cannot_be_used_stops_with_one_line(tmp_path: Path) -> None:
    """A server that refuses the connection is named, its password hidden (a
    DATABASE_URL that is no database URL names the knob: test_migrations.py)."""
    config = tmp_path / "condor_config"
    url = "postgresql+psycopg://pool:s3cret@127.0.0.1:1/pool"
    config.write_text(
        f"DAEMON_LIST = MASTER, SCHEDD\nCOLLECTOR_HOST = 127.0.0.1:1\nDATABASE_URL = {url}\n"
    )
    started = fairpool(
        "pool", "start", "--dir", str(tmp_path), "--config", str(config), check=False
    )
    assert started.returncode == 1 and started.stdout == ""
    (line,) = started.stderr.splitlines()
    assert line.startswith("fairpool: error: postgresql+psycopg://pool:***@127.0.0.1:1/pool: ")
    assert "Connection refused" in line and "s3cret" not in line
