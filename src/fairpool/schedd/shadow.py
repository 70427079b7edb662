"""What the shadow does to a job as its run goes: the attributes HTCondor's shadow and
schedd set at each step of a run, and the user-log event each step writes.

A run starts (``started``), and ends one of three ways: the job exits by itself
(``exited``: then ``OnExitHold`` and ``OnExitRemove`` decide whether it is held,
completed or run again), it is vacated (``vacated``: back to idle, the run's work lost),
or it is stopped by condor_rm or condor_hold. Each end adds the run's wall-clock time
and CPU to the job's totals (RemoteWallClockTime, CumulativeSlotTime, RemoteUserCpu,
RemoteSysCpu) and records what HTCondor records of it (CompletionDate, ExitCode or
ExitSignal, LastRemoteHost...).

Pure: the caller moves the job in the queue (queue.py), writes the event to the job's
user log and saves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial

from ..classad import ClassAd
from ..classad.match import evaluate, satisfied
from ..classad.scope import NOT_CONST
from .queue import COMPLETED, HELD, IDLE
from .userlog import (
    Evicted,
    Executing,
    ResourceRow,
    Terminated,
    Usage,
    UserLogEvent,
)

__all__ = ["ON_EXIT_HOLD", "Outcome", "exited", "run_ended", "started", "vacated"]

ON_EXIT_HOLD = 3  # HoldReasonCode: the job's OnExitHold expression became TRUE
_RESOURCES = (("Cpus", "RequestCpus"), ("Disk", "RequestDisk"), ("Memory", "RequestMemory"))
_PROVISIONED = tuple((resource, f"{resource}Provisioned") for resource, _ in _RESOURCES)


@dataclass(frozen=True)
class Outcome:
    """Where an exited job goes (``COMPLETED``, ``HELD`` or ``IDLE``) and its log event,
    made when asked for (its resources table evaluates the job's requests, for nothing
    when the job has no user log): ask before the job changes again."""

    status: int
    make_event: Callable[[], UserLogEvent]
    hold_reason: str = ""

    @property
    def event(self) -> UserLogEvent:
        return self.make_event()


def started(job: ClassAd, slot: str, address: str, now: float) -> Executing:
    """A run begins on ``slot`` (the queue has already set JobStatus and RemoteHost)."""
    when = int(now)
    first = job.get("JobStartDate")
    job.update(
        {
            "JobCurrentStartExecutingDate": when,
            "ShadowBday": when,
            "LastMatchTime": when,
            "JobRunCount": _int(job, "JobRunCount") + 1,
            "NumJobMatches": _int(job, "NumJobMatches") + 1,
            "StartdIpAddr": address,
        }
    )
    if type(first) is not int:
        job["JobStartDate"] = when
    return Executing(address, slot)


def run_ended(job: ClassAd, usage: Mapping[str, float], slot: ClassAd | None, now: float) -> int:
    """The run's wall-clock seconds and CPU, added to the job's totals; its length. The
    values are set in one ``update``, in the order they were always set in."""
    start = job.get("JobCurrentStartDate")
    run = max(0, int(now) - start) if type(start) is int else 0
    values: dict[str, object] = {
        "RemoteWallClockTime": _number(job, "RemoteWallClockTime") + run,
        "CumulativeSlotTime": _number(job, "CumulativeSlotTime") + run * _cpus(job, slot),
    }
    for name in ("RemoteUserCpu", "RemoteSysCpu"):
        values[name] = _number(job, name) + float(usage.get(name, 0.0))
    for name in ("ImageSize", "ResidentSetSize", "MemoryUsage", "DiskUsage"):
        if name in usage:
            values[name] = max(_int(job, name), int(usage[name]))
    if slot is not None:
        for resource, provisioned in _PROVISIONED:
            value = slot.get(resource)
            if type(value) in (int, float):
                values[provisioned] = value
    remote = job.get("RemoteHost")
    if isinstance(remote, str):
        values["LastRemoteHost"] = remote
    values["LastJobStatus"] = job.get("JobStatus", IDLE)
    job.update(values)
    return run


def exited(
    job: ClassAd,
    exit_attrs: Mapping[str, object],
    usage: Mapping[str, float],
    slot: ClassAd | None,
    now: float,
) -> Outcome:
    """The job's process ended by itself: record how, then ask its exit policy."""
    run = run_ended(job, usage, slot, now)
    job.update(dict(exit_attrs))
    job["CommittedTime"] = _int(job, "CommittedTime") + run
    job["CommittedSlotTime"] = _number(job, "CommittedSlotTime") + run * _cpus(job, slot)
    event = partial(_terminated, job, usage, slot, now)
    if _true(job, "OnExitHold", now):
        reason = "The job attribute OnExitHold expression evaluated to TRUE"
        return Outcome(HELD, event, reason)
    if "OnExitRemove" in job and not _true(job, "OnExitRemove", now):
        return Outcome(IDLE, event)
    job["CompletionDate"] = int(now)
    return Outcome(COMPLETED, event)


def vacated(
    job: ClassAd, usage: Mapping[str, float], slot: ClassAd | None, now: float, reason: str
) -> Evicted:
    """The job was evicted from its slot; its run's work is lost."""
    run_ended(job, usage, slot, now)
    job["LastVacateTime"] = int(now)
    return Evicted(
        run_remote=Usage(
            float(usage.get("RemoteUserCpu", 0.0)), float(usage.get("RemoteSysCpu", 0.0))
        ),
        reason=reason,
        resources=_resources(job, usage, slot),
    )


def _terminated(
    job: ClassAd, usage: Mapping[str, float], slot: ClassAd | None, now: float
) -> Terminated:
    run = Usage(float(usage.get("RemoteUserCpu", 0.0)), float(usage.get("RemoteSysCpu", 0.0)))
    total = Usage(_number(job, "RemoteUserCpu"), _number(job, "RemoteSysCpu"))
    common = {
        "run_remote": run,
        "total_remote": total,
        "resources": _resources(job, usage, slot),
        "exited_at": float(int(now)),
    }
    if job.get("ExitBySignal") is True:
        signal = job.get("ExitSignal")
        return Terminated(signal=signal if type(signal) is int and signal > 0 else 9, **common)
    code = job.get("ExitCode")
    return Terminated(return_value=code if type(code) is int and code >= 0 else 0, **common)


def _resources(
    job: ClassAd, usage: Mapping[str, float], slot: ClassAd | None
) -> tuple[ResourceRow, ...]:
    """The partitionable-resources table: what the job used, asked for and was given."""
    used = {
        "Cpus": None,
        "Disk": usage.get("DiskUsage"),
        "Memory": usage.get("MemoryUsage"),
    }
    rows = []
    for resource, request in _RESOURCES:
        asked = job.eval(request)
        given = slot.get(resource) if slot is not None else None
        rows.append(
            ResourceRow(
                resource,
                usage=used[resource],
                request=asked if type(asked) in (int, float) and asked >= 0 else None,
                allocated=given if type(given) in (int, float) and given >= 0 else None,
            )
        )
    return tuple(rows)


def _true(job: ClassAd, name: str, now: float) -> bool:
    """A literal (OnExitHold = false, as submitted) is its own value: no evaluation."""
    expr = job._exprs.get(name.lower())
    if expr is None:
        return False
    value = expr.const
    return satisfied(evaluate(expr, job, now=now) if value is NOT_CONST else value)


def _cpus(job: ClassAd, slot: ClassAd | None) -> float:
    value = slot.get("Cpus") if slot is not None else job.get("RequestCpus")
    return float(value) if type(value) in (int, float) else 1.0


def _int(job: ClassAd, name: str) -> int:
    value = job.get(name)
    return value if type(value) is int else 0


def _number(job: ClassAd, name: str) -> float:
    value = job.get(name)
    return float(value) if type(value) in (int, float) else 0.0
