"""A throw-away PostgreSQL server for the tests: the distribution's own binaries
(``initdb``, ``postgres``), a cluster in a temporary directory, listening on 127.0.0.1 on a
free port, with trust authentication for one superuser.

``postgres_server`` (a session fixture) starts one server for the whole run; each test asks
it for a fresh database (``postgres_url``). Where the binaries are missing (``.ci/run``
installs Debian's ``postgresql`` package) the tests that need them are skipped, saying so.
As root the server runs as the ``postgres`` user (or ``nobody``): PostgreSQL refuses root.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["PostgresServer", "find_binaries", "postgres_server", "postgres_url"]

SUPERUSER = "fairpool"


def find_binaries() -> Path | None:
    """The directory holding ``initdb`` and ``postgres``: on PATH, else Debian's
    ``/usr/lib/postgresql/<version>/bin`` (the newest)."""
    found = shutil.which("initdb")
    if found and shutil.which("postgres"):
        return Path(os.path.realpath(found)).parent
    versions = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
    )
    return Path(versions[-1]).parent if versions else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _run_as() -> pwd.struct_passwd | None:
    if os.getuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise RuntimeError("running as root and no postgres or nobody user to run PostgreSQL as")


class PostgresServer:
    """One PostgreSQL cluster in ``directory``, serving on 127.0.0.1:``port``."""

    def __init__(self, binaries: Path, directory: Path) -> None:
        self.binaries = binaries
        self.directory = directory
        self.data = directory / "data"
        self.port = _free_port()
        self.user = _run_as()
        self.process: subprocess.Popen[bytes] | None = None
        self._numbers = itertools.count(1)

    def _demote(self) -> None:
        if self.user is not None:
            os.setgid(self.user.pw_gid)
            os.setgroups([])
            os.setuid(self.user.pw_uid)

    def start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        if self.user is not None:
            os.chown(self.directory, self.user.pw_uid, self.user.pw_gid)
        if not self.data.exists():
            subprocess.run(
                [
                    str(self.binaries / "initdb"),
                    "-D",
                    str(self.data),
                    "-U",
                    SUPERUSER,
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--locale=C",
                    "--no-sync",
                ],
                check=True,
                capture_output=True,
                preexec_fn=self._demote,
            )
        log = open(self.directory / "postgres.log", "ab")  # noqa: SIM115 - the server's
        self.process = subprocess.Popen(
            [
                str(self.binaries / "postgres"),
                "-D",
                str(self.data),
                "-p",
                str(self.port),
                "-k",
                str(self.directory),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "fsync=off",
                "-c",
                "max_connections=200",
            ],
            stdout=log,
            stderr=log,
            preexec_fn=self._demote,
        )
        log.close()
        self._wait_ready()

    def _wait_ready(self, timeout: float = 30.0) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            try:
                with psycopg.connect(self.dsn("postgres"), connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if self.process is not None and self.process.poll() is not None:
                    raise RuntimeError(
                        "PostgreSQL exited: " + (self.directory / "postgres.log").read_text()
                    ) from None
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def dsn(self, database: str) -> str:
        return f"host=127.0.0.1 port={self.port} user={SUPERUSER} dbname={database}"

    def url(self, database: str) -> str:
        """The SQLAlchemy URL of one database (psycopg 3)."""
        return f"postgresql+psycopg://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, prefix: str = "test") -> str:
        """A new, empty database; its SQLAlchemy URL."""
        import psycopg

        name = f"{prefix}_{os.getpid()}_{next(self._numbers)}"
        with psycopg.connect(self.dsn("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            # SIGTERM's smart shutdown would wait for clients: SIGINT's fast one does not
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL server for the run (skipped where PostgreSQL is not installed)."""
    binaries = find_binaries()
    if binaries is None:
        pytest.skip("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    pytest.importorskip("psycopg", reason="psycopg 3 is not installed (pip install .[test])")
    # not under pytest's base directory: that is the tests' user's alone (mode 0700)
    directory = Path(tempfile.mkdtemp(prefix="fairpool-postgres-"))
    server = PostgresServer(binaries, directory)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """The SQLAlchemy URL of a new, empty database on the run's PostgreSQL server."""
    return postgres_server.create_database()
