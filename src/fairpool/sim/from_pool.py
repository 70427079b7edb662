"""A snapshot of a live fairpool pool, for ``fairpool simulate --from-pool``: its slot ads,
its schedds' queues, its accountant and its negotiator's configuration, written as the
files a ``[snapshot]`` directory holds (sim/snapshot.py), which are what HTCondor's tools
print of a pool. The run can then be repeated from the directory alone. The directory
is the caller's to stage: ``fairpool simulate`` writes it beside the results and moves it
in with them, so each file is written as it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..accounting.accountant import Accountant
from ..accounting.records import Customer
from ..classad import ClassAd
from ..classad.formats import write_old
from ..classad.jsonads import ad_from_json
from ..daemons.client import SyncApi
from ..daemons.locate import collector_url, daemon_url
from ..errors import InputError
from ..schedd.queue import IDLE, RUNNING, SUSPENDED
from ..store.classadlog import AccountantLog
from .snapshot import ACCOUNTANT, CONFIG, MACHINES, QUEUE

__all__ = ["take_snapshot"]


def take_snapshot(pool: str | None, into: Path) -> dict[str, int]:
    """Write the pool's state into the directory ``into``; how many slots, queued jobs
    and accountant records it holds."""
    into.mkdir(parents=True, exist_ok=True)
    collector = SyncApi(collector_url(pool))
    try:
        slots = _ads(collector.get("/ads", type="Machine")["ads"], "a slot ad")
        schedds = collector.get("/ads", type="Scheduler", projection="Name,ApiAddress")["ads"]
    finally:
        collector.close()
    if not slots:
        raise InputError(f"the pool at {collector_url(pool)} has no slot ads to simulate")
    _write_ads(into / MACHINES, slots)
    jobs = [job for schedd in schedds for job in _queue(schedd)]
    if jobs:
        _write_ads(into / QUEUE, jobs)
    negotiator = SyncApi(daemon_url("Negotiator", None, pool))
    try:
        state = negotiator.get("/accountant")
        knobs = negotiator.get("/config")["knobs"]
    finally:
        negotiator.close()
    records = [Customer(**fields) for fields in state["customers"]]
    AccountantLog(into / ACCOUNTANT).compact(Accountant(None, records, state["last_update"]))
    lines = [f"# the configuration of the pool's negotiator ({collector_url(pool)})"]
    (into / CONFIG).write_text("\n".join(lines + [f"{n} = {v or ''}" for n, v in knobs]) + "\n")
    return {"slots": len(slots), "jobs": len(jobs), "records": len(records)}


def _queue(schedd: dict[str, Any]) -> list[ClassAd]:
    """A schedd's idle, running and suspended jobs (the rest do not wait for a slot)."""
    address = schedd.get("ApiAddress")
    if not isinstance(address, str):
        return []
    api = SyncApi(address)
    try:
        constraint = f"JobStatus == {IDLE} || JobStatus == {RUNNING} || JobStatus == {SUSPENDED}"
        return _ads(api.get("/jobs", constraint=constraint)["ads"], "a job")
    finally:
        api.close()


def _ads(found: list[Any], what: str) -> list[ClassAd]:
    return [ad_from_json(ad, what) for ad in found]


def _write_ads(path: Path, ads: list[ClassAd]) -> None:
    """The ads as ``condor_status -l`` prints them, one block each."""
    path.write_text("\n".join(write_old(ad) for ad in ads))
