"""``fairpool pool start|stop|status`` and ``fairpool reconfig``: running a pool.

``start`` runs the master in the foreground (as ``condor_master -f``) or, with
``--background``, in a process of its own, and returns once the pool answers. ``stop``
sends the master SIGTERM and waits for it. ``status`` says where the pool is and what
it runs. ``reconfig`` makes the running daemons read the configuration again.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import click

from ..errors import FairpoolError
from .errors import fail

__all__ = ["pool", "reconfig"]

_WAIT = 30.0  # seconds for a pool to start or stop


@click.group(context_settings={"help_option_names": ["-h", "--help", "-help"]})
def pool() -> None:
    """Start, stop and look at a pool (a personal pool by default)."""


@pool.command()
@click.option(
    "--dir",
    "directory",
    default=None,
    metavar="DIR",
    help="The pool directory (default: $FAIRPOOL_DIR or ~/.fairpool).",
)
@click.option("--config", default=None, metavar="FILE", help="HTCondor configuration file.")
@click.option("--background", is_flag=True, help="Run the pool in its own process.")
def start(directory: str | None, config: str | None, background: bool) -> None:
    """Start the daemons of DAEMON_LIST (a personal pool: all of them)."""
    from ..daemons.logs import skip_record_details
    from ..daemons.master import Master, pool_dir
    from ..runtime.collection import freeze_survivors

    place = pool_dir(directory)
    running = _running(place)
    if running is not None:  # started already: nothing to do
        click.echo(f"fairpool pool already running in {place} (pid {running})")
        return
    if background:
        _start_in_background(place, config)
        return
    freeze_survivors()
    skip_record_details()
    try:
        master = Master(place, config)
        asyncio.run(master.run())
    except FairpoolError as err:
        fail(str(err).splitlines()[0])


def _start_in_background(place: Path, config: str | None) -> None:
    from ..daemons.master import ADDRESS_NAME

    place.mkdir(parents=True, exist_ok=True)
    (place / ADDRESS_NAME).unlink(missing_ok=True)
    command = [sys.executable, "-m", "fairpool.cli", "pool", "start", "--dir", str(place)]
    if config:
        command += ["--config", config]
    output = place / "master.out"
    with open(output, "ab") as sink:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=sink, stderr=sink, start_new_session=True
        )
    deadline = time.monotonic() + _WAIT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = output.read_text(errors="replace").strip().splitlines()[-1:] or ["no output"]
            fail(f"the pool did not start: {tail[0]}")
        if (place / ADDRESS_NAME).exists():
            address = (place / ADDRESS_NAME).read_text().strip()
            click.echo(f"fairpool pool started at {address} (pid {process.pid}, {place})")
            return
        time.sleep(0.05)
    process.terminate()
    fail(f"the pool did not answer within {_WAIT:g} s (see {output})")


@pool.command()
@click.option("--dir", "directory", default=None, metavar="DIR", help="The pool directory.")
def stop(directory: str | None) -> None:
    """Stop the pool (its running jobs are vacated; they run again at the next start)."""
    from ..daemons.master import pool_dir

    place = pool_dir(directory)
    pid = _running(place)
    if pid is None:
        fail(f"no pool is running in {place}")
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + _WAIT
    while time.monotonic() < deadline:
        if not _alive(pid):
            click.echo(f"fairpool pool stopped ({place})")
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    click.echo(f"fairpool pool killed after {_WAIT:g} s ({place})")


@pool.command()
@click.option("--dir", "directory", default=None, metavar="DIR", help="The pool directory.")
@click.option("--pool", "pool_address", default=None, metavar="URL", help="A pool's address.")
def status(directory: str | None, pool_address: str | None) -> None:
    """Where the pool is, its daemons and its size."""
    from ..daemons.client import SyncApi
    from ..daemons.locate import pool_base
    from ..daemons.master import pool_dir

    try:
        base = pool_base(pool_address, pool_dir(directory))
        api = SyncApi(base)
        master = api.get("/master/status")
        slots = api.get("/collector/ads", type="Machine", projection="Name,State")["ads"]
        schedds = api.get("/collector/ads", type="Scheduler", projection="Name,TotalJobAds")
    except FairpoolError as err:
        fail(str(err).splitlines()[0])
    uptime = int(time.time() - master["started"])
    jobs = sum(ad.get("TotalJobAds", 0) for ad in schedds["ads"])
    click.echo(f"pool at {master['address']} (pid {master['pid']}, up {uptime} s)")
    click.echo(f"directory: {master['local_dir']}")
    if master.get("cedar_address"):
        click.echo(f"HTCondor's clients (CEDAR): {master['cedar_address']}")
    click.echo(f"daemons: {', '.join(master['daemons'])}")
    click.echo(f"slots: {len(slots)}; jobs in the queue: {jobs}")
    had = master.get("had")
    if had:
        state = "active" if had["active"] else f"standing by (active: {had['holder'] or 'none'})"
        click.echo(f"high availability: {had['self']} of {', '.join(had['list'])}: {state}")


@click.command(context_settings={"help_option_names": ["-h", "--help", "-help"]})
@click.option("--pool", "pool_address", default=None, metavar="URL", help="A pool's address.")
def reconfig(pool_address: str | None) -> None:
    """Make the pool's daemons read their configuration again (condor_reconfig)."""
    from ..daemons.client import SyncApi
    from ..daemons.locate import pool_base

    try:
        SyncApi(pool_base(pool_address)).post("/master/reconfig")
    except FairpoolError as err:
        fail(str(err).splitlines()[0])
    click.echo('Sent "Reconfig" command to local master')


def _running(place: Path) -> int | None:
    """The pid of the master running in ``place``, if one is."""
    from ..daemons.master import PID_NAME

    try:
        pid = int((place / PID_NAME).read_text().strip())
    except (OSError, ValueError):
        return None
    return pid if _alive(pid) else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child (tests start pools from this process) is not alive
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False
