"""condor_userprio's tables, character for character (spec negotiator.md §8.2-8.3).

Every column has a fixed width and two heading lines centred in it (left padding
``(width - len) // 2``); each column is preceded by one space; the name column is
``max(10, longest name, len("Number of users: N"))`` wide. Numbers are right-aligned and
fall back to ``%.(width-6)g`` when they do not fit. The table opens with
``Last Priority Update:`` and closes with a footer of totals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..classad.timefmt import civil_from_secs
from .records import Customer

__all__ = ["COLUMNS", "Column", "Row", "render"]


@dataclass(frozen=True)
class Row:
    """One line of the table: a customer, or a group with its quota figures."""

    record: Customer
    indent: int = 0
    effective_quota: float = 0.0
    config_quota: float = 0.0
    subtree_quota: float = 0.0
    surplus: str = ""
    requested: float = 0.0

    @property
    def name(self) -> str:
        return " " * self.indent + self.record.name


@dataclass(frozen=True)
class Column:
    width: int
    heading: tuple[str, str]
    cell: Callable[[Row, float], str]  # (row, last update time) -> text
    left: bool = False


def _number(value: float, fmt: str, width: int) -> str:
    text = fmt % value
    return text if len(text) <= width else f"%.{max(width - 6, 1)}g" % value


def _since(seconds: float) -> str:
    if seconds <= 0:
        return "<now>"
    minutes = int(seconds) // 60
    return f"{minutes // 1440:3d}+{minutes // 60 % 24:02d}:{minutes % 60:02d}"


def _date(when: float) -> str:
    if when <= 0:
        return ""
    year, month, day, hour, minute, *_ = civil_from_secs(int(when))
    return f"{month}/{day:02d}/{year:04d} {hour:02d}:{minute:02d}"


def _num(fmt: str, width: int, get: Callable[[Row], float], blank: Callable[[float], bool]):
    def cell(row: Row, last_update: float) -> str:
        value = get(row)
        return "" if blank(value) else _number(value, fmt, width)

    return cell


def _never(value: float) -> bool:
    return False


COLUMNS: dict[str, Column] = {
    "EffQuota": Column(
        9, ("Effective", "Quota"), _num("%9.2f", 9, lambda r: r.effective_quota, _never)
    ),
    "CfgQuota": Column(9, ("Config", "Quota"), _num("%9.2f", 9, lambda r: r.config_quota, _never)),
    "Surplus": Column(7, ("Use", "Surplus"), lambda r, t: r.surplus, left=True),
    "TreeQuota": Column(
        9, ("Subtree", "Quota"), _num("%9.2f", 9, lambda r: r.subtree_quota, _never)
    ),
    "Priority": Column(
        12, ("Effective", "Priority"), _num("%12.2f", 12, lambda r: r.record.eup, _never)
    ),
    "RealPrio": Column(
        8, ("Real", "Priority"), _num("%8.2f", 8, lambda r: r.record.priority, _never)
    ),
    "Factor": Column(
        9, ("Priority", "Factor"), _num("%9.2f", 9, lambda r: r.record.factor, lambda v: v == 0)
    ),
    "ResUsed": Column(
        6,
        ("Wghted", "In Use"),
        _num("%6.0f", 6, lambda r: r.record.weighted_resources_used, _never),
    ),
    "WtResUsed": Column(
        12,
        ("Total Usage", "(wghted-hrs)"),
        _num("%12.2f", 12, lambda r: r.record.weighted_accumulated_usage / 3600, _never),
    ),
    "UseTime1": Column(16, ("Usage", "Start Time"), lambda r, t: _date(r.record.begin_usage_time)),
    "UseTime2": Column(16, ("Last", "Usage Time"), lambda r, t: _date(r.record.last_usage_time)),
    "UseDeltaT": Column(
        10, ("Time Since", "Last Usage"), lambda r, t: _since(t - r.record.last_usage_time)
    ),
    "Requested": Column(
        10, ("Weighted", "Requested"), _num("%10.0f", 10, lambda r: r.requested, _never)
    ),
    "Floor": Column(
        9, ("Submitter", "Floor"), _num("%9.2f", 9, lambda r: r.record.floor, lambda v: v <= 0)
    ),
    "Ceiling": Column(
        9, ("Submitter", "Ceiling"), _num("%9.2f", 9, lambda r: r.record.ceiling, lambda v: v == -1)
    ),
}


def _centred(text: str, width: int) -> str:
    return (" " * ((width - len(text)) // 2) + text).ljust(width)


def _fit(text: str, column: Column) -> str:
    return text.ljust(column.width) if column.left else text.rjust(column.width)


def render(
    rows: Sequence[Row],
    columns: Sequence[str],
    last_update: float,
    now: float,
    user_count: int,
    name_heading: tuple[str, str] = ("", "User Name"),
    footer: dict[str, str] | None = None,
    hierarchical: bool = False,
) -> str:
    """The whole table as condor_userprio prints it (the hierarchical layout's name column
    is two wider)."""
    counter = f"Number of users: {user_count}"
    longest = max((len(r.name) for r in rows), default=0)
    width = min(max(10, len(counter), longest), 99) + (2 if hierarchical else 0)
    chosen = [COLUMNS[c] for c in columns]
    _, month, day, hour, minute, *_ = civil_from_secs(int(last_update))
    lines = [f"Last Priority Update: {month:2d}/{day:<2d} {hour:02d}:{minute:02d}"]
    for line in (0, 1):
        cells = [name_heading[line].ljust(width)]
        cells += [_centred(c.heading[line], c.width) for c in chosen]
        lines.append(" ".join(cells))
    rule = " ".join(["-" * width] + ["-" * c.width for c in chosen])
    lines.append(rule)
    for row in rows:
        cells = [row.name.ljust(width)] + [_fit(c.cell(row, last_update), c) for c in chosen]
        lines.append(" ".join(cells))
    lines.append(rule)
    totals = footer or {}
    cells = [counter.ljust(width)] + [_fit(totals.get(n, ""), COLUMNS[n]) for n in columns]
    lines.append(" ".join(cells))
    return "\n".join(lines) + "\n"


def usage_footer(rows: Sequence[Row], last_update: float, now: float) -> dict[str, str]:
    """Totals of In Use and Total Usage, and the age cut-off under Time Since."""
    users = [r for r in rows if not r.record.is_group]
    in_use = sum(r.record.weighted_resources_used for r in users)
    total = sum(r.record.weighted_accumulated_usage for r in users) / 3600
    return {
        "ResUsed": _number(in_use, "%6.0f", 6),
        "WtResUsed": _number(total, "%12.2f", 12),
        "UseDeltaT": _since(last_update - (now - 86400)),
    }
