"""The master: the daemons of ``DAEMON_LIST`` in this process, behind one HTTP server.

``fairpool pool start`` runs a master. It reads the configuration (``--config``, else
``CONDOR_CONFIG``, else the pool directory's own ``condor_config``, written with a
personal pool's settings the first time), makes the pool's directories (``LOCAL_DIR``
is the pool directory unless the configuration sets it), opens the pool's database
(SQLite in ``SPOOL``, or ``DATABASE_URL``'s; its schema migrated: store/schema.py),
starts each daemon of ``DAEMON_LIST`` (COLLECTOR, NEGOTIATOR, SCHEDD, STARTD, DEFRAG,
GANGLIAD, ADSTASH; MASTER itself) and serves their APIs under ``/collector``,
``/negotiator``, ``/schedd``, ``/startd``, ``/defrag`` and ``/master``, with the pool's
metrics for Prometheus at ``/metrics`` (metrics_api.py) and the web dashboard at
``/dashboard/`` (web/). Their timers run on one event heap paced by the wall clock
(runtime/realtime.py).

It listens on NETWORK_INTERFACE (127.0.0.1 unless the configuration says; every
interface with BIND_ALL_INTERFACES), which is also the address its daemons advertise
(addresses.py). The port is that of the collector's own entry of ``COLLECTOR_HOST``
when the collector runs here (``:0``, a personal pool's setting, takes any free port;
``COLLECTOR_ARGS = -p PORT`` picks the entry where two collectors share a host), else
any free port; the address is written to ``LOCAL_DIR/address`` for the commands to
find, and the master's pid to ``LOCAL_DIR/master.pid``. A daemon run alone
(``DAEMON_LIST = MASTER, SCHEDD``) reports to every collector ``COLLECTOR_HOST`` lists
(collectors.py), as a process of a pool over many hosts does. The master's ad is named
by MASTER_NAME (``name@host``; the host's name by default) and sent every
MASTER_UPDATE_INTERVAL (300 s).
SIGTERM or SIGINT (``fairpool pool stop``) stops the pool.

Every request passes the security gate first (security/middleware.py: tokens, local
users, ALLOW/DENY lists; docs/security.md); a master running the collector makes the
pool's token signing key the first time, as HTCondor's collector does. Given
``AUTH_SSL_SERVER_CERTFILE`` and ``AUTH_SSL_SERVER_KEYFILE`` it serves HTTPS.

Beside the HTTP server the master runs a CEDAR listener (cedar/), HTCondor's own
protocol for the ``htcondor`` wheel's clients, over the same daemons, on ``CEDAR_PORT``
(0, the default, takes any free port). Its address, in HTCondor's sinful form, is the
``MyAddress`` of every daemon ad of this process, and is written to
``LOCAL_DIR/cedar_address``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import time
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import APIRouter, FastAPI

from ..cedar.listener import cedar_server
from ..cedar.server import CedarServer
from ..classad import ClassAd
from ..classad.jsonads import ad_to_json
from ..config import Config, load_config
from ..errors import ConfigError
from ..runtime.realtime import RealtimeEnvironment
from ..security import credentials
from ..security.credentials import DaemonToken
from ..security.middleware import Guard
from ..security.settings import Security
from ..security.tls import scheme, server_certificate
from ..security.tokens import key_file, make_key
from ..store.database import open_database, shown
from ..web import mount_dashboard
from .addresses import collector_hosts, collector_port, interface, own_collector
from .adstash import AdstashDaemon, adstash_router
from .app import daemon_app
from .collector import Collector
from .context import Context, PoolPaths, configured_name, database_url, knob_int
from .defrag import DefragDaemon
from .defrag_api import defrag_router
from .gangliad import Gangliad, gangliad_router
from .metrics_api import PoolMetrics
from .negotiator import Negotiator
from .negotiator_api import negotiator_router
from .schedd import Schedd
from .schedd_api import schedd_router
from .startd import StartdDaemon
from .startd_api import startd_router

__all__ = ["DAEMONS", "Master", "personal_config", "pool_application", "pool_dir"]

DAEMONS = ("COLLECTOR", "NEGOTIATOR", "SCHEDD", "STARTD", "DEFRAG", "GANGLIAD", "ADSTASH")
# names HTCondor's high-availability configurations put in DAEMON_LIST, with no process
# of their own here: HAD makes this process's negotiator one of a high-availability
# group (had.py); REPLICATION's copying of the accountant is the shared database's
HA_NAMES = ("HAD", "REPLICATION")
CONFIG_NAME = "condor_config"
ADDRESS_NAME = "address"
CEDAR_ADDRESS_NAME = "cedar_address"
PID_NAME = "master.pid"

PERSONAL = """\
# The configuration of a fairpool personal pool, written by `fairpool pool start`.
# HTCondor's configuration language; docs/pool.md lists the knobs the pool reads.
LOCAL_DIR = {local_dir}
DAEMON_LIST = MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, STARTD
COLLECTOR_HOST = 127.0.0.1:0
"""


def pool_dir(given: str | os.PathLike[str] | None = None) -> Path:
    """The pool directory: given, else ``$FAIRPOOL_DIR``, else ``~/.fairpool``."""
    if given is not None:
        return Path(given).expanduser().resolve()
    env = os.environ.get("FAIRPOOL_DIR")
    return Path(env).expanduser().resolve() if env else Path.home() / ".fairpool"


def personal_config(directory: Path) -> Path:
    """The pool directory's configuration file, written the first time."""
    path = directory / CONFIG_NAME
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        path.write_text(PERSONAL.format(local_dir=directory))
    return path


def read_config(directory: Path, config: str | None) -> Config:
    """The pool's configuration, with LOCAL_DIR the pool directory unless it says."""
    chosen = config or os.environ.get("CONDOR_CONFIG") or str(personal_config(directory))
    env = dict(os.environ)
    env.pop("CONDOR_CONFIG", None)
    loaded = load_config(chosen, env=env)
    if not loaded.is_set("LOCAL_DIR"):
        loaded = load_config(chosen, env={**env, "_CONDOR_LOCAL_DIR": str(directory)})
    return loaded


class Master:
    """One process of the pool."""

    def __init__(self, directory: Path, config: str | None = None) -> None:
        self.directory = directory
        self.config_file = config
        self.config = read_config(directory, config)
        self.daemons: dict[str, Any] = {}
        self.server: uvicorn.Server | None = None
        self.cedar: CedarServer | None = None
        self.stopping = asyncio.Event()
        self.ctx: Context | None = None
        self.metrics: PoolMetrics | None = None

    def daemon_list(self) -> list[str]:
        names = [n.upper() for n in self.config.get_list("DAEMON_LIST")]
        unknown = [n for n in names if n not in (*DAEMONS, *HA_NAMES, "MASTER")]
        if unknown:
            runs = ", ".join(DAEMONS)
            self._daemon_list_error(f"unknown daemon {unknown[0]} (fairpool runs {runs})")
        if "HAD" in names and "NEGOTIATOR" not in names:
            self._daemon_list_error("HAD controls the NEGOTIATOR, which is not in it")
        return [n for n in DAEMONS if n in names]

    def _daemon_list_error(self, problem: str) -> None:
        source, line = self.config.where("DAEMON_LIST")
        raise ConfigError(f"DAEMON_LIST: {problem}", source, line, "DAEMON_LIST")

    async def run(self) -> None:
        """Serve until stopped."""
        names = self.daemon_list()
        where = interface(self.config)
        hosts = collector_hosts(self.config)
        own = own_collector(self.config, hosts, "COLLECTOR" in names, where.advertised)
        port = collector_port(self.config, hosts, own) if "COLLECTOR" in names else 0
        paths = PoolPaths.of(self.config)
        paths.make()
        certificate = server_certificate(self.config)
        made_key = "COLLECTOR" in names and _signing_key(self.config)
        url = database_url(self.config)
        engine = open_database(url or paths.spool)
        ctx = self.ctx = Context(self.config, RealtimeEnvironment(), paths, engine)
        ctx.shared = url is not None
        ctx.security = Security(self.config)
        credentials.use(DaemonToken(lambda: ctx.security), self.config)
        ctx.started = time.time()
        ctx.host = (self.config.get("FULL_HOSTNAME") or "").strip() or ctx.host
        ctx.collector_hosts, ctx.own_collector = hosts, own
        listening = _listen(where.bind, port)
        ctx.url = f"{scheme(self.config)}://{where.advertised}:{listening.getsockname()[1]}"
        cedar_socket = _listen(where.bind, knob_int(self.config, "CEDAR_PORT", 0))
        ctx.cedar_port = cedar_socket.getsockname()[1]
        self.log = ctx.logger("master")
        if made_key:
            self.log.info("made the pool signing key %s", key_file(self.config))
        for name in names:
            self.daemons[name] = ctx.local[name.lower()] = _DAEMON_TYPES[name](ctx)
        self.cedar = cedar_server(ctx, self.daemons)
        await self.cedar.start(cedar_socket)
        self.metrics = PoolMetrics(ctx)
        app = pool_application(self.daemons, self._router(), self.metrics.router(), ctx)
        guarded = Guard(app, lambda: ctx.security, self.log)
        config = uvicorn.Config(
            guarded,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=2,
            ssl_certfile=certificate[0] if certificate else None,
            ssl_keyfile=certificate[1] if certificate else None,
        )
        self.server = uvicorn.Server(config)
        self.server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
        loop = asyncio.get_running_loop()
        for number in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(number, self.stopping.set)
        serving = loop.create_task(self.server.serve(sockets=[listening]))
        heap = loop.create_task(ctx.env.run())
        while not self.server.started and not serving.done():
            await asyncio.sleep(0.01)
        self._announce()
        advertising = loop.create_task(self._advertise_all())
        stop = loop.create_task(self.stopping.wait())
        await asyncio.wait({serving, stop}, return_when=asyncio.FIRST_COMPLETED)
        advertising.cancel()
        await self._shutdown(serving, heap)

    def _announce(self) -> None:
        assert self.ctx is not None
        (self.directory / ADDRESS_NAME).write_text(self.ctx.url + "\n")
        (self.directory / CEDAR_ADDRESS_NAME).write_text(self.ctx.address + "\n")
        (self.directory / PID_NAME).write_text(f"{os.getpid()}\n")
        self.log.info("pool at %s: %s", self.ctx.url, ", ".join(self.daemons))
        self.log.info("database: %s", shown(self.ctx.engine.url))  # never its password

    async def _advertise_all(self) -> None:
        """Every daemon's ads at once, then the master's every MASTER_UPDATE_INTERVAL (a
        collector that restarts hears of this process again)."""
        for daemon in self.daemons.values():
            advertise = getattr(daemon, "advertise", None)
            if advertise is not None:
                await advertise()
        while True:
            await self._master_ad()
            await asyncio.sleep(knob_int(self.config, "MASTER_UPDATE_INTERVAL", 300, minimum=1))

    async def _master_ad(self) -> None:
        assert self.ctx is not None
        ad = ClassAd(
            {
                "MyType": "DaemonMaster",
                "Name": configured_name(self.ctx, "MASTER_NAME"),
                "Machine": self.ctx.host,
                "ApiAddress": self.ctx.daemon_url("master"),
                **self.ctx.identity(),
                "DaemonStartTime": int(self.ctx.started),
                "DaemonList": ", ".join(["MASTER", *self.daemons]),
            }
        )
        await self.ctx.collectors.update([ad_to_json(ad)])

    async def _shutdown(self, serving: asyncio.Task, heap: asyncio.Task) -> None:
        for daemon in reversed(list(self.daemons.values())):
            with contextlib.suppress(Exception):
                await daemon.close() if hasattr(daemon, "close") else None
        heap.cancel()
        if self.ctx is not None:
            await self.ctx.collectors.close()
        if self.cedar is not None:
            await self.cedar.close()
        if self.server is not None:
            self.server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await serving
        for name in (ADDRESS_NAME, CEDAR_ADDRESS_NAME, PID_NAME):
            with contextlib.suppress(FileNotFoundError):
                (self.directory / name).unlink()

    def reconfig(self) -> list[str]:
        """Read the configuration again; each daemon takes the knobs it reads live."""
        assert self.ctx is not None
        fresh = read_config(self.directory, self.config_file)
        self.ctx.security = Security(fresh)  # ALLOW_*, DENY_*, methods: live (or refused)
        self.config = self.ctx.config = fresh
        for daemon in self.daemons.values():
            daemon.reconfig()
        if self.metrics is not None:
            self.metrics.reconfig()
        return list(self.daemons)

    def _router(self) -> APIRouter:
        api = APIRouter(tags=["master"])

        @api.get("/status", summary="The daemons of this process")
        async def status() -> dict[str, Any]:
            assert self.ctx is not None
            negotiator = self.daemons.get("NEGOTIATOR")
            had = getattr(negotiator, "had", None)
            return {
                "pid": os.getpid(),
                "address": self.ctx.url,
                "cedar_address": self.ctx.address,
                "daemons": ["MASTER", *self.daemons, *(["HAD"] if had is not None else [])],
                "started": self.ctx.started,
                "local_dir": str(self.ctx.paths.local_dir),
                "had": had.status() if had is not None else None,
            }

        @api.post("/reconfig", summary="Read the configuration again")
        async def reconfig() -> dict[str, Any]:
            return {"reconfigured": self.reconfig()}

        @api.post("/off", summary="Stop this process's daemons")
        async def off() -> dict[str, bool]:
            self.stopping.set()
            return {"stopping": True}

        return api


def pool_application(
    daemons: dict[str, Any], master: APIRouter, metrics: APIRouter, ctx: Context
) -> FastAPI:
    """The HTTP application of one process: each daemon's under its name, the master's,
    the metrics and the dashboard (routers read their daemon only when called:
    tests/security/test_routes.py lists every route from this)."""
    app = FastAPI(title="fairpool", summary="A process of a fairpool pool")
    app.mount("/master", daemon_app("master", master, "This process's daemons"))
    for name, daemon in daemons.items():
        router, summary = _ROUTERS[name]
        app.mount(f"/{name.lower()}", daemon_app(name.lower(), router(daemon), summary))
    app.include_router(metrics)
    mount_dashboard(app, ctx)
    return app


def _signing_key(config: Config) -> bool:
    """Make the pool's token signing key unless it exists (as HTCondor's collector
    does); whether it was made."""
    path = key_file(config)
    try:
        return make_key(path)
    except OSError as err:
        name = "SEC_TOKEN_POOL_SIGNING_KEY_FILE"
        source, line = config.where(name)
        message = f"{name} = {path}: cannot make it: {err.strerror}"
        raise ConfigError(message, source, line, name) from None


def _listen(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # accepted connections inherit it: without it a response's pieces wait for the
    # client's delayed ACK, some 40 ms a request
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as err:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port}: {err.strerror}") from None
    sock.listen(1024)
    sock.setblocking(False)
    return sock


_DAEMON_TYPES = {
    "COLLECTOR": Collector,
    "NEGOTIATOR": Negotiator,
    "SCHEDD": Schedd,
    "STARTD": StartdDaemon,
    "DEFRAG": DefragDaemon,
    "GANGLIAD": Gangliad,
    "ADSTASH": AdstashDaemon,
}
_ROUTERS = {
    "COLLECTOR": (Collector.router, "Every daemon's ads, and queries over them"),
    "NEGOTIATOR": (negotiator_router, "Negotiation cycles and the accountant"),
    "SCHEDD": (schedd_router, "The job queue"),
    "STARTD": (startd_router, "The execute node's slots and claims"),
    "DEFRAG": (defrag_router, "Draining fragmented machines (condor_defrag)"),
    "GANGLIAD": (gangliad_router, "Metrics sent to Ganglia (condor_gangliad)"),
    "ADSTASH": (adstash_router, "Job history sent to Elasticsearch (condor_adstash)"),
}
