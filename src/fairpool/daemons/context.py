"""What every daemon of a process shares: the configuration, the clock, the pool's
directories and database, and where the daemons are.

The master (master.py) builds one ``Context`` per process and gives it to each daemon
of ``DAEMON_LIST`` it starts there. Directories are HTCondor's knobs: ``LOCAL_DIR``,
``SPOOL`` (the database: job queue, history, accountant), ``LOG`` (each daemon's log)
and ``EXECUTE`` (the jobs' scratch directories). ``DATABASE_URL``, fairpool's own knob,
puts the database elsewhere (PostgreSQL, shared by the daemons of several hosts). The
collectors the daemons report to are ``collectors`` (collectors.py: COLLECTOR_HOST,
several as HTCondor's high availability lists them); the host's name is ``FULL_HOSTNAME``
(the host's full name unless the configuration says otherwise), which daemons' names
default to.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import URL, Engine

from ..config import Config
from ..config.knob_values import daemon_name, knob_error
from ..errors import ConfigError, StateError
from ..runtime.realtime import RealtimeEnvironment
from ..store.database import database_url as parse_database_url
from .addresses import CollectorHost
from .collectors import Collectors
from .logs import DaemonLog

if TYPE_CHECKING:
    from ..security.settings import Security

__all__ = [
    "CONDOR_PLATFORM",
    "CONDOR_VERSION",
    "Context",
    "PoolPaths",
    "configured_name",
    "database_url",
    "filesystem_domain",
    "knob_float",
    "knob_int",
]

_LOGS: dict[str, DaemonLog] = {}  # the daemons' logs of this process, by name

# What every daemon ad (and the CEDAR handshake) says the daemon is: the HTCondor
# release whose protocol the CEDAR front end speaks, built by fairpool. HTCondor's
# clients read these (the wheel's Schedd needs CondorVersion in the ad it is given).
CONDOR_VERSION = "$CondorVersion: 25.0.0 2025-01-01 BuildID: fairpool $"
CONDOR_PLATFORM = "$CondorPlatform: X86_64-Linux fairpool $"


@dataclass(frozen=True)
class PoolPaths:
    local_dir: Path
    spool: Path
    log: Path
    execute: Path

    @classmethod
    def of(cls, config: Config) -> PoolPaths:
        local = Path(_path(config, "LOCAL_DIR", "."))
        return cls(
            local,
            Path(_path(config, "SPOOL", str(local / "spool"))),
            Path(_path(config, "LOG", str(local / "log"))),
            Path(_path(config, "EXECUTE", str(local / "execute"))),
        )

    def make(self) -> None:
        for directory in (self.local_dir, self.spool, self.log, self.execute):
            directory.mkdir(parents=True, exist_ok=True)


def _path(config: Config, name: str, default: str) -> str:
    text = config.get(name)
    return text.strip() if text and text.strip() else default


class DutyCycle:
    """The share of the last minute or so this process spent computing (its CPU time
    over wall time): fairpool's ``RecentDaemonCoreDutyCycle``, which HTCondor's tools
    (``htcondor cm status``, ``ap status``) read from daemon ads."""

    WINDOW = 60.0

    def __init__(self) -> None:
        self.mark = (time.monotonic(), _cpu())
        self.value = 0.0

    def __call__(self) -> float:
        wall, cpu = time.monotonic(), _cpu()
        passed = wall - self.mark[0]
        if passed >= 1.0:
            self.value = round(min(1.0, max(0.0, (cpu - self.mark[1]) / passed)), 4)
        if passed >= self.WINDOW:
            self.mark = (wall, cpu)
        return self.value


def _cpu() -> float:
    times = os.times()
    return times.user + times.system


@dataclass
class Context:
    """One process's share of the pool."""

    config: Config
    env: RealtimeEnvironment
    paths: PoolPaths
    engine: Engine
    url: str = ""  # this process's API, e.g. http://127.0.0.1:9618 (set once listening)
    collector_hosts: list[CollectorHost] = field(default_factory=list)  # COLLECTOR_HOST
    own_collector: int | None = None  # the entry of collector_hosts that runs here
    host: str = field(default_factory=socket.getfqdn)
    started: float = 0.0
    local: dict[str, object] = field(default_factory=dict)  # this process's daemons, by name
    cedar_port: int = 0  # this process's CEDAR listener (0: none)
    security: Security | None = None  # who may do what (security/settings.py)
    duty_cycle: DutyCycle = field(default_factory=DutyCycle)
    shared: bool = False  # the database is DATABASE_URL's, not SPOOL's own

    def owner(self, name: str) -> str:
        """The name a daemon's rows carry in the database: its own where daemons of
        several hosts may share it (DATABASE_URL); empty in SPOOL's own database, which
        is this host's alone, so that renaming the host or the daemon keeps its state."""
        return name if self.shared else ""

    def logger(self, daemon: str) -> DaemonLog:
        """The daemon's log, ``LOG/<Daemon>Log`` as HTCondor names them (one per pool
        and daemon in a process)."""
        path = self.paths.log / f"{daemon.capitalize()}Log"
        name = f"fairpool.{daemon}.{self.paths.log}"
        found = _LOGS.get(name)
        if found is None:
            found = _LOGS[name] = DaemonLog(name, path)
        return found

    def daemon_url(self, daemon: str) -> str:
        return f"{self.url}/{daemon}"

    @cached_property
    def collectors(self) -> Collectors:
        """The pool's collectors (made once this process listens: its own is among
        them)."""
        return Collectors(self)

    def in_process(self, url: str, daemon: str) -> Any:
        """The daemon of this process that ``url`` names, or None: daemons of one process
        call each other's core directly, skipping HTTP, as the negotiator reads its
        collector (the same methods the API's handlers call)."""
        local = self.local.get(daemon)
        return local if local is not None and url == self.daemon_url(daemon) else None

    def identity(self) -> dict[str, str]:
        """The attributes that name this process in each of its daemons' ads."""
        return {
            "MyAddress": self.address,
            "CondorVersion": CONDOR_VERSION,
            "CondorPlatform": CONDOR_PLATFORM,
            "RecentDaemonCoreDutyCycle": self.duty_cycle(),
        }

    @property
    def address(self) -> str:
        """This process's address as HTCondor writes one (``MyAddress``): its CEDAR
        port in sinful form, ``<ADDRESS:PORT?addrs=ADDRESS-PORT>`` at the address it
        advertises (NETWORK_INTERFACE), which HTCondor's own clients connect to; the HTTP
        port where no CEDAR listener runs."""
        where = self.url.split("://", 1)[-1].split("/", 1)[0]
        if self.cedar_port:
            host = where.rpartition(":")[0] or "127.0.0.1"
            return f"<{host}:{self.cedar_port}?addrs={host}-{self.cedar_port}>"
        return f"<{where}>"


def knob_int(config: Config, name: str, default: int, minimum: int = 0) -> int:
    """An integer knob of at least ``minimum`` (a ConfigError names the knob and where
    it was set)."""
    value = config.get_int(name, default)
    assert value is not None
    if value < minimum:
        raise knob_error(config, name, f"a whole number of {minimum} or more")
    return value


def database_url(config: Config) -> URL | None:
    """DATABASE_URL: the pool's database, None for SQLite in SPOOL (the default). A bad
    URL is a ConfigError naming the knob, never showing a password."""
    text = (config.get("DATABASE_URL") or "").strip()
    if not text:
        return None
    try:
        return parse_database_url(text)
    except StateError as err:
        source, line = config.where("DATABASE_URL")
        raise ConfigError(f"DATABASE_URL: {err}", source, line, "DATABASE_URL") from None


def knob_float(config: Config, name: str, default: float, minimum: float = 0.0) -> float:
    value = config.get_float(name, default)
    assert value is not None
    if value < minimum:
        raise knob_error(config, name, f"a number of {minimum:g} or more")
    return value


def configured_name(ctx: Context, knob: str) -> str:
    """A daemon's ``Name`` from its knob (SCHEDD_NAME, STARTD_NAME, MASTER_NAME), as
    HTCondor makes it: ``name@host``, the host's name when unset."""
    return daemon_name(ctx.config.get(knob), ctx.host)


def filesystem_domain(ctx: Context) -> str:
    """FILESYSTEM_DOMAIN, HTCondor's default being the host's full name: the jobs of a
    schedd that share a file system with a startd say so by having the same one."""
    return (ctx.config.get("FILESYSTEM_DOMAIN") or "").strip() or ctx.host
