"""``fairpool submit FILE --owner NAME --dry-run [-l]``: condor_submit -dry-run.

Reads a submit description file as condor_submit does and prints what it would queue:
one "N job(s) dry-run to cluster C." line per cluster, or with ``-l`` every job ad in
condor_q -l's old-ClassAd layout (attributes sorted by name, a blank line between ads).
fairpool has no schedd to hand jobs to, so ``--dry-run`` is required.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path

import click

from ..classad import ClassAd
from ..classad.formats import write_old
from ..errors import SubmitError
from ..submit import GroupMap, read_submit
from .errors import fail

__all__ = ["submit"]


@click.command(context_settings={"help_option_names": ["-help", "--help", "-h"]})
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--owner", required=True, metavar="NAME", help="The submitting user (Owner).")
@click.option("--dry-run", "-dry-run", "dry_run", is_flag=True, help="Print, do not submit.")
@click.option("-l", "--long", "long", is_flag=True, help="Print every job ad (condor_q -l).")
@click.option("--cluster", default=1, show_default=True, help="The first ClusterId.")
@click.option("--qdate", type=int, default=None, help="QDate (default: now).")
@click.option("--uid-domain", default=None, metavar="DOMAIN", help="UID_DOMAIN, for User.")
@click.option("--map", "map_file", default=None, metavar="FILE", help="Accounting-group map.")
@click.option(
    "--config",
    "knobs",
    multiple=True,
    metavar="KNOB=VALUE",
    help="Override a submit knob (ARCH, OPSYS, JOB_DEFAULT_REQUESTMEMORY, ...).",
)
def submit(
    file: str,
    owner: str,
    dry_run: bool,
    long: bool,
    cluster: int,
    qdate: int | None,
    uid_domain: str | None,
    map_file: str | None,
    knobs: tuple[str, ...],
) -> None:
    """Turn a submit description file into job ads, as condor_submit -dry-run does."""
    if not dry_run:
        fail("only --dry-run is supported: fairpool has no schedd to submit to")
    config = dict(_knob(k) for k in knobs)
    try:
        groups = GroupMap.read(map_file) if map_file else None
        ads = read_submit(file).job_ads(
            owner=owner,
            cluster_id=cluster,
            qdate=int(time.time()) if qdate is None else qdate,
            uid_domain=uid_domain,
            group_map=groups,
            env=dict(os.environ),
            cwd=Path(file).resolve().parent,
            config=config,
        )
    except SubmitError as err:
        fail(str(err))
    if long:
        click.echo("\n".join(_layout(ad) for ad in ads), nl=False)
        return
    for cluster_id, count in Counter(ad["ClusterId"] for ad in ads).items():
        click.echo(f"{count} job(s) dry-run to cluster {cluster_id}.")


def _knob(text: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        fail(f"--config {text}: expected KNOB=VALUE")
    return name.strip().upper(), value.strip()


def _layout(ad: ClassAd) -> str:
    ordered = ClassAd()
    for name in sorted(ad, key=str.lower):
        ordered.insert_expr(name, ad.lookup(name))
    return write_old(ordered)
