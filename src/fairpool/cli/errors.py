"""How commands report failure: one clear line on standard error and a non-zero exit."""

from __future__ import annotations

from typing import NoReturn

import click

__all__ = ["fail"]


def fail(message: str, code: int = 1) -> NoReturn:
    """Print ``fairpool: error: message`` to standard error and exit with ``code``."""
    click.echo(f"fairpool: error: {message}", err=True)
    raise SystemExit(code)
