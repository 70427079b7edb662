"""``fairpool history``: condor_history against the pool's schedd.

The jobs that left the queue (completed or removed), newest first, in condor_history's
layout (cli/listings/history.py), ``-l`` or ``-af``; restricted by job ids, cluster ids,
user names and ``-constraint`` as condor_q restricts (every user's jobs by default, as
condor_history shows its whole file), and to the newest N with ``-limit N`` (``-match``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import click

from ..classad.jsonads import ad_from_json
from .listings import autoformat, long_form
from .listings import history as history_listing
from .remote import daemon, refusals
from .selection import Selection
from .tool_options import AF_HELP, ToolCommand, autoformat_request

__all__ = ["history"]


@click.command(
    cls=ToolCommand,
    epilog=AF_HELP,
    context_settings={"help_option_names": ["-help", "--help", "-h"]},
)
@click.argument("restrictions", nargs=-1)
@click.option("-l", "-long", "long", is_flag=True, help="Whole job ads.")
@click.option(
    "-constraint",
    "-const",
    "constraints",
    multiple=True,
    metavar="EXPR",
    help="Jobs for which EXPR holds.",
)
@click.option(
    "-limit",
    "-match",
    "limit",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="The newest N jobs.",
)
@click.option("-name", "--name", "name", default=None, metavar="SCHEDD", help="The schedd.")
@click.option("--pool", "-pool", "pool", default=None, metavar="URL", help="The pool's address.")
def history(
    restrictions: Sequence[str],
    long: bool,
    constraints: Sequence[str],
    limit: int | None,
    name: str | None,
    pool: str | None,
) -> None:
    """Show jobs that left the queue (HTCondor's condor_history)."""
    now = time.time()
    with refusals():
        spec = autoformat_request()
        selection = Selection.parse(restrictions, constraints)
        schedd = daemon("Scheduler", name, pool)
        found = schedd.get("/history", constraint=selection.constraint(), limit=limit)["ads"]
        newest_first = [ad_from_json(ad, "a history ad") for ad in found]
        if long:
            click.echo(long_form(newest_first), nl=False)
        elif spec is not None:
            click.echo(autoformat(newest_first, spec, now=now), nl=False)
        else:
            click.echo(history_listing(newest_first[::-1], now=now), nl=False)
