"""``fairpool demo``: the main job on the data fairpool ships with.

Matches three example jobs against the real slot ads of an Open Science Pool sample, at
the moment the sample was taken, and shows for each job how many slots accept it, which
side refused the others, and the slot its Rank prefers.
"""

from __future__ import annotations

import gzip
from importlib import resources

import click
from rich.console import Console
from rich.table import Table

from ..classad import ClassAd, parse_ads, rank, requirements_met

__all__ = ["demo"]


def _data(name: str):
    return resources.files("fairpool.data").joinpath(name)


def load_demo_pool() -> tuple[list[ClassAd], list[ClassAd], float]:
    """(slot ads, job ads, the time the sample was taken)."""
    with _data("ospool_pool_sample.ads.gz").open("rb") as raw, gzip.open(raw, "rt") as text:
        ads = list(parse_ads(text, fmt="old", name="ospool_pool_sample.ads.gz"))
    slots = [ad for ad in ads if ad.eval("MyType") == "Machine"]
    taken = max(ad.eval("LastHeardFrom") for ad in slots)
    jobs = list(parse_ads(_data("demo_jobs.ads").read_text(), fmt="old", name="demo_jobs.ads"))
    return slots, jobs, float(taken)


@click.command()
def demo() -> None:
    """Match example jobs against real Open Science Pool slot ads."""
    slots, jobs, now = load_demo_pool()
    table = Table(title=f"{len(jobs)} jobs against {len(slots)} OSPool slots")
    for column in (
        "job",
        "owner",
        "request",
        "matching slots",
        "refused by job",
        "refused by slot",
        "preferred slot (job Rank)",
    ):
        table.add_column(column)
    for job in jobs:
        table.add_row(*_row(job, slots, now))
    Console().print(table)


def _row(job: ClassAd, slots: list[ClassAd], now: float) -> list[str]:
    job_ok = [requirements_met(job, slot, now=now) for slot in slots]
    slot_ok = [requirements_met(slot, job, now=now) for slot in slots]
    matching = [s for s, a, b in zip(slots, job_ok, slot_ok, strict=True) if a and b]
    best = max(matching, key=lambda s: (rank(job, s, now=now), s.eval("Name")), default=None)
    request = f"{job.eval('RequestCpus')} cpu, {job.eval('RequestMemory')} MiB"
    if "RequestGPUs" in job:
        request += f", {job.eval('RequestGPUs')} gpu"
    return [
        f"{job.eval('ClusterId')}.{job.eval('ProcId')}",
        job.eval("Owner"),
        request,
        str(len(matching)),
        str(job_ok.count(False)),
        str(sum(1 for a, b in zip(job_ok, slot_ok, strict=True) if a and not b)),
        best.eval("Name") if best is not None else "-",
    ]
