"""condor_status's listings: the slot layout (the default) with its summary, ``-total``,
``-schedd``, ``-submitters``, ``-negotiator`` and ``-any``.

Sources (tests/cli/test_listings_status.py cites real output for each): the condor_status
manual page; the print-format manual (LoadAv ``%.3f``; ActvtyTime is the time since
``EnteredCurrentActivity`` as of the ad's ``MyCurrentTime`` or ``LastHeardFrom``); real
output of HTCondor 23-25 pools; HTCondor's test expectations
(src/condor_tests/CheckOutputFormats.pm: the headings of every layout, and which attribute
feeds each ``-schedd`` and ``-negotiator`` column).

* The default layout lists every slot ad (a partitionable slot with what it has left, and
  each dynamic slot), sorted by Machine then Name, then a summary of slots per
  ``Arch/OpSys``: Total Owner Claimed Unclaimed Matched Preempting Drain Backfill BkIdle.
  Each part is a heading line, a blank line and its rows; nothing is printed for no ads.
* ``-schedd`` and ``-submitters`` end with a totals block (a 20-wide label, then columns
  18, 19 and 19 wide) right after the rows, as HTCondor 8.6 printed it (no later output
  published shows one); ``-submitters`` totals each user over schedds.
* ``-negotiator``: the columns are sourced, their widths are not (each column is as wide
  as its heading or widest value).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from ...classad import ClassAd
from . import clock
from .attributes import number, text
from .columns import Column, table

__all__ = [
    "SUMMARY_STATES",
    "absent_slots",
    "any_ads",
    "negotiators",
    "schedds",
    "slot_order",
    "slot_summary",
    "slots",
    "submitters",
]

# summary column -> the slot State it counts (Backfill is split by Activity)
SUMMARY_STATES = {
    "Owner": "Owner",
    "Claimed": "Claimed",
    "Unclaimed": "Unclaimed",
    "Matched": "Matched",
    "Preempting": "Preempting",
    "Drain": "Drained",
}


def slot_order(ad: ClassAd, now: float) -> tuple[str, str]:
    """condor_status's default order: by Machine, then Name (ClassAd string order: case
    does not matter)."""
    return (_text(ad, "Machine", now).lower(), _text(ad, "Name", now).lower())


def slots(
    ads: Sequence[ClassAd],
    *,
    now: float,
    key: Callable[[ClassAd], Any] | None = None,
    summary: bool = True,
) -> str:
    """The default listing, in slot_order unless ``key`` orders it (``-sort``)."""
    if not ads:
        return ""
    ordered = sorted(ads, key=key or (lambda ad: slot_order(ad, now)))
    columns = [
        Column("Name"),
        Column("OpSys", width=10),
        Column("Arch", width=6),
        Column("State", width=9),
        Column("Activity", width=8),
        Column("LoadAv", right=True, width=6),
        Column("Mem", right=True, width=4, heading_left=True),
        Column("ActvtyTime", right=True, width=11),
    ]
    header, *rows = table(columns, [_slot_row(ad, now) for ad in ordered])
    lines = [header, "", *rows]
    if summary:
        lines += ["", *_summary_lines(ordered, now)]
    return "\n".join(lines) + "\n"


def slot_summary(ads: Sequence[ClassAd], *, now: float) -> str:
    """``-total``: the summary alone."""
    return "\n".join(_summary_lines(ads, now)) + "\n" if ads else ""


def _slot_row(ad: ClassAd, now: float) -> list[str]:
    load, memory = number(ad, "LoadAvg", now), number(ad, "Memory", now)
    entered = number(ad, "EnteredCurrentActivity", now)
    asof = number(ad, "MyCurrentTime", now) or number(ad, "LastHeardFrom", now) or now
    return [
        _text(ad, "Name", now),
        _text(ad, "OpSys", now),
        _text(ad, "Arch", now),
        _text(ad, "State", now),
        _text(ad, "Activity", now),
        "" if load is None else f"{load:.3f}",
        "" if memory is None else str(int(memory)),
        "" if entered is None else clock.duration(asof - entered),
    ]


def _summary_lines(ads: Sequence[ClassAd], now: float) -> list[str]:
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for ad in ads:
        counts[f"{_text(ad, 'Arch', now)}/{_text(ad, 'OpSys', now)}"][_summary_column(ad, now)] += 1
    names = ["Total", *SUMMARY_STATES, "Backfill", "BkIdle"]
    everything: Counter[str] = sum(counts.values(), Counter())
    rows = [_summary_row(label, counts[label], names) for label in sorted(counts)]
    total = _summary_row("Total", everything, names)
    columns = [Column("", right=True, width=14)]
    columns += [Column(n, right=True, width=6 if n == "Drain" else 0) for n in names]
    header, *lines = table(columns, [*rows, total])
    return [header, "", *lines[:-1], "", lines[-1]]


def _summary_column(ad: ClassAd, now: float) -> str:
    state = _text(ad, "State", now)
    if state == "Backfill":
        return "BkIdle" if _text(ad, "Activity", now) == "Idle" else "Backfill"
    for column, counted in SUMMARY_STATES.items():
        if state == counted:
            return column
    return ""  # counted in Total only


def _summary_row(label: str, counts: Counter[str], names: list[str]) -> list[str]:
    total = sum(counts.values())
    return [label, *(str(total if n == "Total" else counts[n]) for n in names)]


# -- daemons ----------------------------------------------------------------------------
def schedds(ads: Sequence[ClassAd], *, now: float, total_only: bool = False) -> str:
    """``-schedd`` (with ``total_only``: ``-schedd -total``)."""
    if not ads:
        return ""
    jobs = ("TotalRunningJobs", "TotalIdleJobs", "TotalHeldJobs")
    sums = [sum(int(number(ad, a, now) or 0) for ad in ads) for a in jobs]
    block = _totals_block(jobs, [], sums)
    return _daemon_table(ads, jobs, block, total_only, now)


def submitters(ads: Sequence[ClassAd], *, now: float, total_only: bool = False) -> str:
    """``-submitters``: each submitter ad, then each user's jobs summed over schedds."""
    if not ads:
        return ""
    jobs = ("RunningJobs", "IdleJobs", "HeldJobs")
    per_user: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for ad in ads:
        sums = per_user[_text(ad, "Name", now)]
        for i, attribute in enumerate(jobs):
            sums[i] += int(number(ad, attribute, now) or 0)
    users = [(name, per_user[name]) for name in sorted(per_user, key=lambda n: (n.lower(), n))]
    totals = [sum(s[i] for _, s in users) for i in range(3)]
    return _daemon_table(ads, jobs, _totals_block(jobs, users, totals), total_only, now)


def _daemon_table(
    ads: Sequence[ClassAd], jobs: tuple[str, ...], block: list[str], total_only: bool, now: float
) -> str:
    if total_only:
        return "\n".join(block) + "\n"
    columns = [
        Column("Name", width=18),
        Column("Machine", width=18),
        Column("RunningJobs", right=True, width=11),
        Column("IdleJobs", right=True, width=10),
        Column("HeldJobs", right=True, width=10),
    ]
    rows = [
        [
            _text(ad, "Name", now),
            _text(ad, "Machine", now),
            *(str(int(number(ad, a, now) or 0)) for a in jobs),
        ]
        for ad in ads
    ]
    header, *lines = table(columns, rows)
    return "\n".join([header, "", *lines, *block]) + "\n"


def _totals_block(
    headings: tuple[str, ...], rows: list[tuple[str, list[int]]], totals: list[int]
) -> list[str]:
    """The totals under -schedd and -submitters: labels right-aligned in 20 (cut to 20),
    counts in 18, 19 and 19."""

    def line(label: str, values: Sequence[str]) -> str:
        cells = (v.rjust(w) for v, w in zip(values, (18, 19, 19), strict=True))
        return label[:20].rjust(20) + "".join(cells)

    lines = [line("", headings), ""]
    lines += [line(name, [str(v) for v in sums]) for name, sums in rows]
    return [*lines, " " * 20, line("Total", [str(v) for v in totals])]


def negotiators(ads: Sequence[ClassAd], *, now: float) -> str:
    """``-negotiator``: the last negotiation cycle of each negotiator."""
    if not ads:
        return ""
    stats = ("Duration", "CandidateSlots", "ActiveSubmitterCount", "NumSchedulers")
    stats += ("NumIdleJobs", "Matches", "Rejections")
    headings = ("(Sec)", "Slots", "Submitrs", "Schedds", "Jobs", "Matches", "Rejections")
    columns = [Column("Name"), Column("LastCycleEnd", right=True)]
    columns += [Column(h, right=True) for h in headings]
    rows = []
    for ad in ads:
        end = number(ad, "LastNegotiationCycleEnd0", now)
        values = [number(ad, f"LastNegotiationCycle{s}0", now) for s in stats]
        rows.append(
            [
                _text(ad, "Name", now),
                "" if end is None else clock.month_day(end),
                *("" if v is None else str(int(v)) for v in values),
            ]
        )
    header, *lines = table(columns, rows)
    return "\n".join([header, "", *lines]) + "\n"


def any_ads(ads: Sequence[ClassAd], *, now: float) -> str:
    """``-any``: MyType, TargetType (``None`` when the ad has none) and Name of every ad."""
    if not ads:
        return ""
    columns = [Column("MyType", width=18), Column("TargetType", width=18)]
    columns.append(Column("Name".ljust(41)))  # the heading is padded, the names are not
    rows = [
        [_text(ad, "MyType", now), _text(ad, "TargetType", now) or "None", _text(ad, "Name", now)]
        for ad in ads
    ]
    header, *lines = table(columns, rows)
    return "\n".join([header, "", *lines]) + "\n"


def absent_slots(ads: Sequence[ClassAd], *, now: float) -> str:
    """``-absent``: each absent slot, when it went absent (its LastHeardFrom) and when
    the collector will forget it (LastHeardFrom + ClassAdLifetime), condor_status's
    headings."""
    if not ads:
        return ""
    columns = [Column("Name"), Column("OpSys", width=10), Column("Arch", width=6)]
    columns += [Column("Went Absent", width=11), Column("Will Expire", width=11)]
    rows = []
    for ad in sorted(ads, key=lambda ad: slot_order(ad, now)):
        went = number(ad, "LastHeardFrom", now)
        life = number(ad, "ClassAdLifetime", now)
        rows.append(
            [
                _text(ad, "Name", now),
                _text(ad, "OpSys", now),
                _text(ad, "Arch", now),
                "" if went is None else clock.month_day(went),
                "" if went is None or not life else clock.month_day(went + life),
            ]
        )
    header, *lines = table(columns, rows)
    return "\n".join([header, "", *lines]) + "\n"


def _text(ad: ClassAd, name: str, now: float) -> str:
    return text(ad, name, now) or ""
