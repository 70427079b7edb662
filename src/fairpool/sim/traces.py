"""Reading recorded workloads: the Parallel Workloads Archive's Standard Workload Format
(SWF) and HTCondor job ads (``condor_history -l``, ``condor_q -l`` or JSON).

Each job becomes a ``TraceJob``: when it was submitted (seconds after the trace began),
how long it ran, how many cores it used, who submitted it and in which group. Jobs whose
run time is unknown or not positive are skipped (the archive marks unknown as -1), so a
replay runs exactly the core-hours the trace records.

SWF lines hold 18 numbers: job, submit time, wait, run time, allocated processors, average
CPU time, used memory (KB), requested processors, requested time, requested memory (KB),
status, user id, group id, executable, queue, partition, preceding job, think time.
Comment lines start with ``;`` (``UnixStartTime`` there says when the trace began).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..classad import ClassAd, parse_ads
from ..errors import InputError
from ..textfiles import read_text

__all__ = ["TraceJob", "read_htcondor", "read_swf", "swf_start_time"]


@dataclass(frozen=True)
class TraceJob:
    """One job of a recorded workload."""

    number: int
    submit: float  # seconds after the trace's start
    runtime: float  # seconds
    cpus: int
    user: str
    group: str | None = None
    memory_mib: float | None = None


def _lines(path: Path) -> list[str]:
    """The trace's lines (gzip when it ends in .gz); not UTF-8 is an error with its line."""
    return read_text(path, InputError, "the trace").splitlines()


def swf_start_time(path: Path) -> float | None:
    """The trace's ``UnixStartTime`` header, if it has one."""
    for number, line in enumerate(_lines(path), 1):
        if not line.startswith(";"):
            return None
        key, _, value = line[1:].partition(":")
        if key.strip() == "UnixStartTime":
            try:
                start = float(value.strip())
            except ValueError:
                start = math.nan
            if not math.isfinite(start):
                raise InputError(
                    f"UnixStartTime: expected epoch seconds, not {value.strip()!r}",
                    str(path),
                    number,
                )
            return start
    return None


def read_swf(
    path: Path,
    user: Callable[[int], str] = lambda uid: f"user{uid}",
    group: Callable[[int], str | None] = lambda gid: f"group{gid}" if gid > 0 else None,
    time_scale: float = 1.0,
) -> Iterator[TraceJob]:
    """The jobs of an SWF trace, in file order; ids mapped to names by ``user``/``group``,
    times (submit and run) multiplied by ``time_scale``."""
    for number, line in enumerate(_lines(path), 1):
        text = line.strip()
        if not text or text.startswith(";"):
            continue
        fields = text.split()
        if len(fields) != 18:
            raise InputError(f"expected 18 SWF fields, found {len(fields)}", str(path), number)
        try:
            values = [float(f) for f in fields]
        except ValueError:
            values = [math.nan]
        if not all(math.isfinite(v) and abs(v) < 1e15 for v in values):
            raise InputError("SWF fields must be numbers (under 10^15)", str(path), number)
        job = _swf_job(values, user, group, time_scale)
        if job is not None:
            yield job


def _swf_job(
    values: list[float],
    user: Callable[[int], str],
    group: Callable[[int], str | None],
    time_scale: float,
) -> TraceJob | None:
    runtime = values[3]
    cpus = int(values[4]) if values[4] > 0 else int(values[7])
    if runtime <= 0 or cpus <= 0:
        return None
    memory = values[6] if values[6] > 0 else values[9]
    return TraceJob(
        number=int(values[0]),
        submit=values[1] * time_scale,
        runtime=runtime * time_scale,
        cpus=cpus,
        user=user(int(values[11])),
        group=group(int(values[12])),
        memory_mib=memory / 1024 if memory > 0 else None,
    )


def read_htcondor(path: Path) -> Iterator[TraceJob]:
    """Jobs from HTCondor job ads: submitted at ``QDate``, run for
    ``CompletionDate - JobStartDate`` (or ``RemoteWallClockTime``); times are made
    relative to the earliest ``QDate``."""
    text = read_text(path, InputError, "the trace")
    ads = [ad for ad in parse_ads(text, name=str(path)) if _number(ad, "QDate") is not None]
    if not ads:
        return
    start = min(_number(ad, "QDate") for ad in ads)  # type: ignore[type-var]
    for number, ad in enumerate(ads, 1):
        runtime = _runtime(ad)
        if runtime is None or runtime <= 0:
            continue
        owner = ad.eval("Owner")
        group = ad.eval("AccountingGroup") if "AccountingGroup" in ad else None
        yield TraceJob(
            number=number,
            submit=_number(ad, "QDate") - start,  # type: ignore[operator]
            runtime=runtime,
            cpus=int(_number(ad, "RequestCpus") or 1),
            user=owner if isinstance(owner, str) else "nobody",
            group=group if isinstance(group, str) else None,
            memory_mib=_number(ad, "RequestMemory"),
        )


def _number(ad: ClassAd, name: str) -> float | None:
    """A numeric attribute (None when absent, not a number, or beyond 10^15)."""
    value = ad.eval(name) if name in ad else None
    if type(value) not in (int, float) or not abs(value) < 1e15:
        return None
    return float(value)


def _runtime(ad: ClassAd) -> float | None:
    start, end = _number(ad, "JobStartDate"), _number(ad, "CompletionDate")
    if start is not None and end is not None and end > 0:
        return end - start
    return _number(ad, "RemoteWallClockTime")
