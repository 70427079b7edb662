"""What a client presents (security/credentials.py): a command's token from its token
directories, a daemon's own token made with the pool's key or given to it."""

from __future__ import annotations

import time
from pathlib import Path

from fairpool.config import parse_config_text
from fairpool.security.credentials import DaemonToken, find_token, read_tokens
from fairpool.security.levels import Level
from fairpool.security.settings import Security
from fairpool.security.tokens import create_token, key_file, make_key, unverified, verify_token

NOW = time.time()


def made(issuer: str, user: str = "alice") -> str:
    return create_token(bytes(64), f"{user}@{issuer}", issuer, now=NOW)


def test_a_command_presents_the_first_token_of_its_trust_domain(tmp_path: Path) -> None:
    mine, system = tmp_path / "mine", tmp_path / "system"
    mine.mkdir()
    system.mkdir()
    (mine / "a-other").write_text(f"# for another pool\n\n{made('other.org')}\n")
    (mine / "b-ours").write_text(f"{made('pool.org')}\n{made('pool.org', 'bob')}\n")
    (system / "daemon").write_text(made("pool.org", "condor") + "\n")
    assert [path.name for path, _ in read_tokens(mine)] == ["a-other", "b-ours", "b-ours"]
    text = f"SEC_TOKEN_DIRECTORY = {mine}\nSEC_TOKEN_SYSTEM_DIRECTORY = {system}\n"
    both = ("SEC_TOKEN_DIRECTORY", "SEC_TOKEN_SYSTEM_DIRECTORY")
    config = parse_config_text(text + "TRUST_DOMAIN = pool.org\n", env={})
    assert unverified(find_token(config, both))[1]["sub"] == "alice@pool.org"
    elsewhere = parse_config_text(text + "TRUST_DOMAIN = unknown.org\n", env={})
    assert unverified(find_token(elsewhere, both))[1]["sub"] == "alice@other.org"  # the first
    for path in mine.iterdir():
        path.unlink()
    assert unverified(find_token(config, both))[1]["sub"] == "condor@pool.org"
    assert find_token(config, ("SEC_TOKEN_DIRECTORY",)) is None
    assert read_tokens(tmp_path / "none") == []


def test_a_daemon_with_the_key_signs_its_own_token_and_remakes_it_when_it_must(
    tmp_path: Path,
) -> None:
    config = parse_config_text(f"LOCAL_DIR = {tmp_path}\nTRUST_DOMAIN = pool.org\n", env={})
    make_key(key_file(config))
    current = Security(config)
    source = DaemonToken(lambda: current)
    first = source()
    claims = verify_token(first, current.key, "pool.org", time.time())
    assert (claims.identity, claims.scope) == ("condor@pool.org", frozenset(Level))
    assert 3590 < claims.expires - time.time() <= 3600
    assert source() == first  # kept while it is young
    current = Security(config)  # a reconfig
    assert source() != first
    second = source()
    key_file(config).unlink()
    make_key(key_file(config))  # a new key: the old token would be refused
    assert source() != second
    verify_token(source(), current.key, "pool.org", time.time())


def test_a_daemon_without_the_key_presents_the_token_given_to_it(tmp_path: Path) -> None:
    config = parse_config_text(f"LOCAL_DIR = {tmp_path}\nTRUST_DOMAIN = pool.org\n", env={})
    source = DaemonToken(lambda: Security(config))
    assert source() is None  # nothing given: it goes as its local user
    (tmp_path / "tokens.d").mkdir()
    given = made("pool.org", "condor")
    (tmp_path / "tokens.d" / "condor").write_text(given + "\n")
    assert source() == given
