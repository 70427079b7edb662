"""What a client presents: the bearer token it sends, and the certificates it trusts.

A process has one credential, as an HTCondor tool or daemon has (daemons/client.py asks
for it on every request):

* a command uses the first token in the files of ``SEC_TOKEN_DIRECTORY``
  (``~/.condor/tokens.d``), else of ``SEC_TOKEN_SYSTEM_DIRECTORY``, in the order of their
  names, one token a line (``#`` starts a comment), preferring one issued by its
  configuration's TRUST_DOMAIN: the configuration of ``CONDOR_CONFIG``, with
  ``_CONDOR_<KNOB>`` variables over it. No token: the command goes as the local user
  (FS).
* a daemon holding the pool's signing key makes its own short-lived token for
  ``condor@$(TRUST_DOMAIN)``, made anew at half its life; one without the key (an
  execute host) uses a token of ``SEC_TOKEN_SYSTEM_DIRECTORY`` (``fairpool token create
  --identity condor@DOMAIN --token NAME`` on the central manager, copied there).

Servers given a certificate speak HTTPS; a client trusts the certificates of
``AUTH_SSL_CLIENT_CAFILE``, else the system's.
"""

from __future__ import annotations

import os
import ssl
import time
from collections.abc import Callable
from pathlib import Path

from ..config import Config, load_config
from ..config.knob_values import KnobSource, knob_error
from .levels import Level
from .settings import Security
from .tokens import POOL, TokenError, create_token, unverified

__all__ = [
    "DAEMON_TOKEN_LIFETIME",
    "DaemonToken",
    "bearer",
    "client_config",
    "find_token",
    "read_tokens",
    "tls_context",
    "trusted",
    "use",
]

DAEMON_TOKEN_LIFETIME = 3600.0  # seconds a daemon's own token lasts
_REMAKE = DAEMON_TOKEN_LIFETIME / 2  # made anew at half its life


def read_tokens(directory: Path) -> list[tuple[Path, str]]:
    """The tokens in a token directory's files (by file name), each with its file."""
    try:
        files = sorted(p for p in directory.expanduser().iterdir() if p.is_file())
    except OSError:
        return []
    found = []
    for path in files:
        try:
            lines = path.read_text().splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        found += [(path, ln.strip()) for ln in lines if ln.strip() and not ln.startswith("#")]
    return found


def find_token(config: KnobSource, directories: tuple[str, ...]) -> str | None:
    """The token a client presents: from the first of ``directories`` (knob names) that
    holds any, one issued by TRUST_DOMAIN if there is one, else the first."""
    domain = (config.get("TRUST_DOMAIN") or "").strip()
    for knob in directories:
        folder = config.get(knob)
        tokens = [token for _, token in read_tokens(Path(folder))] if folder else []
        if tokens:
            return next((t for t in tokens if _issuer(t) == domain), tokens[0])
    return None


def _issuer(token: str) -> object:
    try:
        return unverified(token)[1].get("iss")
    except TokenError:
        return None


class DaemonToken:
    """A daemon's token: made with the pool's signing key, else read from
    SEC_TOKEN_SYSTEM_DIRECTORY."""

    def __init__(self, security: Callable[[], Security]) -> None:
        self.security = security
        # when, the token, and the settings and key it was made for
        self.made: tuple[float, str, Security, bytes] | None = None
        self.given: tuple[Security, str | None] | None = None  # read for these settings

    def __call__(self) -> str | None:
        security = self.security()
        try:
            key = security.key(POOL)
        except TokenError:
            key = None
        if key is None:  # read once, and again after a reconfig
            if self.given is None or self.given[0] is not security:
                found = find_token(security.config, ("SEC_TOKEN_SYSTEM_DIRECTORY",))
                self.given = (security, found)
            return self.given[1]
        now = time.time()
        made = self.made
        if made is None or made[2:] != (security, key) or now - made[0] > _REMAKE:
            token = create_token(
                key,
                security.daemon_identity,
                security.trust_domain,
                now=now,
                scope=frozenset(Level),
                lifetime=DAEMON_TOKEN_LIFETIME,
            )
            made = self.made = (now, token, security, key)
        return made[1]


def client_config() -> Config:
    """A command's configuration: CONDOR_CONFIG's, else the defaults, with the
    ``_CONDOR_`` variables of the environment over either."""
    return load_config() if os.environ.get("CONDOR_CONFIG") else load_config([])


def tls_context(config: KnobSource) -> ssl.SSLContext:
    """The certificates a client trusts: AUTH_SSL_CLIENT_CAFILE's, else the system's."""
    cafile = (config.get("AUTH_SSL_CLIENT_CAFILE") or "").strip() or None
    try:
        return ssl.create_default_context(cafile=cafile)
    except (OSError, ssl.SSLError) as err:
        raise knob_error(config, "AUTH_SSL_CLIENT_CAFILE", f"a PEM file of CAs ({err})") from None


class _Credential:
    """The process's credential: its token source and the certificates it trusts."""

    def __init__(self) -> None:
        self.token: Callable[[], str | None] | None = None
        self.tls: ssl.SSLContext | None = None

    def ready(self) -> None:
        if self.token is None:  # a command: its configuration's, read once
            config = client_config()
            found = find_token(config, ("SEC_TOKEN_DIRECTORY", "SEC_TOKEN_SYSTEM_DIRECTORY"))
            self.token = lambda: found
            self.tls = tls_context(config)


_CREDENTIAL = _Credential()


def use(token: Callable[[], str | None], config: KnobSource) -> None:
    """Make ``token`` and the configuration's CAs this process's credential (a daemon's)."""
    _CREDENTIAL.token, _CREDENTIAL.tls = token, tls_context(config)


def bearer() -> str | None:
    """The token this process presents now (None: none)."""
    _CREDENTIAL.ready()
    assert _CREDENTIAL.token is not None
    return _CREDENTIAL.token()


def trusted() -> ssl.SSLContext:
    """The certificates this process trusts as a client."""
    _CREDENTIAL.ready()
    assert _CREDENTIAL.tls is not None
    return _CREDENTIAL.tls
