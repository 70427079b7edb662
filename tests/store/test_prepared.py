"""Statements prepared once and run on the driver's cursor (store/prepared.py), on SQLite
and PostgreSQL: the rows are written with their values in the right columns whatever the
driver's parameter style, inside the connection's transaction (a rollback undoes them)."""

from __future__ import annotations

import pytest
from sqlalchemy import bindparam, insert, select, update

from fairpool.store.database import job_history
from fairpool.store.prepared import Prepared

NAMES = ("cluster", "proc", "owner", "completed", "ad", "schedd")
RECORD = Prepared(insert(job_history).values({n: bindparam(n) for n in NAMES}))
RENAME = Prepared(
    update(job_history)
    .where(job_history.c.cluster == bindparam("c"))
    .values(owner=bindparam("who"))
)


def _row(cluster: int, owner: str) -> dict[str, object]:
    # given in another order than the statement's: each value goes by its name
    return {
        "ad": "{}",
        "schedd": "s",
        "owner": owner,
        "completed": 7,
        "proc": 0,
        "cluster": cluster,
    }


def _stored(engine) -> list[tuple]:
    columns = (job_history.c.cluster, job_history.c.owner, job_history.c.completed)
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(select(*columns).order_by(job_history.c.id))]


def test_rows_go_to_their_columns_in_order(engine):
    with engine.begin() as conn:
        RECORD.run(conn, [_row(1, "alice"), _row(2, "bob"), _row(3, "carol")])
        RENAME.run(conn, [{"who": "dave", "c": 2}])
        RENAME.run(conn, [])  # nothing to do
    assert _stored(engine) == [(1, "alice", 7), (2, "dave", 7), (3, "carol", 7)]


def test_they_belong_to_the_connections_transaction(engine):
    with engine.begin() as conn:
        RECORD.run(conn, [_row(1, "alice")])
    with pytest.raises(RuntimeError), engine.begin() as conn:
        RECORD.run(conn, [_row(2, "bob")])
        RENAME.run(conn, [{"who": "eve", "c": 1}])
        raise RuntimeError("the transaction fails after them")
    assert _stored(engine) == [(1, "alice", 7)]
