"""``fairpool config_val``: condor_config_val over fairpool's reading of a configuration.

``fairpool config_val NAME...`` prints each knob's expanded value (``Not defined: NAME``
and exit 1 for one that is empty, or neither set nor in the parameter table); ``-verbose`` adds the
file and line that set it and its raw text; ``-dump [PATTERN]`` prints every knob the
configuration sets (names containing PATTERN, case-insensitive), ``-dump -params`` the
parameter table with defaults; ``-evaluate`` prints each value evaluated as a ClassAd
expression. The configuration is the files given with ``--config FILE`` (repeatable, read
in order) or, without it, CONDOR_CONFIG's, as condor_config_val finds it. ``--lenient``
expands undefined macros to nothing, as HTCondor does, instead of failing.
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from ..classad import ClassAdSyntaxError, Expr
from ..classad.unparse import unparse_value
from ..config import PARAMS, Config, load_config, parse_config_text
from ..errors import ConfigError
from .errors import fail

__all__ = ["config_val"]


def _load(files: Sequence[str], lenient: bool, table_only: bool) -> Config:
    try:
        return load_config(list(files) or None, strict=not lenient)
    except ConfigError as err:
        if table_only and not files and err.source == "<environment>":
            return parse_config_text("", "<none>")  # the table needs no configuration
        fail(str(err))


def _evaluated(text: str) -> str:
    try:
        return unparse_value(Expr(text).eval(now=0))
    except ClassAdSyntaxError:
        return text


def _print_verbose(config: Config, name: str, value: str) -> None:
    source, line = config.where(name)
    click.echo(f"{name} = {value}")
    if source == "<default>":
        click.echo(" # at: <Default>")
    else:
        click.echo(f" # at: {source}" + (f", line {line}" if line else ""))
    raw = config.raw(name)
    if raw != value:
        click.echo(f" # raw: {name} = {raw}")


def _dump(config: Config, pattern: str | None, params: bool) -> None:
    names = [p.name for p in PARAMS.values()] if params else config.names()
    click.echo(f"# Configuration from: {', '.join(config.files) or '<none>'}")
    for name in sorted(names, key=str.upper):
        if pattern is None or pattern.upper() in name.upper():
            click.echo(f"{name} = {config.get(name) or ''}")


@click.command(name="config_val", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("names", nargs=-1)
@click.option("--config", "files", multiple=True, metavar="FILE", help="read FILE (repeatable)")
@click.option("-verbose", "--verbose", "-v", is_flag=True, help="name the file and line")
@click.option("-dump", "--dump", is_flag=True, help="print every knob set (NAMES: patterns)")
@click.option("-params", "--params", is_flag=True, help="with -dump: the parameter table")
@click.option("-evaluate", "--evaluate", is_flag=True, help="print values evaluated")
@click.option("--lenient", is_flag=True, help="undefined macros expand to nothing")
def config_val(
    names: tuple[str, ...],
    files: tuple[str, ...],
    verbose: bool,
    dump: bool,
    params: bool,
    evaluate: bool,
    lenient: bool,
) -> None:
    """Print configuration knobs as condor_config_val does."""
    config = _load(files, lenient, dump and params)
    try:
        if dump:
            for pattern in names or (None,):
                _dump(config, pattern, params)
            return
        if not names:
            fail("expected a knob name (or -dump)")
        missing = False
        for name in names:
            value = config.get(name)
            if not value:  # set to nothing reads as unset, as in HTCondor
                click.echo(f"Not defined: {name}", err=True)
                missing = True
                continue
            value = _evaluated(value) if evaluate else value
            if verbose:
                _print_verbose(config, name, value)
            else:
                click.echo(value)
        if missing:
            raise SystemExit(1)
    except ConfigError as err:
        fail(str(err))
