"""``fairpool submit FILE``: condor_submit.

Reads a submit description file as condor_submit does and queues its jobs with the
pool's schedd: the schedd gives the next cluster number and says who the submitting
user is; the jobs are made here (fairpool.submit) and sent as one submission, which the
schedd queues whole or not at all. It prints condor_submit's lines ("Submitting
job(s)...", "N job(s) submitted to cluster C."). A missing executable is refused before
anything is sent, as condor_submit refuses it.

``--dry-run`` queues nothing: it prints one "N job(s) dry-run to cluster C." line per
cluster or, with ``-l``, every job ad in condor_q -l's layout; ``--owner`` then names
the submitting user.
"""

from __future__ import annotations

import getpass
import os
import time
from collections import Counter
from pathlib import Path

import click

from ..classad import ClassAd
from ..errors import FairpoolError, SubmitError
from ..submit import GroupMap, configured_group_map, read_submit
from .errors import fail
from .listings.long import long_form

__all__ = ["submit"]

_ATTEMPTS = 5  # submissions made again when another one took the cluster number first


@click.command(context_settings={"help_option_names": ["-help", "--help", "-h"]})
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--dry-run", "-dry-run", "dry_run", is_flag=True, help="Print, do not submit.")
@click.option("-l", "--long", "long", is_flag=True, help="With --dry-run: every job ad.")
@click.option("--owner", default=None, metavar="NAME", help="With --dry-run: the Owner.")
@click.option("--cluster", default=1, show_default=True, help="With --dry-run: the ClusterId.")
@click.option("--qdate", type=int, default=None, help="With --dry-run: QDate (default: now).")
@click.option("--uid-domain", default=None, metavar="DOMAIN", help="UID_DOMAIN, for User.")
@click.option("--map", "map_file", default=None, metavar="FILE", help="Accounting-group map.")
@click.option(
    "--config",
    "knobs",
    multiple=True,
    metavar="KNOB=VALUE",
    help="Override a submit knob (ARCH, OPSYS, JOB_DEFAULT_REQUESTMEMORY, ...).",
)
@click.option("--pool", "-pool", "pool", default=None, metavar="URL", help="The pool's address.")
@click.option("-name", "--name", "schedd", default=None, metavar="SCHEDD", help="The schedd.")
def submit(
    file: str,
    dry_run: bool,
    long: bool,
    owner: str | None,
    cluster: int,
    qdate: int | None,
    uid_domain: str | None,
    map_file: str | None,
    knobs: tuple[str, ...],
    pool: str | None,
    schedd: str | None,
) -> None:
    """Submit jobs from a submit description file (HTCondor's condor_submit)."""
    config = dict(_knob(k) for k in knobs)
    try:
        description = read_submit(file)
        groups = GroupMap.read(map_file) if map_file else _configured_map()
    except FairpoolError as err:
        fail(str(err))
    cwd = Path.cwd()  # condor_submit's: Iwd, relative paths, item files and globs

    def make(
        owner: str, first: int, when: int, domain: str | None, pool_knobs: dict[str, str]
    ) -> list[ClassAd]:
        return description.job_ads(
            owner=owner,
            cluster_id=first,
            qdate=when,
            uid_domain=domain,
            group_map=groups,
            env=dict(os.environ),
            cwd=cwd,
            config={**pool_knobs, **config},
        )

    try:
        if dry_run:
            ads = make(owner or getpass.getuser(), cluster, _now(qdate), uid_domain, {})
            _print_dry_run(ads, long)
        else:
            _submit(make, pool, schedd, uid_domain)
    except FairpoolError as err:
        fail(str(err))


def _submit(make, pool: str | None, name: str | None, uid_domain: str | None) -> None:
    from ..daemons.client import SyncApi
    from ..daemons.errors import Conflict
    from ..daemons.locate import daemon_url
    from ..schedd.submission import submission

    api = SyncApi(daemon_url("Scheduler", name, pool))
    for _ in range(_ATTEMPTS):
        info = api.get("/submit-info")
        if not info.get("owner"):
            fail("the schedd does not know who you are: present a token (docs/security.md)")
        domain = uid_domain or info["uid_domain"]
        knobs = {  # the pool's: its startds' file system, its schedd's limit
            "FILESYSTEM_DOMAIN": info["filesystem_domain"],
            "MAX_JOBS_PER_SUBMISSION": str(info["max_jobs_per_submission"]),
        }
        ads = make(info["owner"], info["next_cluster"], _now(None), domain, knobs)
        _check_executables(ads)
        click.echo("Submitting job(s)" + "." * len(ads))
        try:
            api.post(
                "/submit", {"first_cluster": info["next_cluster"], "clusters": submission(ads)}
            )
        except Conflict:
            continue
        for number, count in Counter(ad["ClusterId"] for ad in ads).items():
            click.echo(f"{count} job(s) submitted to cluster {number}.")
        return
    fail("the schedd's cluster numbers kept changing: submit again")


def _check_executables(ads: list[ClassAd]) -> None:
    """condor_submit's check: every cluster's executable exists (a job held for it later
    would only say so at run time)."""
    for command in sorted({ad.get("Cmd") for ad in ads if isinstance(ad.get("Cmd"), str)}):
        iwd = next(ad.get("Iwd") for ad in ads if ad.get("Cmd") == command)
        path = Path(command if os.path.isabs(command) else os.path.join(str(iwd), command))
        if not path.exists():
            raise SubmitError(f"Executable file {path} does not exist")


def _print_dry_run(ads: list[ClassAd], long: bool) -> None:
    if long:
        click.echo(long_form(ads), nl=False)
        return
    for cluster_id, count in Counter(ad["ClusterId"] for ad in ads).items():
        click.echo(f"{count} job(s) dry-run to cluster {cluster_id}.")


def _configured_map() -> GroupMap | None:
    """The accounting-group map the configuration names (AssignAccountingGroup)."""
    if not os.environ.get("CONDOR_CONFIG"):
        return None
    from ..config import load_config

    return configured_group_map(load_config())


def _now(qdate: int | None) -> int:
    return int(time.time()) if qdate is None else qdate


def _knob(text: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        fail(f"--config {text}: expected KNOB=VALUE")
    return name.strip().upper(), value.strip()
