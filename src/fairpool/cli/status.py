"""``fairpool status``: condor_status against the pool's collector.

One query option picks the ads and their layout (cli/listings/status.py): the slots by
default (and ``-startd``: fairpool's startds publish only slot ads), ``-schedd``,
``-submitters``, ``-negotiator``, ``-any``, ``-absent`` (the slots the collector keeps as
absent, which no other query sees unless it names ``Absent``) or ``-offline``; ``-total``
prints only the totals, ``-l`` whole ads and ``-af`` chosen attributes. ``-constraint``
and names narrow the query: a name is a slot or machine name for slots (``Name`` or
``Machine``), the ad's ``Name`` otherwise; several names are alternatives.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial

import click

from ..classad.jsonads import ad_from_json
from .listings import (
    absent_slots,
    any_ads,
    autoformat,
    long_form,
    negotiators,
    schedds,
    slot_summary,
    slots,
    submitters,
)
from .listings.status import slot_order
from .remote import collector, refusals
from .selection import checked, literal
from .tool_options import AF_HELP, ToolCommand, autoformat_request

__all__ = ["status"]

# query option -> (ad type, listing, listing with -total)
_QUERIES = {
    "slots": ("Machine", slots, slot_summary),
    "schedd": ("Scheduler", schedds, partial(schedds, total_only=True)),
    "submitters": ("Submitter", submitters, partial(submitters, total_only=True)),
    "negotiator": ("Negotiator", negotiators, None),
    "any": ("Any", any_ads, None),
    "absent": ("Machine", absent_slots, None),
    "offline": ("Machine", slots, slot_summary),
}
# query option -> what it adds to the constraint
_SELECTS = {"absent": "Absent == true", "offline": "Offline == true"}


@click.command(
    cls=ToolCommand,
    epilog=AF_HELP,
    context_settings={"help_option_names": ["-help", "--help", "-h"]},
)
@click.argument("names", nargs=-1)
@click.option("-startd", "query", flag_value="slots", help="Slot ads (the default).")
@click.option("-schedd", "query", flag_value="schedd", help="Schedd ads.")
@click.option("-submitters", "query", flag_value="submitters", help="Submitter ads.")
@click.option("-negotiator", "query", flag_value="negotiator", help="Negotiator ads.")
@click.option("-any", "query", flag_value="any", help="Every ad: its type and name.")
@click.option("-absent", "query", flag_value="absent", help="Absent slots.")
@click.option("-offline", "query", flag_value="offline", help="Offline slots.")
@click.option("-total", "-totals", "total", is_flag=True, help="Totals only.")
@click.option("-l", "-long", "long", is_flag=True, help="Whole ads.")
@click.option(
    "-constraint",
    "-const",
    "constraints",
    multiple=True,
    metavar="EXPR",
    help="Ads for which EXPR holds.",
)
@click.option("--pool", "-pool", "pool", default=None, metavar="URL", help="The pool's address.")
def status(
    names: Sequence[str],
    query: str | None,
    total: bool,
    long: bool,
    constraints: Sequence[str],
    pool: str | None,
) -> None:
    """Show the pool's slots and daemons (HTCondor's condor_status): [name]..."""
    now = time.time()
    kind, layout, totals_layout = _QUERIES[query or "slots"]
    with refusals():
        spec = autoformat_request()
        selected = [*constraints, *([_SELECTS[query]] if query in _SELECTS else [])]
        constraint = _constraint(selected, names, kind)
        found = collector(pool).get("/ads", type=kind, constraint=constraint)["ads"]
        ads = [ad_from_json(ad, f"a {kind} ad") for ad in found]
    if kind == "Machine":  # condor_status's order, also for -l and -af
        ads.sort(key=lambda ad: slot_order(ad, now))
    if long:
        click.echo(long_form(ads), nl=False)
    elif spec is not None:
        click.echo(autoformat(ads, spec, now=now), nl=False)
    elif total and totals_layout is not None:
        click.echo(totals_layout(ads, now=now), nl=False)
    else:
        click.echo(layout(ads, now=now), nl=False)


def _constraint(constraints: Sequence[str], names: Sequence[str], kind: str) -> str | None:
    parts = []
    for text in constraints:
        parts.append(f"({checked(text)})")
    if names:
        fields = ("Name", "Machine") if kind == "Machine" else ("Name",)
        either = [f"{f} == {literal(n)}" for n in names for f in fields]
        parts.append(either[0] if len(either) == 1 else f"({' || '.join(either)})")
    return " && ".join(parts) if parts else None
