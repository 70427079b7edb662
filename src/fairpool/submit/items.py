"""A queue statement's items: one row of variable values per item, with its ItemIndex.

The splitting rules follow condor_submit (checked against ``htcondor2.Submit.itemdata()``):
``in`` and ``matching`` lists split on blanks and commas; a ``from`` line gives one item
whose fields are cut off one by one (a field ends at a blank, tab or comma; one separator
character is dropped, then blanks), the last variable taking the rest of the line. ``from``
blocks skip lines beginning with ``#``; blank lines are skipped everywhere. ``matching``
globs relative to the submit directory, sorted per pattern; directories get a ``/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ..errors import SubmitError
from .queue import QueueSpec

__all__ = ["item_rows", "split_fields"]

_FIELD = re.compile(r"[^ \t,]*")


def item_rows(spec: QueueSpec, source: str, cwd: Path | None) -> list[tuple[int, dict[str, str]]]:
    """``(ItemIndex, {variable: value})`` for each item the statement selects."""
    if spec.mode is None:
        return [(0, {})]
    if spec.mode == "from":
        values = [
            split_fields(text, len(spec.variables)) for text in _from_lines(spec, source, cwd)
        ]
    elif spec.mode == "in":
        values = [split_fields(word, len(spec.variables)) for word in _words(spec)]
    else:
        values = [split_fields(name, len(spec.variables)) for name in _matches(spec, cwd)]
    rows = [
        (index, dict(zip(spec.variables, row, strict=True))) for index, row in enumerate(values)
    ]
    if spec.slice is not None:
        rows = rows[slice(*spec.slice)]
    return rows


def split_fields(text: str, count: int) -> list[str]:
    """Cut ``count`` fields from one item, the last taking the rest."""
    rest = text.strip()
    fields: list[str] = []
    for _ in range(count - 1):
        token = _FIELD.match(rest).group(0)  # always matches (possibly empty)
        rest = rest[len(token) + 1 :].lstrip(" \t")
        fields.append(token)
    fields.append(rest.strip())
    return fields


def _words(spec: QueueSpec) -> list[str]:
    text = spec.items if spec.items is not None else "\n".join(spec.lines or ())
    return [word for word in re.split(r"[\s,]+", text) if word]


def _from_lines(spec: QueueSpec, source: str, cwd: Path | None) -> Iterable[str]:
    if spec.lines is not None:
        return [t for t in spec.lines if t.strip() and not t.lstrip().startswith("#")]
    path = Path(spec.path or "")
    if cwd is not None and not path.is_absolute():
        path = cwd / path
    try:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError as err:
        raise SubmitError(
            f"queue ... from: cannot read item file {spec.path!r}: {err.strerror}",
            source,
            spec.line,
        ) from err
    return [t for t in text.splitlines() if t.strip()]


def _matches(spec: QueueSpec, cwd: Path | None) -> list[str]:
    base = cwd if cwd is not None else Path(".")
    found: list[str] = []
    for pattern in _words(spec):
        for path in sorted(base.glob(pattern)):
            if path.name.startswith(".") or _excluded(path, spec.qualifier):
                continue
            name = str(path.relative_to(base)) + ("/" if path.is_dir() else "")
            if name not in found:
                found.append(name)
    return found


def _excluded(path: Path, qualifier: str | None) -> bool:
    if qualifier == "files":
        return not path.is_file()
    if qualifier == "dirs":
        return not path.is_dir()
    return False
