"""``fairpool token create`` and ``fairpool token list``: tokens as condor_token_create
prints them and condor_token_list shows them, and bad input as one line and exit 1."""

from __future__ import annotations

import stat
import time
from pathlib import Path

import pytest

from fairpool.config import parse_config_text
from fairpool.security.levels import Level
from fairpool.security.tokens import key_file, read_key, verify_token
from livepool import fairpool


def verified(token: str, pool: Path):
    """The claims of a token signed with the key of the pool directory ``pool``."""
    key = read_key(key_file(parse_config_text(f"LOCAL_DIR = {pool}\n", env={})))
    return verify_token(token.strip(), {"POOL": key}.get, "localdomain", time.time())


def test_create_signs_with_the_pools_key_made_the_first_time(tmp_path: Path) -> None:
    pool = tmp_path / "pool"
    made = fairpool(
        *("token", "create", "--dir", str(pool), "-identity", "alice"),
        *("-authz", "READ", "--authz", "write", "--lifetime", "600"),
    )
    assert made.stderr == f"made the pool signing key {pool}/passwords.d/POOL\n"
    claims = verified(made.stdout, pool)
    assert claims.identity == "alice@localdomain"  # UID_DOMAIN's
    assert claims.scope == frozenset({Level.READ, Level.WRITE})
    assert 590 < claims.expires - time.time() <= 600
    again = fairpool("token", "create", "--dir", str(pool), "--identity", "bob@else.where")
    assert again.stderr == ""  # the same key, kept
    bob = verified(again.stdout, pool)
    assert (bob.identity, bob.scope, bob.expires) == ("bob@else.where", None, None)


def test_a_token_written_to_the_token_directory_is_listed(tmp_path: Path) -> None:
    folder = tmp_path / "tokens.d"
    env = {"_CONDOR_SEC_TOKEN_DIRECTORY": str(folder), "_CONDOR_SEC_TOKEN_SYSTEM_DIRECTORY": ""}
    args = ("token", "create", "--dir", str(tmp_path / "pool"), "--identity", "carol")
    assert fairpool(*args, "--token", "carol", env=env).stdout == ""
    assert stat.S_IMODE((folder / "carol").stat().st_mode) == 0o600
    listed = fairpool("token", "list", env=env).stdout.splitlines()
    assert len(listed) == 1
    assert listed[0].startswith('Header: {"alg":"HS256","kid":"POOL"} Payload: {"iat":')
    assert '"sub":"carol@localdomain"' in listed[0]
    assert listed[0].endswith(f"File: {folder / 'carol'}")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--authz", "ADVERTISE_STARTD"), "'ADVERTISE_STARTD' is not an authorization level"),
        (("--lifetime", "0"), "--lifetime 0: expected a number of seconds above 0"),
        (("--key", "site"), "cannot read the signing key"),
        (("--key", "../POOL"), "not a signing key name"),
        (("--token", "../elsewhere"), "expected a file name"),
    ],
)
def test_bad_input_is_one_line(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    refused = fairpool(
        "token", "create", "--dir", str(tmp_path), "--identity", "x", *args, check=False
    )
    assert refused.returncode == 1 and refused.stdout == ""
    (line,) = [ln for ln in refused.stderr.splitlines() if not ln.startswith("made the pool")]
    assert line.startswith("fairpool: error: ") and message in line
