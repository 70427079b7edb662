"""``fairpool stats``: condor_stats over an HTCondorView collector's pool history.

The collector must keep history (KEEP_POOL_HISTORY = True; ``--pool`` names it, else the
pool's collector). One query per call, as condor_stats: ``-userlist`` and
``-resourcelist`` list what the history holds; ``-userquery USER`` gives a submitter's
running and idle jobs at each sample, ``-resourcequery SLOT`` a slot's state and
activity, ``-usergroupquery Total`` the pool's running and idle jobs, ``-resgroupquery
Total`` the slots in each state. The period is ``-lastday`` (the default), ``-lastweek``,
``-lastmonth`` or ``-lasthours N``. The answer is a table of samples (time in UTC, then
the figures); ``--plot FILE`` draws it as a chart too (PNG).
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import click

from .errors import fail
from .listings import clock
from .listings.columns import Column, table
from .remote import collector, refusals

__all__ = ["stats"]

_HOUR = 3600
_STATES = ("Owner", "Unclaimed", "Matched", "Claimed", "Preempting", "Drained")


@click.command(context_settings={"help_option_names": ["-help", "--help", "-h"]})
@click.option("-lastday", "hours", flag_value=24.0, help="The last day (the default).")
@click.option("-lastweek", "hours", flag_value=24.0 * 7, help="The last week.")
@click.option("-lastmonth", "hours", flag_value=24.0 * 31, help="The last month.")
@click.option(
    "-lasthours",
    "last",
    type=click.FloatRange(min=0),
    default=None,
    metavar="N",
    help="The last N hours.",
)
@click.option("-userlist", "listing", flag_value="submitter", help="The submitters.")
@click.option("-resourcelist", "listing", flag_value="resource", help="The slots.")
@click.option("-userquery", default=None, metavar="USER", help="A submitter's jobs.")
@click.option("-resourcequery", default=None, metavar="SLOT", help="A slot's states.")
@click.option("-usergroupquery", default=None, metavar="Total", help="The pool's jobs.")
@click.option("-resgroupquery", default=None, metavar="Total", help="Slots per state.")
@click.option("--plot", "plot", default=None, metavar="FILE", help="Also draw it (PNG).")
@click.option("--pool", "-pool", "pool", default=None, metavar="URL", help="The collector.")
def stats(
    hours: float | None,
    last: float | None,
    listing: str | None,
    userquery: str | None,
    resourcequery: str | None,
    usergroupquery: str | None,
    resgroupquery: str | None,
    plot: str | None,
    pool: str | None,
) -> None:
    """Pool history from an HTCondorView collector (HTCondor's condor_stats)."""
    queries = [q for q in (listing, userquery, resourcequery, usergroupquery, resgroupquery) if q]
    if len(queries) != 1:
        fail("give one query: -userlist, -resourcelist, -userquery, -resourcequery, "
             "-usergroupquery Total or -resgroupquery Total")  # fmt: skip
    for option, value in (("-usergroupquery", usergroupquery), ("-resgroupquery", resgroupquery)):
        if value is not None and value.lower() != "total":
            fail(f"{option} {value}: the only group is Total")
    now = time.time()
    since = now - _HOUR * (last if last is not None else hours or 24.0)
    with refusals():
        api = collector(pool)
        if listing is not None:
            names = api.get("/history/names", kind=listing)["names"]
            click.echo("".join(f"{name}\n" for name in names), nl=False)
            return
        kind = "submitter" if userquery or usergroupquery else "resource"
        name = userquery or resourcequery
        samples = api.get("/history", kind=kind, since=since, until=now, name=name)["samples"]
    if kind == "submitter":
        headings, rows = _jobs(samples)
    elif name is not None:
        headings, rows = (
            ["State", "Activity"],
            [(s["time"], [s["state"], s["activity"]]) for s in samples],
        )
    else:
        headings, rows = _states(samples)
    click.echo(_table(headings, rows), nl=False)
    if plot is not None:
        from .stats_plot import draw

        title = name or ("pool jobs" if kind == "submitter" else "pool slots")
        draw(Path(plot), title, headings, rows)


def _jobs(samples: list[dict[str, Any]]) -> tuple[list[str], list[tuple[float, list]]]:
    """Running and idle jobs at each sample time (summed over submitters)."""
    sums: dict[float, list[int]] = defaultdict(lambda: [0, 0])
    for s in samples:
        sums[s["time"]][0] += s["running"]
        sums[s["time"]][1] += s["idle"]
    return ["Running", "Idle"], [(t, sums[t]) for t in sorted(sums)]


def _states(samples: list[dict[str, Any]]) -> tuple[list[str], list[tuple[float, list]]]:
    """Slots per state at each sample time, and their total."""
    counts: dict[float, Counter[str]] = defaultdict(Counter)
    for s in samples:
        counts[s["time"]][s["state"]] += 1
    rows = [
        (t, [*(counts[t][state] for state in _STATES), sum(counts[t].values())])
        for t in sorted(counts)
    ]
    return [*_STATES, "Total"], rows


def _table(headings: list[str], rows: list[tuple[float, list]]) -> str:
    if not rows:
        return ""
    columns = [Column("Time", width=17)]
    columns += [Column(h, right=not isinstance(rows[0][1][0], str)) for h in headings]
    lines = table(columns, [[clock.stamp(t), *(str(v) for v in values)] for t, values in rows])
    return "\n".join(lines) + "\n"
