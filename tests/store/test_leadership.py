"""The central managers' lease (store/leadership.py) and the cycle records
(store/match_records.py), on SQLite and on a real PostgreSQL server: taking, renewing,
expiry, the fence a cycle's commit goes through, HAD_USE_PRIMARY's preference, release.

A controllable clock stands in for the database's where the test needs time to pass;
one test runs on the database's own clock. ``engine`` (conftest.py) is each engine in
turn."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import Engine, select

from fairpool.store.database import (
    had_leases,
    negotiation_cycles,
    negotiation_matches,
)
from fairpool.store.leadership import Lease, LeaseLost
from fairpool.store.match_records import MatchRecord, claim_digest, finish_cycle, record_cycle

LENGTH = 10.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def lease(engine: Engine, me: str, clock: Clock | None, **options) -> Lease:
    return Lease(engine, "", me, LENGTH, clock=clock, **options)


def test_one_holder_at_a_time_until_its_lease_expires(engine: Engine) -> None:
    clock = Clock()
    a, b = lease(engine, "cm1:9618", clock), lease(engine, "cm2:9618", clock)
    first = a.attempt()
    assert first.mine and first.holder == "cm1:9618" and first.term == 1
    assert not b.attempt().mine  # held
    clock.now += LENGTH - 1
    renewed = a.attempt()
    assert renewed.mine and renewed.term == 1  # a renewal keeps the term
    clock.now += LENGTH - 1
    assert not b.attempt().mine  # the renewal counts from when it was made
    clock.now += 1.5
    taken = b.attempt()
    assert taken.mine and taken.holder == "cm2:9618" and taken.term == 2
    late = a.attempt()
    assert not late.mine and late.holder == "cm2:9618"


def test_a_holder_whose_lease_lapsed_starts_a_new_term(engine: Engine) -> None:
    clock = Clock()
    a = lease(engine, "cm1:9618", clock)
    assert a.attempt().term == 1
    clock.now += LENGTH + 1  # nobody took it meanwhile, but it was not held throughout
    assert a.attempt().term == 2


def test_the_fence_lets_only_the_unexpired_holder_of_the_term_commit(engine: Engine) -> None:
    clock = Clock()
    a, b = lease(engine, "cm1:9618", clock), lease(engine, "cm2:9618", clock)
    term = a.attempt().term
    match = MatchRecord("slot1@x", "secret-1", "1.0", "http://schedd", "alice@x")
    with engine.begin() as conn:
        a.fence(conn, term)
        record_cycle(conn, "", "cm1:9618", term, clock.now, [match], kept=10)
    clock.now += LENGTH + 1
    with pytest.raises(LeaseLost), engine.begin() as conn:  # expired: no commit
        record_cycle(conn, "", "cm1:9618", term, clock.now, [match], kept=10)
        a.fence(conn, term)
    b.attempt()
    with pytest.raises(LeaseLost), engine.begin() as conn:  # another's now
        a.fence(conn, term)
    with pytest.raises(LeaseLost), engine.begin() as conn:  # an old term of the same holder
        b.fence(conn, term)
    with engine.connect() as conn:
        cycles = conn.execute(select(negotiation_cycles)).mappings().all()
        matches = conn.execute(select(negotiation_matches)).mappings().all()
    assert [(c["holder"], c["term"]) for c in cycles] == [("cm1:9618", term)]  # one, not two
    assert [m["claim"] for m in matches] == [claim_digest("secret-1")]
    assert "secret-1" not in str(matches)  # the ClaimId itself is not kept


def test_the_primary_is_preferred_while_it_is_up(engine: Engine) -> None:
    clock = Clock()
    options = {"primary": "cm1:9618", "fresh": 3.0}
    primary = lease(engine, "cm1:9618", clock, **options)
    other = lease(engine, "cm2:9618", clock, **options)
    assert other.attempt().mine  # the primary has never been heard from
    clock.now += 1
    assert not primary.attempt().mine  # held by the other: the primary waits
    standing = other.attempt()
    assert standing.primary_up and not standing.mine and standing.holder == "cm2:9618"
    assert other.release(standing.term)  # the other hands over...
    assert not other.release(standing.term)  # ...once
    taken = primary.attempt()
    assert taken.mine and taken.term == standing.term + 1
    clock.now += 1
    assert not other.attempt().mine
    clock.now += LENGTH + 1  # the primary died: its contact goes stale, its lease expires
    assert other.attempt().mine


def test_the_database_clock_and_concurrent_candidates(engine: Engine) -> None:
    a, b = Lease(engine, "east", "cm1:9618", 0.5), Lease(engine, "east", "cm2:9618", 0.5)
    other_group = Lease(engine, "west", "cm2:9618", 0.5)
    assert a.attempt().mine
    assert not b.attempt().mine
    assert other_group.attempt().mine  # each group its own lease
    deadline = time.monotonic() + 5
    while not b.attempt().mine:
        assert time.monotonic() < deadline, "the lease never expired by the database's clock"
        time.sleep(0.05)
    with engine.connect() as conn:
        rows = dict(conn.execute(select(had_leases.c.accountant, had_leases.c.holder)).all())
    assert rows == {"east": "cm2:9618", "west": "cm2:9618"}


def test_old_cycles_are_pruned_and_a_cycle_is_stamped_when_sent(engine: Engine) -> None:
    clock = Clock()
    a = lease(engine, "cm1:9618", clock)
    term = a.attempt().term
    ids = []
    for number in range(5):
        match = MatchRecord(f"slot{number}@x", f"c{number}", f"1.{number}", "s", "alice@x")
        with engine.begin() as conn:
            a.fence(conn, term)
            ids.append(record_cycle(conn, "", "cm1:9618", term, clock.now, [match], kept=2))
    finish_cycle(engine, ids[-1], 123.5, "test")
    with engine.connect() as conn:
        cycles = conn.execute(select(negotiation_cycles.c.id, negotiation_cycles.c.finished))
        kept = dict(cycles.all())
        slots = conn.execute(select(negotiation_matches.c.slot)).scalars().all()
    assert kept == {ids[-2]: None, ids[-1]: 123.5}
    assert sorted(slots) == ["slot3@x", "slot4@x"]


def test_candidates_share_one_row_per_group(engine: Engine) -> None:
    clock = Clock()
    leases = [lease(engine, f"cm{n}:9618", clock) for n in (1, 2, 3)]
    assert [standing.mine for standing in (x.attempt() for x in leases)] == [True, False, False]
    with engine.connect() as conn:
        assert conn.execute(select(had_leases.c.holder)).scalars().all() == ["cm1:9618"]
