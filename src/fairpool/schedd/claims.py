"""Which idle job a claim the schedd already holds runs next.

The negotiator matches one job to one slot; the schedd may then run more on what it
claimed, without asking again (seed "Configuration for Central Managers", HTCondor's
schedd):

* **claim reuse**: when a job completes, its claim runs the same submitter's first idle
  job (in queue order) that matches the slot and holds the same concurrency limits,
  until the startd ends the claim (``CLAIM_WORKLIFE``);
* **partitionable leftovers** (``CLAIM_PARTITIONABLE_LEFTOVERS``): when a job is matched
  to a partitionable slot, the submitter's other idle jobs that still fit are started
  on what is left of it, as far as their concurrency limits allow.

The simulator's pool (sim/pool.py) and the live schedd (daemons/schedd.py) both choose
with these functions.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..classad import ClassAd
from ..classad.match import symmetric_match
from ..classad.match_memo import MatchMemo
from ..negotiator.concurrency import LimitCounter, job_limits
from .queue import JobQueue

__all__ = ["leftover_jobs", "next_job"]


def next_job(
    queue: JobQueue,
    submitter: str,
    slot: ClassAd,
    finished: ClassAd,
    now: float,
    memo: MatchMemo | None = None,
) -> ClassAd | None:
    """The job the claim of ``finished`` on ``slot`` runs next (None: release it).
    ``memo``: the claim's own, which spares the next job of a cluster its match."""
    limits = job_limits(finished, slot, now)
    match = symmetric_match if memo is None else memo.symmetric_match
    for job in queue.idle_of(submitter):
        if job_limits(job, slot, now) == limits and match(job, slot, now=now):
            return job
    return None


def leftover_jobs(
    queue: JobQueue, submitter: str, pslot: ClassAd, in_use: LimitCounter, now: float
) -> Iterator[ClassAd]:
    """The submitter's idle jobs, in queue order, that match what is left of ``pslot``
    and that no concurrency limit in ``in_use`` blocks. The caller carves each one it
    starts out of ``pslot`` (so the next one is judged against what is left then) and
    adds its limits to ``in_use``."""
    for job in queue.idle_of(submitter):
        if not symmetric_match(job, pslot, now=now):
            continue
        if in_use.blocked(job_limits(job, pslot, now) or []):
            continue
        yield job
