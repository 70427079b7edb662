"""The HTCondorView samples (store/pool_history.py) in their own SQLite file and in a
shared PostgreSQL database: samples come back by time and name, POOL_HISTORY_MAX_STORAGE
drops the oldest, and collectors sharing a database each read and trim their own."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from fairpool.store.pool_history import PoolHistory


@pytest.fixture
def place(location: str, engine: Engine, tmp_path: Path) -> Path | Engine:
    """A directory for SQLite (the samples' own file), the test's database for PostgreSQL."""
    return tmp_path / "history" if "://" not in location else engine


def test_samples_come_back_by_time_and_name(place):
    history = PoolHistory(place, 10_000_000)
    for minute in range(3):
        history.record(
            60.0 * minute,
            [("slot1@a", "Claimed", "Busy"), ("slot2@a", "Unclaimed", "Idle")],
            [("alice@d", minute, 3 - minute), ("bob@d", 1, 0)],
        )
    alice = history.submitters(60, 120, "alice@d")
    assert [(s.time, s.running, s.idle) for s in alice] == [(60.0, 1, 2), (120.0, 2, 1)]
    slots = history.resources(0, 60, None)
    assert [(s.time, s.name, s.state) for s in slots] == [
        (0.0, "slot1@a", "Claimed"),
        (0.0, "slot2@a", "Unclaimed"),
        (60.0, "slot1@a", "Claimed"),
        (60.0, "slot2@a", "Unclaimed"),
    ]
    assert history.names("submitter") == ["alice@d", "bob@d"]
    assert history.names("resource") == ["slot1@a", "slot2@a"]
    history.close()


def test_max_storage_drops_the_oldest_samples(place):
    history = PoolHistory(place, 200_000)
    slots = [(f"slot{n}@host", "Claimed", "Busy") for n in range(50)]
    for minute in range(200):
        history.record(60.0 * minute, slots, [("a@d", minute, 0)])
    kept = history.submitters(0, 1e12, "a@d")
    assert 0 < len(kept) < 200 and kept[-1].running == 199  # the newest stay
    assert kept[0].time > 0  # the oldest went
    history.close()


def test_collectors_sharing_a_database_keep_their_own(engine):
    """Two central managers' view collectors in one database: each reads its own
    samples, and one's bound trims only its own (on PostgreSQL it counts only its own
    rows too; an SQLite file counts whole)."""
    big = PoolHistory(engine, 10_000_000, "collector@cm1")
    small = PoolHistory(engine, 20_000, "collector@cm2")
    slots = [(f"slot{n}@host", "Claimed", "Busy") for n in range(20)]
    for minute in range(60):
        big.record(60.0 * minute, slots, [("a@d", minute, 0)])
        small.record(60.0 * minute, slots, [("b@d", minute, 0)])
    assert len(big.submitters(0, 1e12, None)) == 60  # untouched by the other's bound
    assert big.names("submitter") == ["a@d"] and small.names("submitter") == ["b@d"]
    kept = small.submitters(0, 1e12, None)
    assert 0 < len(kept) < 60 and kept[-1].running == 59
    if engine.dialect.name == "postgresql":  # ~1 KB a sample: about 20 of its own fit
        assert len(kept) > 5
