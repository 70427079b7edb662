"""``fairpool qedit``: condor_qedit.

``fairpool qedit {JOB... | CLUSTER... | USER | -constraint EXPR} ATTR VALUE [ATTR VALUE]...``
(or ``ATTR=VALUE``), as condor_qedit reads its arguments since 8.5.8: the first bare
arguments name the jobs (ids, or one user name), the rest are attributes and values. Each
attribute is one request to the schedd and prints condor_qedit's line, ``Set attribute
"ATTR" for N matching jobs.``; a refusal prints condor_qedit's ``Failed to set attribute``
line and ``Queue transaction failed.  No attributes were set.`` (attributes already set
stay set: the schedd takes one attribute per request). A bad attribute name or value is
refused before anything is sent (``Update aborted, ...`` and ``Transaction failed.  No
attributes were set.``), as is an edit that matches no job.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NoReturn

import click

from ..classad import Expr
from ..daemons.client import SyncApi
from ..daemons.errors import Forbidden, NotFound
from ..errors import ClassAdSyntaxError
from .remote import daemon, refusals
from .selection import Selection

__all__ = ["qedit"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*$")
_ABORTED = "Transaction failed.  No attributes were set."
_FAILED = "Queue transaction failed.  No attributes were set."


@click.command(context_settings={"help_option_names": ["-help", "--help", "-h"]})
@click.argument("arguments", nargs=-1)
@click.option(
    "-constraint",
    "-const",
    "constraint",
    default=None,
    metavar="EXPR",
    help="Jobs for which EXPR holds.",
)
@click.option("-name", "--name", "name", default=None, metavar="SCHEDD", help="The schedd.")
@click.option("--pool", "-pool", "pool", default=None, metavar="URL", help="The pool's address.")
def qedit(
    arguments: Sequence[str], constraint: str | None, name: str | None, pool: str | None
) -> None:
    """Set attributes of queued jobs (HTCondor's condor_qedit).

    ARGUMENTS: the jobs (job ids and cluster ids, or one user name; none with
    -constraint), then ATTR VALUE pairs (or ATTR=VALUE), VALUE a ClassAd expression.
    """
    names, edits = _split(arguments, constraint is not None)
    with refusals():
        selection = Selection.parse(names, [constraint] if constraint else [])
    if selection.empty:
        raise click.UsageError("name the jobs: cluster, cluster.proc, user or -constraint EXPR")
    if not edits:
        raise click.UsageError("no attributes specified")
    for attribute, value in edits:
        _check(attribute, value)
    with refusals():
        schedd = daemon("Scheduler", name, pool)
        for attribute, value in edits:
            _edit(schedd, selection, attribute, value)


def _split(arguments: Sequence[str], constrained: bool) -> tuple[list[str], list[tuple[str, str]]]:
    """The job names (the leading ids, or one user name) and the (attribute, value) pairs."""
    index = 0
    names: list[str] = []
    if not constrained and arguments:
        if arguments[0][:1].isdigit():
            while index < len(arguments) and arguments[index][:1].isdigit():
                index += 1
        else:
            index = 1
        names = list(arguments[:index])
    edits = []
    rest = list(arguments[index:])
    while rest:
        word = rest.pop(0)
        attribute, equals, value = word.partition("=")
        if not equals:
            if not rest:
                raise click.UsageError(f"expression required after attribute {word}")
            value = rest.pop(0)
        edits.append((attribute.strip(), value.strip()))
    return names, edits


def _check(attribute: str, value: str) -> None:
    if not _NAME.match(attribute):
        _abort(f'Update aborted, illegal attribute-name specified for attribute "{attribute}".')
    try:
        if not value:
            raise ClassAdSyntaxError("empty")
        Expr(value)
    except ClassAdSyntaxError:
        _abort(f"Update aborted, illegal value for : {attribute}")


def _edit(schedd: SyncApi, selection: Selection, attribute: str, value: str) -> None:
    body: dict[str, object] = {"attribute": attribute, "value": value}
    if selection.users and not selection.constraints:
        body["owner"] = selection.users[0]
    elif selection.constraints:
        body["constraint"] = selection.constraint()
    else:
        body["jobs"] = [*selection.jobs, *(str(c) for c in selection.clusters)]
    try:
        edited = schedd.post("/edit", body)["edited"]
    except Forbidden as err:
        _fail(f'Update of attribute "{attribute}" is not allowed: {err}', _ABORTED)
    except NotFound as err:
        _fail(f'Failed to set attribute "{attribute}": {err}', _FAILED)
    if not edited:
        _fail(f'Failed to set attribute "{attribute}" by constraint: {_what(selection)}', _FAILED)
    click.echo(f'Set attribute "{attribute}" for {edited} matching jobs.')


def _what(selection: Selection) -> str:
    return selection.constraint() or "true"


def _abort(line: str) -> NoReturn:
    _fail(line, _ABORTED)


def _fail(line: str, last: str) -> NoReturn:
    click.echo(line, err=True)
    click.echo(last, err=True)
    raise SystemExit(1)
