"""A pool that requires tokens (SEC_DEFAULT_AUTHENTICATION = REQUIRED, IDTOKENS only),
its users' tokens, and the application of a process running every daemon, for the
tests of security/.

    tokens = Tokens(directory)                     # the pool's signing key, made first
    with LivePool(directory, token=tokens.admin, **SECURED) as pool: ...
    tokens.make("alice")                           # alice@matrix.test
"""

from __future__ import annotations

import secrets
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

from fastapi import FastAPI

from fairpool.config import parse_config_text
from fairpool.daemons.master import DAEMONS, Master, pool_application
from fairpool.daemons.metrics_api import PoolMetrics
from fairpool.security.levels import Level
from fairpool.security.tokens import create_token, key_file, make_key, read_key

DOMAIN = "matrix.test"
SECURED = {
    "SEC_DEFAULT_AUTHENTICATION": "REQUIRED",
    "SEC_DEFAULT_AUTHENTICATION_METHODS": "IDTOKENS",
    "UID_DOMAIN": DOMAIN,
    "ALLOW_READ": f"*@{DOMAIN}",
    "ALLOW_WRITE": f"*@{DOMAIN}",
    "ALLOW_ADMINISTRATOR": f"admin@{DOMAIN}, condor@{DOMAIN}",
    "ALLOW_DAEMON": f"condor@{DOMAIN}",
    "ALLOW_NEGOTIATOR": f"condor@{DOMAIN}",
}


class Tokens:
    """Tokens signed with the pool's key (made here before the pool starts, which
    keeps it), or with another key."""

    def __init__(self, pool_directory: Path) -> None:
        path = key_file(parse_config_text(f"LOCAL_DIR = {pool_directory}\n", env={}))
        make_key(path)
        self.key = read_key(path)

    def make(
        self,
        user: str,
        *,
        scope: frozenset[Level] | None = None,
        lifetime: float | None = None,
        issued: float | None = None,
        key: bytes | None = None,
        domain: str = DOMAIN,
    ) -> str:
        now = time.time() if issued is None else issued
        return create_token(
            key or self.key, f"{user}@{domain}", DOMAIN, now=now, scope=scope, lifetime=lifetime
        )

    @property
    def admin(self) -> str:
        return self.make("admin")

    @property
    def daemon(self) -> str:
        return self.make("condor")

    def wrong_key(self, user: str) -> str:
        return self.make(user, key=secrets.token_bytes(64))

    def expired(self, user: str) -> str:
        return self.make(user, issued=time.time() - 7200, lifetime=600)


def every_route_app(directory: Path) -> FastAPI:
    """The application of a process running every daemon; its routers are built over
    stand-ins, as they read their daemon only when a request comes."""
    stand_in = SimpleNamespace(name="collector")
    master = Master(directory)
    daemons = dict.fromkeys(DAEMONS, stand_in)
    return pool_application(daemons, master._router(), PoolMetrics.router(stand_in), stand_in)


def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (its own CA) and its key."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "ec"),
            *("-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1"),
            *("-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"),
            *("-addext", "subjectAltName=IP:127.0.0.1"),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key
