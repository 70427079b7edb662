"""condor_q's listings, character for character: the banner, the batch layout (the default),
``-nobatch``, ``-run``, ``-hold``, ``-totals``, and the totals lines.

Sources (HTCondor 23-25; tests/cli/test_listings_queue.py cites each with real output): the
condor_q manual page; the print-format manual (the ``-nobatch`` format: ID, OWNER
``WIDTH -14``, SUBMITTED ``WIDTH 11``, RUN_TIME ``WIDTH 12``); real output of 2019-2025
pools; HTCondor's own test expectations (src/condor_tests/CheckOutputFormats.pm).

* Output opens with two blank lines and ``-- Schedd: NAME : <ADDR?... @ MM/DD/YY HH:MM:SS``
  (the address is cut after ``?``); the table follows, then a blank line, the totals
  lines and a blank line. ``-run`` prints no totals and ends after its table.
* Totals: ``Total for query: N jobs; C completed, R removed, I idle, U running, H held,
  S suspended`` then the same ``Total for USER:`` (when the query was one user's) and
  ``Total for all users:``; the first two end in a blank, as condor_q prints them.
* Batch rows: a batch is the jobs of one owner with one ``JobBatchName``, or one cluster
  (``ID: <cluster>``); counts of zero show as ``_``; HOLD appears only when a job is held
  or there is no job; TOTAL is the batch's ``TotalSubmitProcs`` (the jobs it submitted),
  DONE those of them no longer in the queue; JOB_IDS is ``C.P`` for one job, ``C.P-Q``
  for one cluster, ``C.P ... D.Q`` (first and last) for several.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ...classad import ClassAd
from ...schedd.queue import COMPLETED, HELD, IDLE, REMOVED, RUNNING, SUSPENDED, TRANSFERRING_OUTPUT
from . import clock
from .attributes import number, text
from .columns import Column, table
from .jobs import (
    ID_OWNER,
    command,
    ids_and_owners,
    job_id,
    owner,
    run_time,
    size,
    status_letter,
    submitted_at,
)

__all__ = [
    "LAYOUTS",
    "JobCounts",
    "Totals",
    "banner",
    "batch",
    "hold",
    "listing",
    "nobatch",
    "run",
]

LAYOUTS = ("batch", "nobatch", "run", "hold", "totals")
_RUN = (RUNNING, TRANSFERRING_OUTPUT)  # counted as running


@dataclass(frozen=True)
class JobCounts:
    """Jobs by status, as the totals lines count them (transferring output is running)."""

    total: int = 0
    completed: int = 0
    removed: int = 0
    idle: int = 0
    running: int = 0
    held: int = 0
    suspended: int = 0

    @classmethod
    def of(cls, jobs: Iterable[ClassAd], now: float) -> JobCounts:
        statuses = [number(job, "JobStatus", now) for job in jobs]
        return cls(
            total=len(statuses),
            completed=statuses.count(COMPLETED),
            removed=statuses.count(REMOVED),
            idle=statuses.count(IDLE),
            running=sum(s in _RUN for s in statuses),
            held=statuses.count(HELD),
            suspended=statuses.count(SUSPENDED),
        )

    def text(self) -> str:
        return (
            f"{self.total} jobs; {self.completed} completed, {self.removed} removed, "
            f"{self.idle} idle, {self.running} running, {self.held} held, "
            f"{self.suspended} suspended"
        )


@dataclass(frozen=True)
class Totals:
    """The totals lines: the query's, one user's (when condor_q showed only that user's
    jobs), and the whole queue's."""

    query: JobCounts
    user: tuple[str, JobCounts] | None = None
    everyone: JobCounts | None = None

    @classmethod
    def of(
        cls,
        jobs: Sequence[ClassAd],
        now: float,
        queue: Sequence[ClassAd] | None = None,
        user: str | None = None,
    ) -> Totals:
        """Counted from the query's jobs and, for the user and all-users lines, every job in
        the queue (``queue``; the query's jobs when it is not given)."""
        pool = jobs if queue is None else queue
        mine = None
        if user is not None:
            mine = (user, JobCounts.of((j for j in pool if owner(j, now) == user), now))
        everyone = None if queue is None else JobCounts.of(queue, now)
        return cls(JobCounts.of(jobs, now), mine, everyone)

    def lines(self) -> list[str]:
        lines = [f"Total for query: {self.query.text()} "]
        if self.user is not None:
            lines.append(f"Total for {self.user[0]}: {self.user[1].text()} ")
        if self.everyone is not None:
            lines.append(f"Total for all users: {self.everyone.text()}")
        return lines


def banner(schedd_name: str, schedd_address: str, now: float) -> str:
    """``-- Schedd: NAME : <ADDR?... @ MM/DD/YY HH:MM:SS``."""
    cut = schedd_address.find("?")
    address = schedd_address[: cut + 1] + "..." if cut >= 0 else schedd_address
    return f"-- Schedd: {schedd_name} : {address} @ {clock.stamp(now)}"


def listing(
    jobs: Sequence[ClassAd],
    *,
    now: float,
    schedd_name: str,
    schedd_address: str,
    totals: Totals,
    layout: str = "batch",
    cumulative: bool = False,
) -> str:
    """The whole output of condor_q in one of LAYOUTS (``totals``: the totals lines only)."""
    if layout not in LAYOUTS:
        raise ValueError(f"unknown condor_q layout {layout!r}; expected one of {LAYOUTS}")
    if layout == "totals":
        return "\n".join(totals.lines()) + "\n"
    if layout == "batch":
        rows = batch(jobs, now)
    elif layout == "hold":
        rows = hold(jobs, now)
    else:
        rows = (run if layout == "run" else nobatch)(jobs, now, cumulative)
    head = ["", "", banner(schedd_name, schedd_address, now), *rows]
    if layout == "run":
        return "\n".join(head) + "\n"
    return "\n".join([*head, "", *totals.lines(), ""]) + "\n"


# -- the batch layout -----------------------------------------------------------------
@dataclass
class _Batch:
    owner: str
    name: str
    jobs: list[ClassAd]


def batch(jobs: Sequence[ClassAd], now: float) -> list[str]:
    """The default layout: one line per batch."""
    batches = _batches(jobs, now)
    show_hold = not jobs or any(number(j, "JobStatus", now) == HELD for j in jobs)
    columns = [
        Column("OWNER"),
        # an empty listing prints BATCH_NAME 12 wide (every real empty listing since 2019)
        Column("BATCH_NAME", width=10 if batches else 12),
        Column("SUBMITTED", right=True, width=12),  # the 11-character date, 2 blanks before
        Column("DONE", right=True, width=6),
        Column("RUN ", right=True, width=6),  # the RUN heading stands one left of its numbers
        Column("IDLE", right=True, width=6),
        *([Column("HOLD", right=True, width=6)] if show_hold else []),
        Column("TOTAL", right=True, width=6),
        Column("JOB_IDS"),
    ]
    return table(columns, [_batch_row(b, now, show_hold) for b in batches])


def _batches(jobs: Sequence[ClassAd], now: float) -> list[_Batch]:
    groups: dict[tuple[str, str, str], _Batch] = {}
    for job in _in_order(jobs, now):
        name = text(job, "JobBatchName", now)
        who = owner(job, now)
        cluster = job_id(job, now)[0]
        key = (who, "name", name) if name is not None else (who, "cluster", str(cluster))
        label = name if name is not None else f"ID: {cluster}"
        groups.setdefault(key, _Batch(who, label, [])).jobs.append(job)
    return list(groups.values())


def _batch_row(batch: _Batch, now: float, show_hold: bool) -> list[str]:
    statuses = [number(j, "JobStatus", now) for j in batch.jobs]
    total = _submitted(batch.jobs, now)
    dates = [d for d in (number(j, "QDate", now) for j in batch.jobs) if d is not None]
    held = [_count(statuses.count(HELD))] if show_hold else []
    return [
        batch.owner,
        batch.name,
        clock.month_day(min(dates)) if dates else "",
        _count(max(total - len(batch.jobs), 0)),
        _count(sum(s in _RUN for s in statuses)),
        _count(statuses.count(IDLE)),
        *held,
        _count(total),
        _job_ids([job_id(j, now) for j in batch.jobs]),
    ]


def _submitted(jobs: Sequence[ClassAd], now: float) -> int:
    """The jobs the batch's clusters submitted (TotalSubmitProcs), or those in the queue
    for a cluster whose jobs do not say."""
    per_cluster: dict[int, list[ClassAd]] = {}
    for job in jobs:
        per_cluster.setdefault(job_id(job, now)[0], []).append(job)
    total = 0
    for members in per_cluster.values():
        said = [n for n in (number(j, "TotalSubmitProcs", now) for j in members) if n]
        total += int(max(said)) if said else len(members)
    return total


def _count(n: int) -> str:
    return str(n) if n else "_"


def _job_ids(ids: list[tuple[int, int]]) -> str:
    first, last = min(ids), max(ids)
    if first == last:
        return f"{first[0]}.{first[1]}"
    if first[0] == last[0]:
        return f"{first[0]}.{first[1]}-{last[1]}"
    return f"{first[0]}.{first[1]} ... {last[0]}.{last[1]}"


# -- one line per job -------------------------------------------------------------------
def nobatch(jobs: Sequence[ClassAd], now: float, cumulative: bool = False) -> list[str]:
    """``-nobatch``: ID OWNER SUBMITTED RUN_TIME ST PRI SIZE CMD, in job id order."""
    jobs = _in_order(jobs, now)
    ids = ids_and_owners(jobs, now)
    rows = [
        [
            *ids[i],
            submitted_at(job, now),
            clock.duration(run_time(job, now, cumulative)),
            status_letter(job, now),
            _priority(job, now),
            size(job, now),
            command(job, now),
        ]
        for i, job in enumerate(jobs)
    ]
    columns = [
        *ID_OWNER,
        Column("  SUBMITTED", right=True, width=11),
        Column("    RUN_TIME", right=True, width=12),
        Column("ST", width=2),
        Column("PRI", width=3),
        Column("SIZE", right=True, width=4, heading_left=True),
        Column("CMD"),
    ]
    return table(columns, rows)


def run(jobs: Sequence[ClassAd], now: float, cumulative: bool = False) -> list[str]:
    """``-run``: ID OWNER SUBMITTED RUN_TIME HOST(S) (the query selects running jobs)."""
    jobs = _in_order(jobs, now)
    ids = ids_and_owners(jobs, now)
    rows = [
        [
            *ids[i],
            submitted_at(job, now),
            clock.duration(run_time(job, now, cumulative)),
            text(job, "RemoteHost", now) or "",
        ]
        for i, job in enumerate(jobs)
    ]
    columns = [
        *ID_OWNER,
        Column("  SUBMITTED", right=True, width=11),
        Column("    RUN_TIME", right=True, width=12),
        Column("HOST(S)"),
    ]
    return table(columns, rows)


def hold(jobs: Sequence[ClassAd], now: float) -> list[str]:
    """``-hold``: ID OWNER HELD_SINCE CODE/SUB HOLD_REASON (CODE/SUB since 24.10)."""
    jobs = _in_order(jobs, now)
    ids = ids_and_owners(jobs, now)
    rows = []
    for i, job in enumerate(jobs):
        since = number(job, "EnteredCurrentStatus", now)
        code, sub = number(job, "HoldReasonCode", now), number(job, "HoldReasonSubCode", now)
        rows.append(
            [
                *ids[i],
                clock.month_day(since) if since is not None else "",
                "" if code is None else f"{int(code)}/{int(sub or 0)}",
                text(job, "HoldReason", now) or "",
            ]
        )
    columns = [
        *ID_OWNER,
        Column("HELD_SINCE", width=11),
        Column("CODE/SUB"),
        Column("HOLD_REASON"),
    ]
    return table(columns, rows)


def _in_order(jobs: Sequence[ClassAd], now: float) -> list[ClassAd]:
    return sorted(jobs, key=lambda job: job_id(job, now))


def _priority(job: ClassAd, now: float) -> str:
    prio = number(job, "JobPrio", now)
    return str(int(prio)) if prio is not None else "0"
