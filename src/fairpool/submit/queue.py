"""The queue statement's grammar (after macro expansion of its text):

    queue [count] [var[, var...]] [in | from | matching [files | dirs]] [[slice]] items

``count`` is a ClassAd integer expression (default 1). Without a keyword the statement
queues ``count`` jobs with no items. The items are on the line, in a ``( ... )`` block (on
one line or running to a line beginning with ``)``), or, for ``from``, in a file named on
the line. Variables default to ``Item``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from ..classad import ClassAdSyntaxError, Expr
from ..errors import SubmitError

__all__ = ["QueueSpec", "parse_queue"]

_KEYWORD = re.compile(r"(?:^|\s)(in|from|matching)(?=\s|\(|\[|$)", re.IGNORECASE)
_VARS = re.compile(r"(?:^|\s)([A-Za-z_][\w.]*(?:(?:\s*,\s*|\s+)[A-Za-z_][\w.]*)*)\s*\Z")
_SLICE = re.compile(r"\[\s*(-?\d*)\s*(?::\s*(-?\d*)\s*)?(?::\s*(-?\d*)\s*)?\]")


@dataclass(frozen=True)
class QueueSpec:
    """A parsed queue statement. ``mode`` is None, ``in``, ``from`` or ``matching``;
    ``items`` the item text (inline list), ``lines`` the block lines, ``path`` a from-file."""

    count: int
    variables: tuple[str, ...]
    mode: str | None
    qualifier: str | None = None
    slice: tuple[int | None, int | None, int | None] | None = None
    items: str | None = None
    lines: tuple[str, ...] | None = None
    path: str | None = None
    line: int = 0


def parse_queue(args: str, block: tuple[str, ...] | None, source: str, line: int) -> QueueSpec:
    """Parse expanded queue arguments; SubmitError names what was expected."""
    keyword = _KEYWORD.search(args)
    head = args[: keyword.start()].strip() if keyword else args.strip()
    count_text, variables = _split_head(head, keyword is not None)
    count = _count(count_text, source, line)
    if keyword is None:
        return QueueSpec(count, (), None, line=line)
    mode = keyword.group(1).lower()
    tail = args[keyword.end() :].strip()
    qualifier = None
    if mode == "matching":
        word = tail.split(None, 1)
        if word and word[0].lower() in ("files", "dirs"):
            qualifier = word[0].lower()
            tail = word[1] if len(word) > 1 else ""
    chosen, tail = _slice(tail, source, line)
    spec = QueueSpec(count, variables or ("Item",), mode, qualifier, chosen, line=line)
    return _with_items(spec, tail, block, source)


def _split_head(head: str, has_keyword: bool) -> tuple[str, tuple[str, ...]]:
    """Split ``[count] [vars]``: variables are the trailing identifiers (only before a keyword)."""
    if not has_keyword:
        return head, ()
    found = _VARS.search(head)
    if not found:
        return head, ()
    names = tuple(n for n in re.split(r"[\s,]+", found.group(1)) if n)
    return head[: found.start(1)].strip(), names


def _count(text: str, source: str, line: int) -> int:
    if not text:
        return 1
    try:
        value = Expr(text).eval()
    except ClassAdSyntaxError:
        value = None
    finite = isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))
    if isinstance(value, bool) or not finite or value != int(value):
        raise SubmitError(
            f"queue count {text!r} is not an integer: expected 'queue [count] "
            "[vars] [in|from|matching] items'",
            source,
            line,
        )
    if value < 0:
        raise SubmitError(f"queue count {text!r} is negative: expected 0 or more", source, line)
    return int(value)


def _slice(tail: str, source: str, line: int) -> tuple[tuple | None, str]:
    if not tail.startswith("["):
        return None, tail
    found = _SLICE.match(tail)
    if not found:
        raise SubmitError(
            f"bad slice in {tail!r}: expected [start:stop:step] with integers", source, line
        )
    start, stop, step = (int(g) if g else None for g in found.groups())
    if step is not None and step <= 0:
        raise SubmitError(
            "slice step must be positive (negative steps are not supported)", source, line
        )
    return (start, stop, step), tail[found.end() :].strip()


def _with_items(
    spec: QueueSpec, tail: str, block: tuple[str, ...] | None, source: str
) -> QueueSpec:
    line = spec.line
    if block is not None:
        first = tail[tail.index("(") + 1 :].strip()
        lines = ((first,) if first else ()) + block
        return replace(spec, lines=lines)
    if tail.startswith("("):
        if not tail.endswith(")"):
            raise SubmitError(f"expected ')' at the end of {tail!r}", source, line)
        inner = tail[1:-1].strip()
        return replace(spec, lines=(inner,) if inner else ())
    if spec.mode == "from":
        if not tail:
            raise SubmitError("queue ... from: expected a file name or a '(' list", source, line)
        if tail.endswith("|"):
            raise SubmitError(
                "queue ... from 'command |' is not supported by fairpool: expected a file name",
                source,
                line,
            )
        return replace(spec, path=tail)
    if not tail:
        raise SubmitError(f"queue ... {spec.mode}: expected a list of items", source, line)
    return replace(spec, items=tail)
