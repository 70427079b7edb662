"""Group commit: writes handed over from an event loop are committed in order, several in
one transaction, each caller resuming once its own write is on disk."""

from __future__ import annotations

import asyncio
import gc
import time
from pathlib import Path

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, create_engine, event, insert, select

from fairpool.daemons.errors import status_of
from fairpool.store.group_commit import GroupCommit, WriterClosed

metadata = MetaData()
rows = Table("rows", metadata, Column("n", Integer, primary_key=True))


@pytest.fixture
def engine(tmp_path: Path):
    engine = create_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    metadata.create_all(engine)
    yield engine
    engine.dispose()


def _insert(n: int):
    return lambda conn: conn.execute(insert(rows).values(n=n))


def _stored(engine) -> list[int]:
    with engine.connect() as conn:
        return [r.n for r in conn.execute(select(rows.c.n).order_by(rows.c.n))]


def test_writes_commit_in_order_several_at_a_time(engine):
    commits = []
    event.listen(engine, "commit", lambda conn: commits.append(1))
    writer = GroupCommit(engine)

    async def main() -> None:
        handed = [writer.write(_insert(n)) for n in range(50)]
        await asyncio.gather(*handed)

    asyncio.run(main())
    writer.close()
    assert _stored(engine) == list(range(50))
    assert len(commits) < 50  # the writes handed over together went together


def test_a_failing_write_fails_alone(engine):
    writer = GroupCommit(engine)

    async def main() -> list[object]:
        handed = [writer.write(_insert(1)), writer.write(_insert(1)), writer.write(_insert(2))]
        return await asyncio.gather(*handed, return_exceptions=True)

    results = asyncio.run(main())
    writer.close()
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], Exception)  # the duplicate key, and only it
    assert _stored(engine) == [1, 2]


def test_a_failing_write_is_reported_even_when_nobody_awaits_it(engine, caplog):
    failures: list[Exception] = []
    writer = GroupCommit(engine, failures.append)

    async def main() -> None:
        writer.write(_insert(1))
        writer.write(_insert(1))  # handed over and left: the writer reports it
        await writer.write(_insert(2))

    with caplog.at_level("ERROR", logger="asyncio"):
        asyncio.run(main())
        gc.collect()  # a failed future nobody heard of would complain as it goes
    writer.close()
    assert len(failures) == 1 and _stored(engine) == [1, 2]
    assert "never retrieved" not in caplog.text


def test_flush_waits_for_what_was_handed_over(engine):
    writer = GroupCommit(engine)

    async def main() -> list[int]:
        writer.write(_insert(7))  # not awaited
        writer.flush()
        return _stored(engine)

    assert asyncio.run(main()) == [7]
    writer.close()


def test_the_writes_of_one_step_of_the_loop_go_in_one_transaction(engine):
    commits = []
    event.listen(engine, "commit", lambda conn: commits.append(1))
    writer = GroupCommit(engine)

    async def main() -> None:
        first = writer.write(_insert(1))  # a job leaves the queue...
        time.sleep(0.05)  # (work that lets other threads run, in the same step)
        second = writer.write(_insert(2))  # ...and the next one starts on its claim
        await asyncio.gather(first, second)
        await writer.write(_insert(3))  # a later step: a transaction of its own

    asyncio.run(main())
    writer.close()
    assert _stored(engine) == [1, 2, 3] and len(commits) == 2


def test_a_closed_writer_refuses_writes_as_a_stopping_daemon(engine):
    """A request that reaches a daemon after its writer closed is told to come back (503),
    not answered with an internal error from a stopped thread."""
    writer = GroupCommit(engine)

    async def main() -> None:
        await writer.write(_insert(1))
        writer.close()
        with pytest.raises(WriterClosed) as refused:
            writer.write(_insert(2))
        assert status_of(refused.value) == (503, "unavailable")
        with pytest.raises(WriterClosed):
            writer.flush()

    asyncio.run(main())
    assert _stored(engine) == [1]
