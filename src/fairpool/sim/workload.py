"""What a scenario submits: ``[[jobs]]`` (submit descriptions with arrival processes and
run-time distributions) and ``[[traces]]`` (recorded workloads), read and checked.

``[[jobs]]``: ``submit`` (submit description text, or ``submit_file``), ``owner``, ``at``
(when the first submission happens, default 0), ``runtime``, and how often it is
submitted: ``count`` times at ``at`` (default once); with ``rate = "100/h"``, as a Poisson
process from ``at`` (``count`` submissions in all, or until the end); with
``keep_idle = N``, whenever fewer than N of its jobs are idle (a user with "an infinite
number of short jobs", at the cost of only N job ads in the queue; ``count`` caps it).

``[[traces]]``: ``file``, ``format`` (``swf`` or ``htcondor``), ``at`` (offset),
``time_scale``, ``max_jobs``; for SWF, ``user`` and ``group`` patterns
(``"user{uid}"``, ``"group_{gid}"``) and ``users``/``groups`` tables for named ids
(``{ "3" = "atlas" }``). Trace jobs with a group are charged to it as HTCondor
accounting groups are: ``AccountingGroup = "<group>.<user>"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SubmitError
from ..submit import SubmitDescription, parse_submit
from .durations import Runtime, parse_rate, parse_runtime
from .table import Table
from .traces import TraceJob

__all__ = ["JobSpec", "TraceSpec", "parse_jobs", "parse_trace"]

_JOB_KEYS = ("submit", "submit_file", "owner", "at", "runtime", "count", "rate", "keep_idle")
_TRACE_KEYS = ("file", "format", "at", "time_scale", "max_jobs", "user", "group", "users", "groups")


@dataclass(frozen=True)
class JobSpec:
    """One ``[[jobs]]`` table."""

    index: int
    label: str
    description: SubmitDescription
    owner: str
    at: float
    runtime: Runtime
    count: int | None  # None: unlimited (rate and keep_idle sources)
    rate: float | None = None
    keep_idle: int | None = None


@dataclass(frozen=True)
class TraceSpec:
    """One ``[[traces]]`` table."""

    index: int
    label: str
    file: Path
    format: str
    at: float = 0.0
    time_scale: float = 1.0
    max_jobs: int | None = None
    user: str = "user{uid}"
    group: str | None = "group{gid}"
    users: dict[int, str] = field(default_factory=dict)
    groups: dict[int, str] = field(default_factory=dict)
    # the trace's jobs in submission order, read (and so checked) when the scenario loads
    jobs: tuple[TraceJob, ...] | None = field(default=None, repr=False, compare=False)


def parse_jobs(table: Table, index: int) -> JobSpec:
    table.allow(_JOB_KEYS)
    if table.has("submit") == table.has("submit_file"):
        raise table.fail()("expected either submit (text) or submit_file")
    if table.has("submit"):
        text, source = table.text("submit"), f"{table.source} {table.name} submit"
    else:
        path = table.path("submit_file")
        text, source = table.read(path, "the submit file"), str(path)
    owner = table.text("owner")
    if not owner.strip() or "@" in owner:
        raise table.fail("owner")(f"expected a user name without @domain, not {owner!r}")
    description = _description(table, text, source, owner)
    rate = parse_rate(table.get("rate"), table.fail("rate")) if table.has("rate") else None
    keep_idle = table.integer("keep_idle", None, minimum=1)
    if rate is not None and keep_idle is not None:
        raise table.fail("rate")("a source has either rate or keep_idle, not both")
    unlimited = rate is not None or keep_idle is not None
    return JobSpec(
        index=index,
        label=table.name,
        description=description,
        owner=owner,
        at=table.duration("at", 0.0),
        runtime=parse_runtime(table.get("runtime"), table.fail("runtime")),
        count=table.integer("count", None if unlimited else 1, minimum=1),
        rate=rate,
        keep_idle=keep_idle,
    )


def _description(table: Table, text: str, source: str, owner: str) -> SubmitDescription:
    """The parsed description, expanded once now so that its errors surface at load."""
    try:
        description = parse_submit(text, source)
        description.job_ads(owner=owner, cluster_id=1, qdate=0, uid_domain="check")
    except SubmitError as err:
        line = f"line {err.line}: " if err.line else ""
        raise table.fail("submit")(f"bad submit description: {line}{err.message}") from None
    return description


def parse_trace(table: Table, index: int) -> TraceSpec:
    table.allow(_TRACE_KEYS)
    form = table.text("format", "swf")
    if form not in ("swf", "htcondor"):
        raise table.fail("format")(f'expected "swf" or "htcondor", not {form!r}')
    scale = table.number("time_scale", 1.0)
    if scale <= 0:
        raise table.fail("time_scale")(f"expected a positive number, not {scale}")
    group = table.text("group", "group{gid}")
    return TraceSpec(
        index=index,
        label=table.name,
        file=table.path("file"),
        format=form,
        at=table.duration("at", 0.0),
        time_scale=scale,
        max_jobs=table.integer("max_jobs", None, minimum=1),
        user=_pattern(table, "user", table.text("user", "user{uid}"), "uid"),
        group=_pattern(table, "group", group, "gid") if group else None,
        users=_ids(table, "users"),
        groups=_ids(table, "groups"),
    )


def _pattern(table: Table, key: str, pattern: str, name: str) -> str:
    try:
        pattern.format(**{name: 1})
    except (KeyError, ValueError, IndexError):
        raise table.fail(key)(f"expected a pattern using {{{name}}}, not {pattern!r}") from None
    return pattern


def _ids(table: Table, key: str) -> dict[int, str]:
    raw = table.get(key, {})
    if not isinstance(raw, dict):
        raise table.fail(key)('expected a table of ids to names, such as { "3" = "atlas" }')
    out = {}
    for number, name in raw.items():
        if not number.lstrip("-").isdigit() or not isinstance(name, str) or not name:
            raise table.fail(key)(f"expected an id = name pair, not {number} = {name!r}")
        out[int(number)] = name
    return out
