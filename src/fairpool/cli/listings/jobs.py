"""What the job listings read from a job ad: its id, owner, status letter, run time, size and
command, as condor_q and condor_history show them.

* ST (condor_q manual, "Output data"): I idle, R running, X removed, C completed, H held,
  > transferring output, S suspended; a running job moving its sandbox shows ``<`` (input)
  or ``>`` (output), ``<q`` / ``q>`` while it waits in the transfer queue.
* RUN_TIME (condor_q manual, ``-currentrun`` and ``-cumulative-time``): by default the
  wall-clock time of the current run (from ``ShadowBday``, else ``JobCurrentStartDate``),
  and for a job not running the time it accumulated (``RemoteWallClockTime``); with
  ``cumulative`` the accumulated time plus the current run.
* SIZE (condor_q manual): ``MemoryUsage`` (MB) when defined, else ``ImageSize`` (KiB) in
  MB, as ``%.1f``.
* CMD (print-format manual, JOB_DESCRIPTION): ``JobDescription`` when set, else the base
  name of ``Cmd`` and the arguments (``Args``, or ``Arguments``).

An attribute a job lacks counts as nothing: no accumulated time, no size (a blank cell).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...classad import ClassAd
from ...schedd.queue import RUNNING, STATUS_LETTERS, SUSPENDED, TRANSFERRING_OUTPUT
from . import clock
from .attributes import number, text
from .columns import Column

__all__ = [
    "ACTIVE",
    "ID_OWNER",
    "command",
    "ids_and_owners",
    "job_id",
    "owner",
    "run_time",
    "size",
    "status_letter",
    "submitted_at",
]

ACTIVE = (RUNNING, TRANSFERRING_OUTPUT, SUSPENDED)  # a shadow is alive: the run goes on


def owner(job: ClassAd, now: float) -> str:
    return text(job, "Owner", now) or ""


def job_id(job: ClassAd, now: float) -> tuple[int, int]:
    """(ClusterId, ProcId), -1 for a missing part."""
    cluster, proc = number(job, "ClusterId", now), number(job, "ProcId", now)
    return int(cluster if cluster is not None else -1), int(proc if proc is not None else -1)


def status_letter(job: ClassAd, now: float) -> str:
    status = number(job, "JobStatus", now)
    if status in (RUNNING, TRANSFERRING_OUTPUT):
        queued = job.eval("TransferQueued", now=now) is True
        if job.eval("TransferringOutput", now=now) is True or status == TRANSFERRING_OUTPUT:
            return "q>" if queued else ">"
        if job.eval("TransferringInput", now=now) is True:
            return "<q" if queued else "<"
    return STATUS_LETTERS.get(int(status), "?") if status is not None else "?"


def run_time(job: ClassAd, now: float, cumulative: bool = False) -> float:
    """Seconds of wall-clock time for RUN_TIME (see the module docstring)."""
    accumulated = number(job, "RemoteWallClockTime", now) or 0.0
    if number(job, "JobStatus", now) not in ACTIVE:
        return accumulated
    started = number(job, "ShadowBday", now) or number(job, "JobCurrentStartDate", now)
    current = now - started if started else 0.0
    return accumulated + current if cumulative else current


def size(job: ClassAd, now: float) -> str:
    memory = number(job, "MemoryUsage", now)
    if memory is None:
        image = number(job, "ImageSize", now)
        memory = image / 1024 if image is not None else None
    return "" if memory is None else f"{memory:.1f}"


def command(job: ClassAd, now: float, full_path: bool = False) -> str:
    """The CMD cell; condor_history shows ``Cmd`` whole (``full_path``), condor_q its base
    name."""
    described = text(job, "JobDescription", now)
    if described is not None:
        return described
    cmd = text(job, "Cmd", now) or ""
    args = text(job, "Args", now) or text(job, "Arguments", now) or ""
    name = cmd if full_path else cmd.rsplit("/", 1)[-1]
    return f"{name} {args}" if args else name


# ID is the cluster right-aligned in at least 4 and ``.proc`` left-aligned in at least 3
# (print-format manual: ``%-3d`` after the dot); OWNER is cut to 14 characters (real
# output: "daniel.william" for daniel.williams).
ID_OWNER = [Column(" ID", width=8), Column("OWNER", width=14)]


def ids_and_owners(jobs: Sequence[ClassAd], now: float) -> list[tuple[str, str]]:
    """The ID and OWNER cells of each job, the IDs aligned on the dot."""
    ids = [job_id(job, now) for job in jobs]
    cluster_width = max([4, *(len(str(c)) for c, _ in ids)])
    proc_width = max([3, *(len(str(p)) for _, p in ids)])
    return [
        (f"{c:>{cluster_width}}.{p:<{proc_width}}", owner(job, now)[:14])
        for (c, p), job in zip(ids, jobs, strict=True)
    ]


def submitted_at(job: ClassAd, now: float) -> str:
    """The SUBMITTED cell (QDate)."""
    qdate = number(job, "QDate", now)
    return clock.month_day(qdate) if qdate is not None else ""
