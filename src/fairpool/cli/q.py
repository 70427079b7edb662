"""``fairpool q``: condor_q against the pool's schedd.

Layouts (cli/listings/queue.py): batches by default, ``-nobatch``, ``-run``, ``-hold``,
``-totals``, ``-l`` and ``-af``; ``-better-analyze`` explains why each selected job runs
or waits (cli/listings/analysis.py), from the slots in the collector and the negotiator's
last cycles. Restrictions (job ids, cluster ids, user names, ``-constraint``) combine as
condor_q's manual says (cli/selection.py); without ``-allusers``, names or ids only the
current user's jobs are shown, unless that user is root (a queue super user), and the
totals then have the user's own line. ``-hold`` and ``-run`` show only held and running
jobs.
"""

from __future__ import annotations

import os
import pwd
import shutil
import time
from collections.abc import Sequence

import click

from ..classad import ClassAd
from ..classad.jsonads import ad_from_json
from ..daemons.client import SyncApi
from ..daemons.errors import ApiError
from ..schedd.queue import HELD, RUNNING
from .listings import Totals, autoformat, listing, long_form
from .listings.analysis import better_analyze, last_word
from .listings.jobs import job_id
from .listings.queue import banner
from .remote import collector, daemon, refusals
from .selection import Selection, literal
from .tool_options import AF_HELP, ToolCommand, autoformat_request

__all__ = ["q"]

_CYCLES = 20  # the negotiator cycles -better-analyze looks back over


@click.command(
    cls=ToolCommand,
    epilog=AF_HELP,
    context_settings={"help_option_names": ["-help", "--help", "-h"]},
)
@click.argument("restrictions", nargs=-1)
@click.option("-nobatch", is_flag=True, help="One line per job.")
@click.option("-batch", is_flag=True, help="One line per batch (the default).")
@click.option("-run", "running", is_flag=True, help="Running jobs and where they run.")
@click.option("-hold", "held", is_flag=True, help="Held jobs and why.")
@click.option("-totals", "-total", "totals", is_flag=True, help="The totals lines only.")
@click.option("-l", "-long", "long", is_flag=True, help="Whole job ads.")
@click.option(
    "-constraint",
    "-const",
    "constraints",
    multiple=True,
    metavar="EXPR",
    help="Jobs for which EXPR holds.",
)
@click.option("-allusers", is_flag=True, help="Every user's jobs, not only yours.")
@click.option("-better-analyze", "analyze", is_flag=True, help="Why the jobs run or wait.")
@click.option("-cumulative-time", "cumulative", is_flag=True, help="RUN_TIME of every run.")
@click.option("-name", "--name", "name", default=None, metavar="SCHEDD", help="The schedd.")
@click.option("--pool", "-pool", "pool", default=None, metavar="URL", help="The pool's address.")
def q(
    restrictions: Sequence[str],
    nobatch: bool,
    batch: bool,
    running: bool,
    held: bool,
    totals: bool,
    long: bool,
    constraints: Sequence[str],
    allusers: bool,
    analyze: bool,
    cumulative: bool,
    name: str | None,
    pool: str | None,
) -> None:
    """Show the jobs in the queue (HTCondor's condor_q): [cluster | cluster.proc | user]..."""
    now = time.time()
    with refusals():
        spec = autoformat_request()
        selection = Selection.parse(restrictions, constraints)
        me = selection.default_owner(allusers, _user(), super_user=os.getuid() == 0)
        extra = [f"Owner == {literal(me)}"] if me else []
        extra += [f"JobStatus == {HELD}"] if held else []
        extra += [f"JobStatus == {RUNNING}"] if running else []
        constraint = selection.constraint(extra)
        schedd = daemon("Scheduler", name, pool)
        answer = schedd.get("/jobs", constraint=constraint)
        jobs = sorted((ad_from_json(ad, "a job") for ad in answer["ads"]), key=_job_order)
        if analyze:
            click.echo(_analyses(schedd, jobs, answer, pool, now), nl=False)
        elif long:
            click.echo(long_form(jobs), nl=False)
        elif spec is not None:
            click.echo(autoformat(jobs, spec, now=now), nl=False)
        else:
            queue = jobs if constraint is None else _everyone(schedd)
            layout = _layout(totals, held, running, nobatch)
            click.echo(
                listing(
                    jobs,
                    now=now,
                    schedd_name=answer["schedd"],
                    schedd_address=answer["address"],
                    totals=Totals.of(jobs, now, queue=queue, user=me),
                    layout=layout,
                    cumulative=cumulative,
                ),
                nl=False,
            )


def _layout(totals: bool, held: bool, running: bool, nobatch: bool) -> str:
    if totals:
        return "totals"
    if held:
        return "hold"
    if running:
        return "run"
    return "nobatch" if nobatch else "batch"


def _job_order(job: ClassAd) -> tuple[int, int]:
    return job_id(job, 0)


def _user() -> str:
    """The current user, as the schedd knows a local caller."""
    return pwd.getpwuid(os.getuid()).pw_name


def _everyone(schedd: SyncApi) -> list[ClassAd]:
    """Every job in the queue, for the all-users totals line."""
    found = schedd.get("/jobs", projection="Owner,JobStatus")["ads"]
    return [ad_from_json(ad, "a job") for ad in found]


# -- -better-analyze ----------------------------------------------------------------------
def _analyses(
    schedd: SyncApi, jobs: list[ClassAd], answer: dict, pool: str | None, now: float
) -> str:
    slots = [
        ad_from_json(ad, "a slot ad") for ad in collector(pool).get("/ads", type="Machine")["ads"]
    ]
    cycles = _cycles(pool)
    width = shutil.get_terminal_size((80, 24)).columns
    # the banner without its time, as -better-analyze prints it
    parts = ["", "", banner(answer["schedd"], answer["address"], now).rsplit(" @ ", 1)[0]]
    for job in jobs:
        cluster, proc = job_id(job, now)
        info = schedd.get(f"/jobs/{cluster}.{proc}")
        ad = ad_from_json(info["ad"], f"job {cluster}.{proc}")
        word = last_word(
            cycles, info["schedd_address"], f"{cluster}.{proc}", info.get("autocluster")
        )
        text = better_analyze(
            ad, slots, now=now, word=word, submitter=info["submitter"], width=width
        )
        parts.append(text)
    return "\n".join(parts) + ("" if jobs else "\n")


def _cycles(pool: str | None) -> list[dict]:
    """The negotiator's last cycles (none when the pool has no negotiator)."""
    try:
        return daemon("Negotiator", None, pool).get("/cycles", last=_CYCLES)["cycles"]
    except ApiError:
        return []
