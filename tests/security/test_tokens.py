"""Tokens as HTCondor's IDTOKENS make them (HS256 JWTs with iss, sub, iat, jti, and exp
and scope when asked), and what verification refuses, each for its own reason."""

from __future__ import annotations

import stat
import string
from pathlib import Path

import jwt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairpool.config import parse_config_text
from fairpool.security.levels import Level
from fairpool.security.tokens import (
    TokenError,
    create_token,
    key_file,
    make_key,
    read_key,
    unverified,
    verify_token,
)

KEY = bytes(range(64))
OTHER = bytes(range(1, 65))
NOW = 1_700_000_000.0


def keys(**named: bytes):
    return {"POOL": KEY, **named}.get


def test_a_token_reads_as_htcondor_writes_one() -> None:
    token = create_token(KEY, "alice@example.org", "pool.example.org", now=NOW)
    header, claims = unverified(token)
    assert header == {"alg": "HS256", "kid": "POOL"}  # condor_token_list's Header
    assert set(claims) == {"iat", "iss", "jti", "sub"}
    assert (claims["iss"], claims["sub"], claims["iat"]) == (
        "pool.example.org",
        "alice@example.org",
        int(NOW),
    )
    assert len(claims["jti"]) == 32 and create_token(KEY, "a@b", "p", now=NOW) != token


def test_scope_and_lifetime_are_claims() -> None:
    scope = frozenset({Level.WRITE, Level.READ})
    token = create_token(KEY, "alice@x", "x", now=NOW, scope=scope, lifetime=600)
    claims = unverified(token)[1]
    assert claims["scope"] == "condor:/READ condor:/WRITE"
    assert claims["exp"] == int(NOW) + 600
    verified = verify_token(token, keys(), "x", NOW + 10)
    assert (verified.identity, verified.scope, verified.expires) == ("alice@x", scope, NOW + 600)


@pytest.mark.parametrize(
    ("token", "now", "reason"),
    [
        (create_token(OTHER, "alice@x", "x", now=NOW), NOW, "signature does not verify"),
        (create_token(KEY, "alice@x", "x", now=NOW, lifetime=60), NOW + 3600, "has expired"),
        (create_token(KEY, "alice@x", "elsewhere", now=NOW), NOW, "issued by 'elsewhere'"),
        (create_token(KEY, "alice@x", "x", now=NOW, key_name="GONE"), NOW, "key 'GONE'"),
        (create_token(KEY, "alice", "x", now=NOW), NOW, "not an identity"),
        (create_token(KEY, "alice@x", "x", now=NOW + 3600), NOW, "iat is not a time in the past"),
        ("not.a.token", NOW, "not a token"),
        (jwt.encode({"sub": "a@x", "iss": "x"}, KEY, algorithm="HS256"), NOW, "iat"),
        (jwt.encode({"sub": "a@x", "iss": "x", "iat": NOW}, KEY, "HS512"), NOW, "alg value"),
        (jwt.encode({"sub": "a@x", "iss": "x", "iat": NOW}, None, "none"), NOW, "alg value"),
    ],
)
def test_what_verification_refuses(token: str, now: float, reason: str) -> None:
    with pytest.raises(TokenError, match=reason):
        verify_token(token, keys(), "x", now)


def test_a_token_is_verified_with_the_key_it_names() -> None:
    token = create_token(OTHER, "alice@x", "x", now=NOW, key_name="site_key")
    assert verify_token(token, keys(site_key=OTHER), "x", NOW).key == "site_key"
    with pytest.raises(TokenError):
        verify_token(token, keys(site_key=KEY), "x", NOW)


def test_scopes_name_levels_and_nothing_else() -> None:
    raw = {"sub": "a@x", "iss": "x", "iat": int(NOW), "scope": "condor:/ADVERTISE_STARTD other"}
    token = jwt.encode(raw, KEY, algorithm="HS256")
    assert verify_token(token, keys(), "x", NOW).scope == frozenset()  # allows nothing here


@given(
    identity=st.from_regex(r"[a-z][a-z0-9_.-]{0,15}@[a-z0-9.-]{1,20}", fullmatch=True),
    scope=st.none() | st.frozensets(st.sampled_from(list(Level))),
    lifetime=st.none() | st.integers(1, 10**6),
    issuer=st.text(string.ascii_letters + string.digits + ".-", min_size=1, max_size=30),
)
def test_whatever_is_made_verifies_as_made(identity, scope, lifetime, issuer) -> None:
    token = create_token(KEY, identity, issuer, now=NOW, scope=scope, lifetime=lifetime)
    claims = verify_token(token, keys(), issuer, NOW)
    assert (claims.identity, claims.scope, claims.issuer) == (identity, scope, issuer)
    assert claims.expires == (None if lifetime is None else int(NOW) + lifetime)


def test_the_signing_key_is_made_once_and_kept_private(tmp_path: Path) -> None:
    config = parse_config_text(f"LOCAL_DIR = {tmp_path}\n", env={})
    path = key_file(config)
    assert path == tmp_path / "passwords.d" / "POOL"
    assert make_key(path) and not make_key(path)
    first = read_key(path)
    assert make_key(path) is False and read_key(path) == first and len(first) == 64
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert key_file(config, "site") == tmp_path / "passwords.d" / "site"


def test_keys_that_cannot_be_used(tmp_path: Path) -> None:
    config = parse_config_text(f"LOCAL_DIR = {tmp_path}\n", env={})
    with pytest.raises(TokenError, match="cannot read the signing key"):
        read_key(key_file(config))
    (tmp_path / "short").write_bytes(b"secret")
    with pytest.raises(TokenError, match="too short"):
        read_key(tmp_path / "short")
    with pytest.raises(TokenError, match="not a signing key name"):
        key_file(config, "../POOL")
