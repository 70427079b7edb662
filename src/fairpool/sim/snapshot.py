"""A pool's state as the simulation's start: ``[snapshot] directory = "..."``.

A snapshot directory holds what HTCondor's own tools print of a pool, so one can be made
from a real HTCondor central manager by hand as well as by ``fairpool simulate
--from-pool`` (sim/from_pool.py) from a live fairpool pool:

* ``machines.ads``: the slot ads (``condor_status -l``), read as ``[[machines]] file``;
* ``queue.ads``: the job queue (``condor_q -allusers -l``), read as ``[[jobs]] file`` with
  the table's ``runtime`` and ``runtime_attribute`` (a live queue's jobs have no known run
  time: one of them is required when the queue has jobs);
* ``Accountantnew.log``: the accountant's log (``$(SPOOL)/Accountantnew.log``): every
  submitter's and group's priority, usage, factor, floor and ceiling at the start;
* ``pool_config``: the pool's configuration (``condor_config_val -dump``), read before the
  scenario's ``[config]``, which is then the change to try.

Each file is optional except ``machines.ads``. With an accountant log and no ``[simulation]
start``, the simulation starts at the log's ``LastUpdateTime``, when the snapshot was
taken, so priorities decay from there as they would have in the pool.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..accounting.records import Customer
from ..errors import StateError
from ..store.classadlog import LOG_NAME, read_accountant_log
from .queue_file import QUEUE_KEYS
from .table import Table

__all__ = [
    "ACCOUNTANT",
    "CONFIG",
    "MACHINES",
    "QUEUE",
    "SNAPSHOT_KEYS",
    "Snapshot",
    "read_snapshot",
]

MACHINES, QUEUE, ACCOUNTANT, CONFIG = "machines.ads", "queue.ads", LOG_NAME, "pool_config"
SNAPSHOT_KEYS = ("directory", "runtime", "runtime_attribute")


@dataclass(frozen=True)
class Snapshot:
    """The files of a snapshot directory, as the scenario's tables read them."""

    directory: Path
    config: str  # the pool's configuration text ("" without pool_config)
    machines: Table  # a [[machines]] table naming machines.ads
    queue: Table | None  # a [[jobs]] table naming queue.ads (None: no queue file)
    accountant: tuple[float, tuple[Customer, ...]] | None  # (LastUpdateTime, records)


def read_snapshot(table: Table) -> Snapshot:
    """The ``[snapshot]`` table's directory, its files checked (each error names the
    file); the machines and queue are read by the caller as their own tables are."""
    table.allow(SNAPSHOT_KEYS)
    directory = table.base / table.text("directory")
    if not directory.is_dir():
        raise table.fail("directory")(f"no such directory: {directory}")
    if not (directory / MACHINES).is_file():
        raise table.fail("directory")(f"{directory}: no {MACHINES} (the pool's slot ads)")
    name = f"{table.name} {MACHINES}"
    machines = Table({"file": MACHINES}, table.source, name, directory)
    queue = None
    if (directory / QUEUE).is_file():
        keys = {k: v for k, v in table.data.items() if k in QUEUE_KEYS and k != "file"}
        queue = Table({"file": QUEUE, **keys}, table.source, table.name, directory)
    config = ""
    if (directory / CONFIG).is_file():
        config = table.read(directory / CONFIG, "the pool's configuration")
    accountant = None
    if (directory / ACCOUNTANT).is_file():
        path = directory / ACCOUNTANT
        try:
            last_update, records = read_accountant_log(
                table.read(path, "the accountant's log"), str(path)
            )
        except StateError as err:
            raise table.fail("directory")(str(err).splitlines()[0]) from None
        accountant = (last_update, tuple(records))
    return Snapshot(directory, config, machines, queue, accountant)
