"""One process's security: how callers authenticate and what each may do, from the
configuration, decided in this one place for the HTTP API and the CEDAR listener alike.

Authentication follows HTCondor's knobs. ``SEC_DEFAULT_AUTHENTICATION_METHODS`` lists
the methods a daemon accepts; fairpool has two of HTCondor's: ``IDTOKENS`` (a bearer
token, tokens.py) and ``FS`` (a local user, proved by the kernel's socket table or, on
the CEDAR port, by the FS exchange). ``SEC_DEFAULT_AUTHENTICATION`` says whether a
caller must authenticate: ``REQUIRED`` refuses one no method proved (HTTP 401),
``PREFERRED`` and ``OPTIONAL`` let it in as ``unauthenticated@unmapped`` for the
ALLOW lists to judge, ``NEVER`` authenticates nobody. A local user is
``user@UID_DOMAIN``; a daemon holding the pool's signing key is ``condor@TRUST_DOMAIN``.

A presented token that is not good (a wrong signature, expired, another trust domain)
is refused (401) unless the next method, FS, proves the caller: it is never taken for an
anonymous call.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from ..config.knob_values import KnobSource, knob_error
from ..daemons.errors import Forbidden, Unauthenticated
from ..daemons.identity import Caller, caller_at, user_of
from .authorization import Policy, address_of
from .levels import Level
from .principal import Principal
from .tokens import LEEWAY, POOL, Claims, TokenError, key_file, read_key, verify_token

__all__ = ["Security"]

# HTCondor's method names; fairpool proves identities with FS and IDTOKENS only
_METHODS = {
    "FS",
    "IDTOKENS",
    "TOKEN",
    "TOKENS",
    "SSL",
    "KERBEROS",
    "PASSWORD",
    "FS_REMOTE",
    "NTSSPI",
    "MUNGE",
    "CLAIMTOBE",
    "SCITOKENS",
    "ANONYMOUS",
}
_MODES = ("REQUIRED", "PREFERRED", "OPTIONAL", "NEVER")
_CACHED_TOKENS = 4096


class Security:
    """The authentication settings, the ALLOW/DENY policy and the signing keys of one
    process's configuration."""

    def __init__(self, config: KnobSource, clock: Callable[[], float] = time.time) -> None:
        self.config = config
        self.clock = clock
        self.uid_domain = (config.get("UID_DOMAIN") or "").strip()
        self.trust_domain = (config.get("TRUST_DOMAIN") or "").strip() or self.uid_domain
        self.mode = _mode(config)
        self.methods = _methods(config) if self.mode != "NEVER" else frozenset()
        self.policy = Policy.of(config)
        self._keys: dict[str, tuple[tuple[int, int, int], bytes]] = {}
        self._key_files: dict[str, Path] = {}
        self._verified: dict[str, tuple[Claims, bytes]] = {}

    @property
    def daemon_identity(self) -> str:
        """Who the pool's own daemons are: HTCondor's ``condor@$(TRUST_DOMAIN)``."""
        return f"condor@{self.trust_domain}"

    # -- authentication -----------------------------------------------------------------
    def authenticate(self, token: str | None, host: str | None, port: int | None) -> Principal:
        """The caller, by the methods in turn as HTCondor tries them: the token it
        presents, then FS. A token that is not good is refused (Unauthenticated) unless
        FS proves the caller (a host without the token's key, a pool of its own)."""
        if token is None:
            return self.from_connection(host, port)
        try:
            return self.from_token(token, host)
        except Unauthenticated:
            local = self.from_connection(host, port)
            if local.authenticated:
                return local
            raise

    def from_token(self, token: str, host: str | None) -> Principal:
        """The caller a bearer token proves; Unauthenticated saying what is wrong."""
        if "IDTOKENS" not in self.methods:
            raise Unauthenticated(
                "tokens are not accepted here (IDTOKENS is not in "
                "SEC_DEFAULT_AUTHENTICATION_METHODS)"
            )
        try:
            claims = self._claims(token)
        except TokenError as err:
            raise Unauthenticated(str(err)) from None
        return Principal(claims.identity, "IDTOKENS", host, claims.scope)

    def from_connection(self, host: str | None, port: int | None) -> Principal:
        """The caller at the other end of a connection: the local user owning its socket
        (FS), else no one proved."""
        if "FS" not in self.methods:
            return Principal.nobody(host)
        caller = caller_at(host, port)
        return self._local(caller, host) if caller.uid is not None else Principal.nobody(host)

    def from_uid(self, uid: int, host: str | None) -> Principal:
        """The local user the CEDAR FS exchange proved (no one, when FS is not allowed)."""
        return self._local(user_of(uid), host) if "FS" in self.methods else Principal.nobody(host)

    def _local(self, caller: Caller, host: str | None) -> Principal:
        return Principal(f"{caller.name}@{self.uid_domain}", "FS", host, uid=caller.uid)

    def _claims(self, token: str) -> Claims:
        known = self._verified.get(token)
        if known is not None:
            claims, key = known
            if self.key(claims.key) != key:
                raise TokenError(f"the signing key {claims.key!r} is gone or was replaced")
            if claims.expires is not None and claims.expires + LEEWAY < self.clock():
                raise TokenError("the token has expired")
            return claims
        used: dict[str, bytes | None] = {}

        def key_of(name: str) -> bytes | None:
            used[name] = self.key(name)
            return used[name]

        claims = verify_token(token, key_of, self.trust_domain, self.clock())
        if len(self._verified) >= _CACHED_TOKENS:
            self._verified.clear()
        self._verified[token] = (claims, used[claims.key] or b"")
        return claims

    def key(self, name: str = POOL) -> bytes | None:
        """The signing key ``name`` as its file holds it now (None: no such file)."""
        try:
            path = self._key_files.get(name) or self._key_files.setdefault(
                name, key_file(self.config, name)
            )
            info = os.stat(path)
        except (TokenError, OSError):
            return None
        stamp = (info.st_ino, info.st_mtime_ns, info.st_size)
        known = self._keys.get(name)
        if known is None or known[0] != stamp:
            known = self._keys[name] = (stamp, read_key(path))  # TokenError: too short
        return known[1]

    # -- authorization ------------------------------------------------------------------
    def open_to_all(self, level: Level) -> bool:
        """Whether ``level`` is everyone's, so a caller need not even be identified."""
        return self.mode != "REQUIRED" and self.policy.open_to_all(level)

    def allows(self, principal: Principal, level: Level) -> bool:
        if self.mode == "REQUIRED" and not principal.authenticated:
            return False
        host = address_of(principal.host)
        return self.policy.allows(principal.identity, host, level, principal.scope)

    def check(self, principal: Principal, level: Level, what: str) -> None:
        """Unauthenticated (401) or Forbidden (403) unless ``principal`` holds ``level``."""
        if self.mode == "REQUIRED" and not principal.authenticated:
            raise Unauthenticated(
                f"{what} needs an authenticated caller (SEC_DEFAULT_AUTHENTICATION = "
                "REQUIRED): present a token (fairpool token create)"
            )
        if not self.allows(principal, level):
            source = "its token's scope" if _outside(principal, level) else f"ALLOW_{level.value}"
            raise Forbidden(
                f"PERMISSION DENIED to {principal.identity} from {principal.host or 'nowhere'}"
                f" for {what}: it needs {level.value} ({source})"
            )

    def caller(self, principal: Principal) -> Caller:
        """The caller as the daemons' cores take one."""
        administrator = self.allows(principal, Level.ADMINISTRATOR)
        return Caller(principal.user, principal.uid, administrator)


def _outside(principal: Principal, level: Level) -> bool:
    scope = principal.scope
    return scope is not None and not any(level in granted.implied for granted in scope)


def _mode(config: KnobSource) -> str:
    name = "SEC_DEFAULT_AUTHENTICATION"
    mode = (config.get(name) or "PREFERRED").strip().upper()
    if mode not in _MODES:
        raise knob_error(config, name, " ".join(_MODES))
    return mode


def _methods(config: KnobSource) -> frozenset[str]:
    name = "SEC_DEFAULT_AUTHENTICATION_METHODS"
    words = [w.upper() for w in (config.get(name) or "").replace(",", " ").split()]
    unknown = [w for w in words if w not in _METHODS]
    if unknown:
        raise knob_error(config, name, f"HTCondor's method names (not {unknown[0]})")
    return frozenset("IDTOKENS" if w in ("TOKEN", "TOKENS") else w for w in words)
