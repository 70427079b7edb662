"""The job's user log: HTCondor's job event log format, written by the schedd.

A job's submit file names its user log (``log = ...``; the job ad's ``UserLog``, relative to
``Iwd``). Users' tools (condor_wait, DAGMan, ``htcondor2.JobEventLog``, scripts that grep)
read it, so each event is written as HTCondor 24/25 writes it (event numbers: the manual's
"Job Event Log Codes"; layouts: what htcondor2's own formatter prints, see the tests)::

    012 (042.003.000) 2024-02-13 10:49:30 Job was held.
    \tvia condor_hold (by user alice)
    \tCode 1 Subcode 0
    ...

``format_event(event, cluster, proc, when, fmt)`` is pure and gives one event's text, the
``...`` line included. ``UserLog(path).write(...)`` appends it to the file in one ``write``,
so a reader following the file finds whole events.

Timestamps follow ``DEFAULT_USERLOG_FORMAT_OPTIONS`` (the manual's configuration macros:
the keywords of ``EVENT_LOG_FORMAT_OPTIONS``), read by ``LogFormat.parse``. Unset, it means
ISO dates in local time, ``2024-02-13 10:49:30`` (the year came in with HTCondor 8.9,
ticket 6940); ``LEGACY`` gives the old ``02/13 10:49:30``, ``UTC`` writes UTC with a ``Z``,
``SUB_SECOND`` adds milliseconds. The ``XML`` and ``JSON`` forms (``log_xml = true``) are
not written: asking for them is an error rather than a log in a form nobody asked for.

Free text (reasons, host names, paths) is one line in the log: fairpool writes each line
break (``\\r\\n``, ``\\r``, ``\\n``) as a space, drops NUL characters, and trims the
whitespace HTCondor's reader trims (``single_line``). Written as it is, a newline in a hold
reason would end the reason there and lose the hold code for HTCondor's reader. An empty
hold reason is written ``Reason unspecified``, as HTCondor writes it.

What HTCondor's reader does not give back: the ``Job terminated of its own accord`` line
(``Terminated.exited_at``) and the evicted event's resource table (both written for people
and scripts); a terminated event's byte counts beyond 2**24 (it keeps C floats); CPU times
of 2**31 seconds or more; a double quote at either end of a slot name; the year of a
``LEGACY`` stamp (it assumes the current one). fairpool writes the exact figures.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import pwd
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar

from ..classad import ClassAd, write_old
from ..errors import InputError

__all__ = [
    "DEFAULT_FORMAT",
    "Aborted",
    "Evicted",
    "Executing",
    "Held",
    "ImageSize",
    "JobAdInformation",
    "LogFormat",
    "Released",
    "ResourceRow",
    "Submitted",
    "Suspended",
    "Terminated",
    "Unsuspended",
    "Usage",
    "UserLog",
    "UserLogError",
    "UserLogEvent",
    "format_event",
    "job_log_path",
    "single_line",
    "user_log_path",
    "write_job_event",
]

_INT32_MAX = 2**31 - 1
_INT64_MAX = 2**63 - 1
_MAX_WHEN = 253402300800.0  # 10000-01-01: the ISO form has four digits of year
_MAX_FIGURE = 2.0**53  # resource figures: integral values print exactly up to here
_C_SPACE = " \t\n\v\f\r"  # what HTCondor's reader trims from a text line
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_UNITS = {"Disk": " (KB)", "Memory": " (MB)", "TimeExecute": " (s)", "TimeSlotBusy": " (s)"}


class UserLogError(InputError):
    """An event that cannot be written (a value out of range), or a log file that cannot."""


def single_line(text: str) -> str:
    """``text`` as one log line: line breaks become spaces, NULs go, ends are trimmed."""
    return _LINE_BREAK.sub(" ", text).replace("\0", "").strip(_C_SPACE)


def user_log_path(user_log: str, iwd: str) -> str:
    """The file a job's ``UserLog`` names: relative names are relative to its ``Iwd``."""
    return os.path.join(iwd, user_log)


def job_log_path(job: ClassAd) -> str | None:
    """A job's user log (None: it has none)."""
    name = job.get("UserLog")
    if not isinstance(name, str) or not name:
        return None
    iwd = job.get("Iwd")
    return user_log_path(name, iwd if isinstance(iwd, str) else "/")


# -- timestamps ------------------------------------------------------------------------
@dataclass(frozen=True)
class LogFormat:
    """How timestamps are written (``DEFAULT_USERLOG_FORMAT_OPTIONS``).

    ``tz`` is the zone of local times (None: the process's local time, as HTCondor uses);
    it does not matter when ``utc`` is set.
    """

    iso_date: bool = True
    utc: bool = False
    sub_second: bool = False
    tz: _dt.tzinfo | None = None

    @classmethod
    def parse(cls, value: str | None, tz: _dt.tzinfo | None = None) -> LogFormat:
        """The format a knob value selects: keywords separated by commas or spaces, applied
        in order to the default (``ISO_DATE``); ``!`` inverts one; unknown words are ignored
        as HTCondor ignores them."""
        flags = {"iso_date": True, "utc": False, "sub_second": False}
        for word in re.split(r"[,\s]+", value or ""):
            negated = word.startswith("!")
            key = word.lstrip("!").lower()
            if key in ("xml", "json") and not negated:
                raise UserLogError(
                    f"the {key.upper()} user log form is not supported; expected the "
                    "text form (ISO_DATE, UTC, SUB_SECOND, LEGACY)",
                    source="DEFAULT_USERLOG_FORMAT_OPTIONS",
                )
            if key in flags:
                flags[key] = not negated
            elif key == "legacy":
                flags["iso_date"] = negated
                if not negated:
                    flags.update(utc=False, sub_second=False)
        return cls(tz=tz, **flags)

    def timestamp(self, when: float) -> str:
        """``when`` (epoch seconds) as the event header shows it; sub-second digits are
        milliseconds, truncated."""
        seconds, micros = divmod(round(when * 1_000_000), 1_000_000)
        m = _dt.datetime.fromtimestamp(seconds, _dt.UTC if self.utc else self.tz)
        date = f"{m.year:04d}-{m.month:02d}-{m.day:02d}" if self.iso_date else f"{m:%m/%d}"
        text = f"{date} {m:%H:%M:%S}"
        if self.sub_second:
            text += f".{micros // 1000:03d}"
        return text + ("Z" if self.utc else "")


def _utc_iso(when: float) -> str:
    moment = _dt.datetime.fromtimestamp(math.floor(when), _dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


# -- values ----------------------------------------------------------------------------
def _check_int(owner: str, name: str, value: object, low: int = 0, high: int = _INT32_MAX) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise UserLogError(
            f"{owner}.{name}: expected an integer from {low} to {high}, not {value!r}"
        )


def _check_number(owner: str, name: str, value: object, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UserLogError(f"{owner}.{name}: expected a number, not {value!r}")
    if not (math.isfinite(value) and low <= value <= high):
        raise UserLogError(
            f"{owner}.{name}: expected a number from {low:g} to {high:g}, not {value!r}"
        )


@dataclass(frozen=True)
class Usage:
    """CPU time in seconds, user and system; written ``Usr D HH:MM:SS, Sys D HH:MM:SS``
    with whole seconds (fractions are dropped, as HTCondor drops them)."""

    user: float = 0.0
    system: float = 0.0

    def __post_init__(self) -> None:
        _check_number("Usage", "user", self.user, 0, 1e15)
        _check_number("Usage", "system", self.system, 0, 1e15)

    def text(self) -> str:
        return f"Usr {_clock(self.user)}, Sys {_clock(self.system)}"


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, mins = divmod(minutes, 60)
    days, hrs = divmod(hours, 24)
    return f"{days} {hrs:02d}:{mins:02d}:{secs:02d}"


@dataclass(frozen=True)
class ResourceRow:
    """One row of the ``Partitionable Resources`` table: what the job used, requested and
    was given of one resource (Cpus; Disk in KiB; Memory in MiB; GPUs; ...). None leaves
    the cell empty. Figures are not negative (HTCondor would print a negative fraction
    truncated, as if it were whole)."""

    name: str
    usage: float | None = None
    request: float | None = None
    allocated: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise UserLogError(f"ResourceRow.name: expected an attribute name, not {self.name!r}")
        for column in ("usage", "request", "allocated"):
            value = getattr(self, column)
            if value is not None:
                _check_number("ResourceRow", column, value, 0, _MAX_FIGURE)


def _rows(owner: str, rows: Iterable[ResourceRow]) -> tuple[ResourceRow, ...]:
    rows = tuple(rows)
    names = [row.name.lower() for row in rows]
    if len(set(names)) != len(names):
        raise UserLogError(f"{owner}.resources: a resource is named twice: {names}")
    return tuple(sorted(rows, key=lambda row: row.name.lower()))


# -- events ----------------------------------------------------------------------------
class UserLogEvent(ABC):
    """An event the schedd writes: ``number`` is HTCondor's event number, ``body()`` the
    text after the header's timestamp, from the title line to the last detail line."""

    number: ClassVar[int]

    @abstractmethod
    def body(self) -> str: ...


def _reason_line(reason: str) -> str:
    text = single_line(reason)
    return f"\t{text}\n" if text else ""


@dataclass(frozen=True)
class Submitted(UserLogEvent):
    """000: the job entered the queue; ``host`` is the schedd's address (``<ip:port?...>``)."""

    number: ClassVar[int] = 0
    host: str = ""

    def body(self) -> str:
        return f"Job submitted from host: {single_line(self.host)}\n"


@dataclass(frozen=True)
class Executing(UserLogEvent):
    """001: the job started on a startd at ``host``, in slot ``slot_name``."""

    number: ClassVar[int] = 1
    host: str = ""
    slot_name: str = ""

    def body(self) -> str:
        slot = single_line(self.slot_name)
        return f"Job executing on host: {single_line(self.host)}\n" + (
            f"\tSlotName: {slot}\n" if slot else ""
        )


@dataclass(frozen=True)
class Evicted(UserLogEvent):
    """004: the job left its machine before it finished (not checkpointed) and goes back to
    the queue; usage and bytes are this run's."""

    number: ClassVar[int] = 4
    run_remote: Usage = Usage()
    run_local: Usage = Usage()
    sent_bytes: int = 0
    received_bytes: int = 0
    reason: str = ""
    resources: tuple[ResourceRow, ...] = ()

    def __post_init__(self) -> None:
        _check_int("Evicted", "sent_bytes", self.sent_bytes, high=_INT64_MAX)
        _check_int("Evicted", "received_bytes", self.received_bytes, high=_INT64_MAX)
        object.__setattr__(self, "resources", _rows("Evicted", self.resources))

    def body(self) -> str:
        reason = single_line(self.reason)
        return (
            "Job was evicted.\n\t(0) CPU times\n"
            f"\t\t{self.run_remote.text()}  -  Run Remote Usage\n"
            f"\t\t{self.run_local.text()}  -  Run Local Usage\n"
            f"\t{self.sent_bytes}  -  Run Bytes Sent By Job\n"
            f"\t{self.received_bytes}  -  Run Bytes Received By Job\n"
            + (f"\tReason: {reason}\n" if reason else "")
            + _resource_table(self.resources)
        )


@dataclass(frozen=True)
class Terminated(UserLogEvent):
    """005: the job finished, normally with ``return_value`` or by ``signal`` (then with
    ``core_file`` or none). ``exited_at`` (epoch seconds) adds the line saying when the job
    exited of its own accord, which modern HTCondor writes after the table."""

    number: ClassVar[int] = 5
    return_value: int | None = None
    signal: int | None = None
    core_file: str = ""
    run_remote: Usage = Usage()
    run_local: Usage = Usage()
    total_remote: Usage = Usage()
    total_local: Usage = Usage()
    run_sent_bytes: int = 0
    run_received_bytes: int = 0
    total_sent_bytes: int = 0
    total_received_bytes: int = 0
    resources: tuple[ResourceRow, ...] = ()
    exited_at: float | None = None

    def __post_init__(self) -> None:
        if (self.return_value is None) == (self.signal is None):
            raise UserLogError("Terminated: expected exactly one of return_value and signal")
        if self.return_value is not None:
            _check_int("Terminated", "return_value", self.return_value)
        if self.signal is not None:
            _check_int("Terminated", "signal", self.signal, low=1)
        for name in (
            "run_sent_bytes",
            "run_received_bytes",
            "total_sent_bytes",
            "total_received_bytes",
        ):
            _check_int("Terminated", name, getattr(self, name), high=_INT64_MAX)
        if self.exited_at is not None:
            _check_number("Terminated", "exited_at", self.exited_at, 0, _MAX_WHEN - 1)
        object.__setattr__(self, "resources", _rows("Terminated", self.resources))

    def body(self) -> str:
        return (
            "Job terminated.\n"
            + self._how()
            + f"\t\t{self.run_remote.text()}  -  Run Remote Usage\n"
            f"\t\t{self.run_local.text()}  -  Run Local Usage\n"
            f"\t\t{self.total_remote.text()}  -  Total Remote Usage\n"
            f"\t\t{self.total_local.text()}  -  Total Local Usage\n"
            f"\t{self.run_sent_bytes}  -  Run Bytes Sent By Job\n"
            f"\t{self.run_received_bytes}  -  Run Bytes Received By Job\n"
            f"\t{self.total_sent_bytes}  -  Total Bytes Sent By Job\n"
            f"\t{self.total_received_bytes}  -  Total Bytes Received By Job\n"
            + _resource_table(self.resources)
            + self._exit_line()
        )

    def _how(self) -> str:
        if self.signal is None:
            return f"\t(1) Normal termination (return value {self.return_value})\n"
        core = single_line(self.core_file)
        return f"\t(0) Abnormal termination (signal {self.signal})\n" + (
            f"\t(1) Corefile in: {core}\n" if core else "\t(0) No core file\n"
        )

    def _exit_line(self) -> str:
        if self.exited_at is None:
            return ""
        how = f"exit-code {self.return_value}" if self.signal is None else f"signal {self.signal}"
        return f"\n\tJob terminated of its own accord at {_utc_iso(self.exited_at)} with {how}.\n"


@dataclass(frozen=True)
class ImageSize(UserLogEvent):
    """006: the running job's memory: ``size`` (image size, KiB), ``memory_usage`` (MiB, the
    job's MemoryUsage), ``resident_set_size`` and ``proportional_set_size`` (KiB). None
    leaves a line out; HTCondor always writes the resident set size."""

    number: ClassVar[int] = 6
    size: int = 0
    memory_usage: int | None = None
    resident_set_size: int = 0
    proportional_set_size: int | None = None

    def __post_init__(self) -> None:
        for name in ("size", "memory_usage", "resident_set_size", "proportional_set_size"):
            if getattr(self, name) is not None:
                _check_int("ImageSize", name, getattr(self, name), high=_INT64_MAX)

    def body(self) -> str:
        lines = [f"Image size of job updated: {self.size}\n"]
        if self.memory_usage is not None:
            lines.append(f"\t{self.memory_usage}  -  MemoryUsage of job (MB)\n")
        lines.append(f"\t{self.resident_set_size}  -  ResidentSetSize of job (KB)\n")
        if self.proportional_set_size is not None:
            lines.append(f"\t{self.proportional_set_size}  -  ProportionalSetSize of job (KB)\n")
        return "".join(lines)


@dataclass(frozen=True)
class Aborted(UserLogEvent):
    """009: the job was removed (``reason``: the job's RemoveReason)."""

    number: ClassVar[int] = 9
    reason: str = ""

    def body(self) -> str:
        return "Job was aborted.\n" + _reason_line(self.reason)


@dataclass(frozen=True)
class Suspended(UserLogEvent):
    """010: the job's processes were stopped on its machine."""

    number: ClassVar[int] = 10
    processes: int = 0

    def __post_init__(self) -> None:
        _check_int("Suspended", "processes", self.processes)

    def body(self) -> str:
        return f"Job was suspended.\n\tNumber of processes actually suspended: {self.processes}\n"


@dataclass(frozen=True)
class Unsuspended(UserLogEvent):
    """011: the suspended job runs again."""

    number: ClassVar[int] = 11

    def body(self) -> str:
        return "Job was unsuspended.\n"


@dataclass(frozen=True)
class Held(UserLogEvent):
    """012: the job was put on hold (HoldReason, HoldReasonCode, HoldReasonSubCode)."""

    number: ClassVar[int] = 12
    reason: str = ""
    code: int = 0
    subcode: int = 0

    def __post_init__(self) -> None:
        _check_int("Held", "code", self.code, low=-(2**31))
        _check_int("Held", "subcode", self.subcode, low=-(2**31))

    def body(self) -> str:
        reason = single_line(self.reason) or "Reason unspecified"
        return f"Job was held.\n\t{reason}\n\tCode {self.code} Subcode {self.subcode}\n"


@dataclass(frozen=True)
class Released(UserLogEvent):
    """013: the held job may run again (``reason``: the job's ReleaseReason)."""

    number: ClassVar[int] = 13
    reason: str = ""

    def body(self) -> str:
        return "Job was released.\n" + _reason_line(self.reason)


@dataclass(frozen=True)
class JobAdInformation(UserLogEvent):
    """028: values of the job attributes its ``JobAdInformationAttrs`` lists, one
    ``Name = value`` line each (old ClassAd syntax). A value that would take more than one
    line (a string with a line break) is an error."""

    number: ClassVar[int] = 28
    ad: ClassAd = field(default_factory=ClassAd, hash=False)

    def __post_init__(self) -> None:
        text = write_old(self.ad)
        if text.count("\n") != len(self.ad):
            raise UserLogError(
                "JobAdInformation.ad: a value spans lines (a line break in a string)"
            )

    def body(self) -> str:
        return "Job ad information event triggered.\n" + write_old(self.ad)


# -- the partitionable resources table -------------------------------------------------
def _resource_table(rows: tuple[ResourceRow, ...]) -> str:
    """The table as HTCondor lays it out: rows with a figure, by name; names (with a unit
    for Disk, Memory and the Time figures) padded to nine more than the longest name, at
    least 21; number columns at least 8, 8 and 9 wide; a column with a fraction prints
    fractions with two decimals and whole numbers with three spaces after, so the units
    line up; the Allocated heading only when some row has an allocation."""
    rows = tuple(r for r in rows if (r.usage, r.request, r.allocated) != (None, None, None))
    if not rows:
        return ""
    columns = [_cells([getattr(row, c) for row in rows]) for c in ("usage", "request", "allocated")]
    widths = [max([low, *map(len, cells)]) for low, cells in zip((8, 8, 9), columns, strict=True)]
    allocated = "Allocated" if any(row.allocated is not None for row in rows) else ""
    headings = ("Usage", "Request", allocated)
    label_width = max(21, *(len(row.name) + 9 for row in rows))
    lines = ["\tPartitionable Resources :" + _cells_line(headings, widths)]
    for index, row in enumerate(rows):
        label = (row.name + _UNITS.get(row.name, "")).ljust(label_width)
        lines.append(f"\t   {label}:" + _cells_line([c[index] for c in columns], widths))
    return "".join(lines)


def _cells(values: list[float | None]) -> list[str]:
    fractional = any(v is not None and v != int(v) for v in values)
    return [_cell(v, fractional) for v in values]


def _cell(value: float | None, fractional: bool) -> str:
    if value is None:
        return ""
    if value != int(value):
        return f"{value:.2f}"
    return f"{int(value)}   " if fractional else f"{int(value)}"


def _cells_line(cells: Iterable[str], widths: list[int]) -> str:
    return "".join(f" {cell:>{width}}" for cell, width in zip(cells, widths, strict=True)) + " \n"


# -- the whole event -------------------------------------------------------------------
DEFAULT_FORMAT = LogFormat()  # HTCondor's when the knob is not set: ISO dates, local time


def format_event(
    event: UserLogEvent, cluster: int, proc: int, when: float, fmt: LogFormat = DEFAULT_FORMAT
) -> str:
    """One event as the log holds it: ``NNN (CCC.PPP.000) <timestamp> <text>``, the detail
    lines, and the ``...`` line that ends it."""
    _check_int("format_event", "cluster", cluster)
    _check_int("format_event", "proc", proc)
    _check_number("format_event", "when", when, 0, _MAX_WHEN - 1)
    header = f"{event.number:03d} ({cluster:03d}.{proc:03d}.000) {fmt.timestamp(when)} "
    return header + event.body() + "...\n"


class UserLog:
    """Appends events to one user log file (created when first written).

    Each event is one ``write`` on a file opened for appending, so readers that follow the
    file (condor_wait, DAGMan) see whole events; the file is opened and closed per event,
    which lets the user move or delete it between events as HTCondor allows. ``fsync``
    makes each event durable before ``write`` returns.
    """

    def __init__(
        self, path: str | os.PathLike[str], fmt: LogFormat = DEFAULT_FORMAT, fsync: bool = False
    ) -> None:
        self.path = os.fspath(path)
        self.fmt = fmt
        self.fsync = fsync

    def write(self, event: UserLogEvent, cluster: int, proc: int, when: float) -> None:
        """Append ``event`` of job ``cluster.proc`` at ``when`` (epoch seconds)."""
        data = format_event(event, cluster, proc, when, self.fmt).encode("utf-8")
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as err:
            raise UserLogError(f"cannot open the user log: {err.strerror}", self.path) from err
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if self.fsync:
                os.fsync(fd)
        except OSError as err:
            raise UserLogError(f"cannot write the user log: {err.strerror}", self.path) from err
        finally:
            os.close(fd)


def write_job_event(
    path: str, job: ClassAd, event: UserLogEvent, now: float, log_format: LogFormat
) -> None:
    """Append ``event`` of ``job`` to its user log at ``path``; a log that a pool running
    as root creates belongs to the job's owner. OSError or UserLogError if it cannot."""
    fresh = not os.path.exists(path)
    UserLog(path, log_format).write(event, job["ClusterId"], job["ProcId"], now)
    if fresh and os.getuid() == 0:
        _give_to(path, job.get("Owner"))


def _give_to(path: str, owner: object) -> None:
    if isinstance(owner, str):
        try:
            entry = pwd.getpwnam(owner)
        except KeyError:
            return
        os.chown(path, entry.pw_uid, entry.pw_gid)
