"""Options that HTCondor's tools parse in ways click does not: ``-af[:jlhVr,tng] ATTR...``
(``-autoformat``) takes every following argument up to the next one that begins with a
dash (condor_q and condor_status manual pages), with qualifiers after a colon.

``ToolCommand`` takes the ``-af`` request out of the arguments before click parses the
rest; ``autoformat_request`` gives it back, checked.
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from .listings.autoformat import AutoFormat

__all__ = ["AF_HELP", "ToolCommand", "autoformat_request", "split_autoformat"]

AF_HELP = (
    "-af[:jlhVr,tng] ATTR... (-autoformat): print these attributes or expressions of each ad, "
    "one line per ad (qualifiers: j job id, l labels, h headings, V quoted strings, r raw "
    "expressions, ',' commas, t tabs, n newlines, g blank lines between ads)."
)
_NAMES = ("-af", "-autoformat")
_KEY = "fairpool.autoformat"


def split_autoformat(
    args: Sequence[str],
) -> tuple[list[str], tuple[str, tuple[str, ...]] | None]:
    """The arguments without ``-af`` and its attributes, and the request (qualifiers,
    attributes); a later ``-af`` replaces an earlier one, as in HTCondor's tools."""
    rest: list[str] = []
    found = None
    index = 0
    while index < len(args):
        name, _, qualifiers = args[index].partition(":")
        if name not in _NAMES:
            rest.append(args[index])
            index += 1
            continue
        end = index + 1
        while end < len(args) and not args[end].startswith("-"):
            end += 1
        found = (qualifiers, tuple(args[index + 1 : end]))
        index = end
    return rest, found


class ToolCommand(click.Command):
    """A click command that also reads ``-af``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        rest, found = split_autoformat(args)
        ctx.meta[_KEY] = found
        return super().parse_args(ctx, rest)


def autoformat_request() -> AutoFormat | None:
    """The current command's ``-af`` request (an InputError when it is malformed)."""
    found = click.get_current_context().meta.get(_KEY)
    return None if found is None else AutoFormat.parse(*found)
