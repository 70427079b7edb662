"""``fairpool token create|list``: condor_token_create and condor_token_list.

``create`` signs a token for an identity with the pool's signing key (the key named
POOL, SEC_TOKEN_POOL_SIGNING_KEY_FILE, made here the first time as the collector makes
it; ``--key NAME`` another one of SEC_PASSWORD_DIRECTORY), restricted to levels
(``--authz``) and a lifetime when asked, and prints it, or writes it to
SEC_TOKEN_DIRECTORY/NAME (``--token NAME``), where the commands find it. It reads the
pool's configuration as ``fairpool pool start`` does (``--dir``, ``--config``). ``list``
prints each token the commands could present, as condor_token_list does (``Header:
... Payload: ... File: ...``), without checking its signature.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import click

from ..errors import FairpoolError
from .errors import fail

__all__ = ["token"]

_OPTIONS = {"help_option_names": ["-h", "--help", "-help"]}


@click.group(context_settings=_OPTIONS)
def token() -> None:
    """Create and list authentication tokens (condor_token_create, condor_token_list)."""


@token.command(context_settings=_OPTIONS)
@click.option(
    "--identity",
    "-identity",
    required=True,
    metavar="USER[@DOMAIN]",
    help="Who the token proves (the domain is UID_DOMAIN's when left out).",
)
@click.option(
    "--authz",
    "-authz",
    multiple=True,
    metavar="LEVEL[,LEVEL]",
    help="Only these levels (READ, WRITE, ADMINISTRATOR, DAEMON, NEGOTIATOR); repeatable.",
)
@click.option(
    "--lifetime", "-lifetime", type=int, default=None, metavar="SECONDS", help="Valid this long."
)
@click.option("--key", "-key", default="POOL", metavar="NAME", help="The signing key's name.")
@click.option(
    "--token",
    "-token",
    "filename",
    default=None,
    metavar="NAME",
    help="Write it to SEC_TOKEN_DIRECTORY/NAME instead of printing it.",
)
@click.option("--dir", "directory", default=None, metavar="DIR", help="The pool directory.")
@click.option("--config", default=None, metavar="FILE", help="HTCondor configuration file.")
def create(
    identity: str,
    authz: tuple[str, ...],
    lifetime: int | None,
    key: str,
    filename: str | None,
    directory: str | None,
    config: str | None,
) -> None:
    """Sign a token for an identity with the pool's signing key."""
    from ..daemons.master import pool_dir, read_config
    from ..security.levels import parse_levels
    from ..security.tokens import POOL, create_token, key_file, make_key, read_key

    if lifetime is not None and lifetime <= 0:
        fail(f"--lifetime {lifetime}: expected a number of seconds above 0")
    words = [word for item in authz for word in item.split(",") if word.strip()]
    try:
        scope = parse_levels(words, "--authz") if words else None
        settings = read_config(pool_dir(directory), config)
        path = key_file(settings, key)
        if key == POOL and make_key(path):
            click.echo(f"made the pool signing key {path}", err=True)
        if "@" not in identity:
            identity = f"{identity}@{(settings.get('UID_DOMAIN') or '').strip()}"
        issuer = (settings.get("TRUST_DOMAIN") or "").strip()
        made = create_token(
            read_key(path),
            identity,
            issuer,
            now=time.time(),
            key_name=key,
            scope=scope,
            lifetime=lifetime,
        )
        if filename is None:
            click.echo(made)
        else:
            _write(Path(settings.get("SEC_TOKEN_DIRECTORY") or "."), filename, made)
    except (FairpoolError, ValueError, OSError) as err:
        fail(str(err).splitlines()[0])


def _write(directory: Path, name: str, text: str) -> None:
    """The token in its own file of the token directory, readable by its owner only."""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"--token {name!r}: expected a file name (no directory)")
    folder = directory.expanduser()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text + "\n")


@token.command(name="list", context_settings=_OPTIONS)
def list_tokens() -> None:
    """Print the tokens the commands may present (SEC_TOKEN_DIRECTORY, then
    SEC_TOKEN_SYSTEM_DIRECTORY)."""
    from ..security.credentials import client_config, read_tokens
    from ..security.tokens import TokenError, unverified

    try:
        config = client_config()
    except FairpoolError as err:
        fail(str(err).splitlines()[0])
    for knob in ("SEC_TOKEN_DIRECTORY", "SEC_TOKEN_SYSTEM_DIRECTORY"):
        folder = config.get(knob)
        for path, text in read_tokens(Path(folder)) if folder else []:
            try:
                header, claims = unverified(text)
            except TokenError as err:
                click.echo(f"{path}: {err}", err=True)
                continue
            click.echo(f"Header: {_compact(header)} Payload: {_compact(claims)} File: {path}")


def _compact(obj: dict) -> str:
    return json.dumps(obj, separators=(",", ":"), sort_keys=True)
