"""Each store test runs on both engines: SQLite in a state directory, and a fresh
database on the run's own PostgreSQL server (tests/postgres.py; skipped where PostgreSQL
is not installed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairpool.store.database import open_database


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where the test's database is: a state directory, or a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "spool")
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def engine(location: str):
    engine = open_database(location)
    yield engine
    engine.dispose()


@pytest.fixture
def reopen(location: str):
    """Open the test's database again, as a restarted daemon does (every engine opened
    disposed of at the end: a PostgreSQL server's connections are counted)."""
    opened = []

    def again():
        opened.append(open_database(location))
        return opened[-1]

    yield again
    for engine in opened:
        engine.dispose()
