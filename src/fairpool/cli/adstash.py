"""``fairpool adstash``: condor_adstash's job history export, run once.

Every schedd of the pool (or those ``--schedd`` names), read through its API from the
checkpoint on; the documents go to Elasticsearch (``--es-url``, into the dated indices
``PREFIX-YYYY.MM.DD``) or to a JSON-lines file (``--jsonl``). Run it from cron (or a
systemd timer) as often as the history should reach the search server.
"""

from __future__ import annotations

from pathlib import Path

import click

from ..adstash import Checkpoint, ElasticTarget, JsonLinesTarget, stash
from ..errors import FairpoolError
from .remote import collector, refusals

__all__ = ["adstash"]


@click.command()
@click.option("--pool", default=None, metavar="URL", help="The pool's address.")
@click.option(
    "--schedd", "schedds", multiple=True, metavar="NAME", help="Only this schedd (repeatable)."
)
@click.option("--es-url", default=None, metavar="URL", help="Elasticsearch to send to.")
@click.option(
    "--jsonl", type=click.Path(dir_okay=False, path_type=Path), help="Append JSON lines here."
)
@click.option("--index-prefix", default="htcondor", show_default=True, help="Index names.")
@click.option(
    "--checkpoint",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("adstash_checkpoint.json"),
    show_default=True,
    help="Where the run stopped, per schedd.",
)
@click.option("--batch", type=click.IntRange(min=1), default=250, show_default=True)
@click.option(
    "--retries",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Sends again of documents refused for a passing reason.",
)
def adstash(
    pool: str | None,
    schedds: tuple[str, ...],
    es_url: str | None,
    jsonl: Path | None,
    index_prefix: str,
    checkpoint: Path,
    batch: int,
    retries: int,
) -> None:
    """Send finished jobs to Elasticsearch or a JSON-lines file (HTCondor's condor_adstash)."""
    if (es_url is None) == (jsonl is None):
        raise click.UsageError("give one of --es-url and --jsonl")
    rejects = checkpoint.with_name("adstash_rejects.jsonl")
    with refusals():
        mark = Checkpoint(checkpoint)
        target = (
            JsonLinesTarget(jsonl)
            if jsonl is not None
            else ElasticTarget(str(es_url), rejects, retries)
        )
        found = _schedds(pool, schedds)
        report = stash(found, target, mark, prefix=index_prefix, batch=batch)
        where = str(jsonl) if jsonl is not None else str(es_url)
        parts = ", ".join(f"{name}: {n}" for name, n in sorted(report.sent.items()))
        click.echo(f"{report.total} job(s) sent to {where} ({parts or 'no schedd'})")
        refused = getattr(target, "refused", 0)
        if refused:
            click.echo(f"{refused} refused for good, kept in {rejects}", err=True)


def _schedds(pool: str | None, wanted: tuple[str, ...]) -> dict:
    from ..daemons.client import SyncApi

    ads = collector(pool).get("/ads", type="Scheduler", projection="Name,ApiAddress")["ads"]
    found = {
        str(ad["Name"]): SyncApi(ad["ApiAddress"])
        for ad in ads
        if isinstance(ad.get("ApiAddress"), str) and (not wanted or ad.get("Name") in wanted)
    }
    missing = sorted(set(wanted) - set(found))
    if missing:
        raise FairpoolError(f"no schedd {missing[0]} in the pool")
    return found
