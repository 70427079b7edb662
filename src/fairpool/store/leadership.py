"""Which central manager's negotiator is the active one: a lease in the shared database.

HTCondor's condor_had daemons elect the active central manager among themselves (seed
002, "High Availability of the Central Manager"); fairpool implements no election of
its own: the database the central managers share decides. Each HA group (the central
managers of one HAD_LIST, sharing one accountant) has one row in ``had_leases``: its
holder (a HAD_LIST entry), its term (a number that grows each time the lease passes to
a new holding: the fencing token) and when it expires, in the *database's* clock, so the
central managers' own clocks never disagree about it. A candidate takes the lease, or
renews its own, with one conditional UPDATE (holder is me, or none, or it has expired):
whatever the timing, the database lets one holder have it at a time.

Each candidate's last contact is kept in ``had_members``: with HAD_USE_PRIMARY a
candidate other than the primary (the first of HAD_LIST) takes no free lease while the
primary's contact is fresh, and a holder that sees it hands the lease over
(daemons/had.py).

``fence`` runs inside the transaction that commits a negotiation cycle: a conditional
UPDATE that must touch the lease row as this holder, in this term, unexpired; if it does
not, the cycle is not committed. On PostgreSQL it holds the lease row until the commit,
so a successor takes the lease (and reads the accountant) only after that commit; the
successor's reads see it.

On PostgreSQL every transaction here is bounded (``lock_timeout``, ``statement_timeout``,
``idle_in_transaction_session_timeout``): a holder cut off from the database in the
middle of a transaction does not keep the lease row locked for longer than that, so its
successor is not held up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import (
    Connection,
    Engine,
    Float,
    and_,
    case,
    exists,
    insert,
    literal,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.expression import ColumnElement, FunctionElement

from ..errors import StateError
from .database import database_errors, had_leases, had_members, shown

__all__ = ["Lease", "LeaseLost", "Standing", "database_now"]


class LeaseLost(StateError):
    """A cycle's commit found the lease no longer this holder's."""


class database_now(FunctionElement):
    """The database's clock in epoch seconds (PostgreSQL's ``clock_timestamp()``: the
    moment of the statement, not of the transaction's start)."""

    type = Float()
    inherit_cache = True


@compiles(database_now, "postgresql")
def _now_postgresql(element, compiler, **kw) -> str:
    return "CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION)"


@compiles(database_now)
def _now_sqlite(element, compiler, **kw) -> str:
    return "((julianday('now') - 2440587.5) * 86400.0)"


@dataclass(frozen=True)
class Standing:
    """The lease as one attempt left it."""

    holder: str  # its holder now ("" none)
    term: int
    mine: bool  # this candidate holds it (just taken or renewed)
    primary_up: bool  # HAD_USE_PRIMARY: another candidate, the primary, is in contact


class Lease:
    """One candidate's view of its group's lease.

    ``length``: how long a taking or renewal holds (seconds); ``primary``: the entry that
    HAD_USE_PRIMARY prefers (None: no preference); ``fresh``: how recent a member's last
    contact must be for it to count as up; ``bound``: the PostgreSQL timeouts of each
    transaction; ``clock``: a Python clock in place of the database's (tests)."""

    def __init__(
        self,
        engine: Engine,
        group: str,
        me: str,
        length: float,
        *,
        primary: str | None = None,
        fresh: float = 1.0,
        bound: float = 5.0,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.engine, self.group, self.me = engine, group, me
        self.length, self.primary, self.fresh, self.bound = length, primary, fresh, bound
        self.clock = clock
        self.where = shown(engine.url)
        self._add_row()

    def _now(self) -> ColumnElement[float]:
        return literal(self.clock(), Float) if self.clock is not None else database_now()

    def _add_row(self) -> None:
        """The group's lease row, held by no one, if there is none yet (two candidates
        may add it at once: the database keeps one)."""
        with database_errors(self.where):
            try:
                with self.engine.begin() as conn:
                    found = conn.execute(select(had_leases.c.term).where(self._row)).first()
                    if found is None:
                        conn.execute(insert(had_leases).values(accountant=self.group))
            except IntegrityError:
                pass

    @property
    def _row(self) -> ColumnElement[bool]:
        return had_leases.c.accountant == self.group

    def attempt(self, take: bool = True) -> Standing:
        """Record this candidate's contact, then take or renew the lease if it may
        (``take``, and not while HAD_USE_PRIMARY's primary is up); the lease after."""
        with database_errors(self.where), self.engine.begin() as conn:
            self._limit(conn)
            self._contact(conn)
            primary_up = self._primary_up(conn)
            if take and not primary_up:
                now = self._now()
                ongoing = and_(had_leases.c.holder == self.me, had_leases.c.expires >= now)
                conn.execute(
                    update(had_leases)
                    .where(
                        self._row,
                        or_(
                            had_leases.c.holder == self.me,
                            had_leases.c.holder == "",
                            had_leases.c.expires < now,
                        ),
                    )
                    .values(
                        holder=self.me,
                        expires=now + self.length,
                        term=case((ongoing, had_leases.c.term), else_=had_leases.c.term + 1),
                    )
                )
            holder, term = conn.execute(
                select(had_leases.c.holder, had_leases.c.term).where(self._row)
            ).one()
        return Standing(holder, term, holder == self.me and take and not primary_up, primary_up)

    def _contact(self, conn: Connection) -> None:
        mine = and_(had_members.c.accountant == self.group, had_members.c.member == self.me)
        now = self._now()
        if conn.execute(update(had_members).where(mine).values(seen=now)).rowcount == 0:
            row = {"accountant": self.group, "member": self.me, "seen": now}
            conn.execute(insert(had_members).values(**row))

    def _primary_up(self, conn: Connection) -> bool:
        if self.primary is None or self.primary == self.me:
            return False
        fresh = and_(
            had_members.c.accountant == self.group,
            had_members.c.member == self.primary,
            had_members.c.seen >= self._now() - self.fresh,
        )
        return bool(conn.execute(select(exists().where(fresh))).scalar())

    def release(self, term: int) -> bool:
        """Give the lease up (a handover, or a clean stop) so that another candidate
        takes it at once; False if it was no longer this holding's."""
        with database_errors(self.where), self.engine.begin() as conn:
            self._limit(conn)
            gone = conn.execute(
                update(had_leases)
                .where(self._row, had_leases.c.holder == self.me, had_leases.c.term == term)
                .values(holder="", expires=0.0)
            )
        return gone.rowcount == 1

    def fence(self, conn: Connection, term: int) -> None:
        """Inside a cycle's transaction: go on only while the lease is this holding's
        and unexpired (``LeaseLost`` otherwise, which rolls the transaction back)."""
        self._limit(conn)
        held = conn.execute(
            update(had_leases)
            .where(
                self._row,
                had_leases.c.holder == self.me,
                had_leases.c.term == term,
                had_leases.c.expires > self._now(),
            )
            .values(term=had_leases.c.term)
        )
        if held.rowcount != 1:
            raise LeaseLost(f"the lease of term {term} is no longer {self.me}'s", self.where)

    def _limit(self, conn: Connection) -> None:
        """PostgreSQL: no statement, lock wait or idle spell in this transaction longer
        than ``bound`` (SQLite's writers wait on its busy timeout)."""
        if conn.dialect.name != "postgresql":
            return
        ms = max(1, round(self.bound * 1000))
        for setting in ("lock_timeout", "statement_timeout", "idle_in_transaction_session_timeout"):
            conn.exec_driver_sql(f"SET LOCAL {setting} = {ms}")
