"""condor_history's default listing: ID OWNER SUBMITTED RUN_TIME ST COMPLETED CMD, newest
first (condor_history reads its file from the end).

Sources (tests/cli/test_listings_formats.py quotes real output): the columns of condor_q's
``-nobatch`` with RUN_TIME the job's ``RemoteWallClockTime``, ST its final status and
COMPLETED its ``CompletionDate`` (`` M/D  HH:MM``, blank when the job never completed);
CMD is ``Cmd`` whole, with its arguments. No banner, no totals.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...classad import ClassAd
from . import clock
from .attributes import number
from .columns import Column, table
from .jobs import ID_OWNER, command, ids_and_owners, status_letter, submitted_at

__all__ = ["history"]


def history(ads: Sequence[ClassAd], *, now: float) -> str:
    """``ads`` in the order they joined the history (oldest first); printed newest first."""
    newest = list(reversed(ads))
    ids = ids_and_owners(newest, now)
    rows = []
    for i, job in enumerate(newest):
        completed = number(job, "CompletionDate", now)
        rows.append(
            [
                *ids[i],
                submitted_at(job, now),
                clock.duration(number(job, "RemoteWallClockTime", now) or 0),
                status_letter(job, now),
                clock.month_day(completed) if completed else "",
                command(job, now, full_path=True),
            ]
        )
    columns = [
        *ID_OWNER,
        Column("  SUBMITTED", right=True, width=11),
        Column("    RUN_TIME", right=True, width=12),
        Column("ST", width=2),
        Column("  COMPLETED", right=True, width=11),
        Column("CMD"),
    ]
    return "\n".join(table(columns, rows)) + "\n"
