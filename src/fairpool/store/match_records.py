"""The matches each committed negotiation cycle handed out, kept in the shared database
by the negotiators of a high-availability group, so that anyone can check afterwards
that two of them were never active at once and that no claim was handed out twice.

A cycle's row (its holder, the lease's term, when it began by the negotiator's clock,
when it committed by the database's) and its matches are written in the transaction
that commits the cycle's accounting, after the lease's fence (store/leadership.py): a
cycle is recorded exactly when it is committed. ``finished`` is stamped once its
matches were sent (it stays NULL when they were not: the holder's lease ran out first,
or it died). A match names the slot, its job and schedd, and a digest of the slot's
ClaimId (the ClaimId itself is a secret: whoever holds it may claim the slot).

Only the last ``kept`` cycles of an accountant are kept (NEGOTIATOR_CYCLES_KEPT, as the
negotiator keeps in memory): each commit deletes older ones.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import (
    Connection,
    Engine,
    delete,
    insert,
    select,
    update,
)

from .database import database_errors, negotiation_cycles, negotiation_matches
from .leadership import database_now

__all__ = [
    "MatchRecord",
    "claim_digest",
    "finish_cycle",
    "record_cycle",
]


@dataclass(frozen=True)
class MatchRecord:
    slot: str
    claim_id: str | None
    job: str
    schedd: str
    submitter: str


def claim_digest(claim_id: str | None) -> str:
    """What the records keep of a ClaimId: enough to tell two apart, not to claim."""
    return hashlib.sha256((claim_id or "").encode()).hexdigest()[:32]


def record_cycle(
    conn: Connection,
    accountant: str,
    holder: str,
    term: int,
    started: float,
    matches: Sequence[MatchRecord],
    kept: int,
) -> int:
    """Inside the cycle's transaction: its row and matches (and older cycles beyond the
    last ``kept`` deleted); the cycle's id."""
    row = {"accountant": accountant, "holder": holder, "term": term, "started": started}
    cycle = conn.execute(
        insert(negotiation_cycles).values(**row, committed=database_now())
    ).inserted_primary_key[0]
    if matches:
        conn.execute(
            insert(negotiation_matches),
            [
                {
                    "cycle": cycle,
                    "slot": m.slot,
                    "claim": claim_digest(m.claim_id),
                    "job": m.job,
                    "schedd": m.schedd,
                    "submitter": m.submitter,
                }
                for m in matches
            ],
        )
    _prune(conn, accountant, cycle - kept)
    return cycle


def _prune(conn: Connection, accountant: str, last_dropped: int) -> None:
    old = select(negotiation_cycles.c.id).where(
        negotiation_cycles.c.accountant == accountant, negotiation_cycles.c.id <= last_dropped
    )
    conn.execute(delete(negotiation_matches).where(negotiation_matches.c.cycle.in_(old)))
    conn.execute(
        delete(negotiation_cycles).where(
            negotiation_cycles.c.accountant == accountant,
            negotiation_cycles.c.id <= last_dropped,
        )
    )


def finish_cycle(engine: Engine, cycle: int, finished: float, where: str) -> None:
    """Stamp a recorded cycle's matches as sent (``finished``: when the sending ended, by
    the negotiator's clock, however late the stamp reaches the database)."""
    with database_errors(where), engine.begin() as conn:
        conn.execute(
            update(negotiation_cycles)
            .where(negotiation_cycles.c.id == cycle)
            .values(finished=finished)
        )
