"""Signed tokens in the manner of HTCondor's IDTOKENS, and the keys that sign them.

A token is a JWT signed with HS256 by a named signing key; its header names the key
(``kid``, ``POOL`` unless another was chosen) and its claims are HTCondor's: ``iss``
the pool's TRUST_DOMAIN, ``sub`` the identity (``alice@example.org``), ``iat`` when it
was made, ``jti`` a unique id, and optionally ``exp`` (the end of its lifetime) and
``scope`` (``condor:/READ condor:/WRITE``: the only levels it may be used for).

The key named POOL is the file SEC_TOKEN_POOL_SIGNING_KEY_FILE, any other the file of
that name in SEC_PASSWORD_DIRECTORY: 64 random bytes, made once with mode 0600.
Removing a key's file makes every token it signed invalid. fairpool signs with the
file's bytes as they are, where HTCondor derives the signing key from them: the two
do not accept each other's tokens (docs/compat.md).
"""

from __future__ import annotations

import os
import re
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt

from ..config.knob_values import KnobSource
from .levels import Level

__all__ = [
    "POOL",
    "Claims",
    "TokenError",
    "create_token",
    "key_file",
    "make_key",
    "read_key",
    "unverified",
    "verify_token",
]

POOL = "POOL"
LEEWAY = 60.0  # seconds of clock difference between hosts tolerated in iat and exp
_KEY_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_SCOPE = "condor:/"


class TokenError(ValueError):
    """A token that cannot be used, or a key that cannot be read; says why."""


@dataclass(frozen=True)
class Claims:
    """What a verified token says."""

    identity: str
    issuer: str
    key: str
    scope: frozenset[Level] | None  # None: no restriction
    issued: float
    expires: float | None
    jti: str


def key_file(config: KnobSource, name: str = POOL) -> Path:
    """The file of the signing key ``name``."""
    if not _KEY_NAME.fullmatch(name):
        raise TokenError(f"{name!r} is not a signing key name (letters, digits, _ . -)")
    if name == POOL:
        return Path(config.get("SEC_TOKEN_POOL_SIGNING_KEY_FILE") or "POOL").expanduser()
    return Path(config.get("SEC_PASSWORD_DIRECTORY") or ".").expanduser() / name


def make_key(path: Path) -> bool:
    """Make the key file (64 random bytes, mode 0600, in a directory of mode 0700)
    unless it exists; whether it was made."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as out:
        out.write(secrets.token_bytes(64))
    return True


def read_key(path: Path) -> bytes:
    try:
        key = path.read_bytes()
    except OSError as err:
        raise TokenError(f"cannot read the signing key {path}: {err.strerror}") from None
    if len(key) < 32:
        raise TokenError(f"the signing key {path} is too short ({len(key)} bytes, 32 or more)")
    return key


def create_token(
    key: bytes,
    identity: str,
    issuer: str,
    *,
    now: float,
    key_name: str = POOL,
    scope: frozenset[Level] | None = None,
    lifetime: float | None = None,
) -> str:
    """A token for ``identity`` signed with ``key`` (named ``key_name``)."""
    claims: dict[str, Any] = {
        "iat": int(now),
        "iss": issuer,
        "jti": uuid.uuid4().hex,
        "sub": identity,
    }
    if lifetime is not None:
        claims["exp"] = int(now + lifetime)
    if scope is not None:
        claims["scope"] = " ".join(f"{_SCOPE}{level.value}" for level in sorted(scope))
    return jwt.encode(claims, key, algorithm="HS256", headers={"kid": key_name, "typ": None})


def unverified(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A token's header and claims, unchecked (``fairpool token list``)."""
    try:
        return jwt.get_unverified_header(token), jwt.decode(
            token, options={"verify_signature": False}
        )
    except jwt.PyJWTError as err:
        raise TokenError(f"not a token: {err}") from None


def verify_token(
    token: str, key_of: Callable[[str], bytes | None], issuer: str, now: float
) -> Claims:
    """The claims of a token signed by the key it names (``key_of`` gives a key by name,
    None for one there is not) for this trust domain, within its lifetime; TokenError
    saying what is wrong with it."""
    try:
        name = jwt.get_unverified_header(token).get("kid", POOL)
    except jwt.PyJWTError as err:
        raise TokenError(f"not a token: {err}") from None
    key = key_of(str(name))
    if key is None:
        raise TokenError(f"the token was signed with key {name!r}, which this pool has not")
    try:
        claims = jwt.decode(
            token,
            key,
            algorithms=["HS256"],
            # the times are checked below, against the caller's clock
            options={"require": ["iat", "iss", "sub"], "verify_iat": False, "verify_exp": False},
        )
    except jwt.InvalidSignatureError:
        raise TokenError(f"the token's signature does not verify with key {name!r}") from None
    except jwt.PyJWTError as err:
        raise TokenError(f"the token cannot be used: {err}") from None
    return _claims(claims, str(name), issuer, now)


def _claims(claims: dict[str, Any], name: str, issuer: str, now: float) -> Claims:
    if claims["iss"] != issuer:
        raise TokenError(
            f"the token was issued by {claims['iss']!r}, not this pool (TRUST_DOMAIN = {issuer})"
        )
    issued, expires = claims["iat"], claims.get("exp")
    if not isinstance(issued, int | float) or issued > now + LEEWAY:
        raise TokenError("the token's iat is not a time in the past")
    if expires is not None and (not isinstance(expires, int | float) or expires + LEEWAY < now):
        raise TokenError("the token has expired")
    identity = claims["sub"]
    if not isinstance(identity, str) or "@" not in identity:
        raise TokenError("the token's sub is not an identity (user@domain)")
    jti = str(claims.get("jti", ""))
    return Claims(identity, issuer, name, _scope(claims.get("scope")), issued, expires, jti)


def _scope(text: object) -> frozenset[Level] | None:
    """The levels a ``scope`` claim allows (HTCondor's ``condor:/LEVEL`` words; other
    words, and levels fairpool does not have, allow nothing)."""
    if text is None:
        return None
    words = str(text).split()
    known = {level.value: level for level in Level}
    return frozenset(
        known[w[len(_SCOPE) :]] for w in words if w.startswith(_SCOPE) and w[len(_SCOPE) :] in known
    )
