"""From configuration text to statements, line by line, as HTCondor splits them.

A line whose first non-blank character is ``#`` is a comment (a ``#`` later on a line is
part of the value). A line ending in a backslash continues on the next one, whose leading
blanks are dropped. A comment line inside a continued line is skipped when it ends in a
backslash itself (a commented-out list item); otherwise it ends the continued line and, as
HTCondor's reader does, adds its last character to it (``A = a \\`` then ``# note`` gives
``a e``). ``NAME @=tag`` starts a multi-line value that runs to the line ``@tag``; each of
its lines is stripped, comment lines are dropped, and the rest are joined by newlines.
Keywords (``include``, ``use``, ``if``/``elif``/``else``/``endif``, ``error``, ``warning``)
are recognised case-insensitively; other lines must be ``NAME = value`` (or the obsolete
``NAME : value``). Every statement keeps its 1-based line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..errors import ConfigError

__all__ = ["Statement", "statements"]

_NAME = r"[A-Za-z0-9_.$()]+?"
_ASSIGN = re.compile(rf"\s*({_NAME})\s*(=|:)(.*)\Z", re.S)
_BLOCK = re.compile(rf"\s*({_NAME})\s*@=\s*(\S+)\s*\Z")
_KEYWORD = re.compile(r"\s*(include|use|if|elif|else|endif|error|warning)\b(.*)\Z", re.I | re.S)
_VALID_NAME = re.compile(r"[A-Za-z0-9_.]+|[A-Za-z0-9_.]*\$\([^)]*\)[A-Za-z0-9_.$()]*")


@dataclass(frozen=True)
class Statement:
    """``kind`` is ``assign`` (name, value) or a keyword (``value`` is the rest of the line)."""

    kind: str
    name: str
    value: str
    line: int


def _logical_lines(text: str, source: str) -> Iterator[tuple[int, str, list[str]]]:
    """(line number, text, the physical lines that follow) with continuations joined."""
    physical = text.splitlines()
    i = 0
    while i < len(physical):
        number, line = i + 1, physical[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        while line.rstrip().endswith("\\") and i < len(physical):
            following = physical[i]
            i += 1
            if following.lstrip().startswith("#"):
                if following.rstrip().endswith("\\"):
                    continue  # a commented-out item of a continued list
                # HTCondor keeps the comment's last character and ends the line there.
                line = line.rstrip()[:-1] + following.rstrip()[-1:]
                break
            line = line.rstrip()[:-1] + following.lstrip()
        if line.rstrip().endswith("\\"):
            line = line.rstrip()[:-1]
        block = _BLOCK.match(line)
        if block:
            tag, body = "@" + block.group(2), []
            while i < len(physical) and physical[i].strip() != tag:
                if not physical[i].lstrip().startswith("#"):
                    body.append(physical[i].strip())
                i += 1
            if i >= len(physical):
                raise ConfigError(
                    f"expected a line '{tag}' to end the value of {block.group(1)}",
                    source,
                    number,
                    block.group(1),
                )
            i += 1
            yield number, line, body
        else:
            yield number, line, []


def statements(text: str, source: str) -> Iterator[Statement]:
    """The statements of one configuration text, in order."""
    for number, line, body in _logical_lines(text, source):
        block = _BLOCK.match(line)
        if block:
            yield Statement("assign", block.group(1), "\n".join(body).strip(), number)
            continue
        keyword = _KEYWORD.match(line)
        if keyword and _is_keyword_line(keyword.group(1).lower(), keyword.group(2)):
            yield Statement(keyword.group(1).lower(), "", keyword.group(2).strip(), number)
            continue
        assign = _ASSIGN.match(line)
        if assign is None or not _VALID_NAME.fullmatch(assign.group(1)):
            raise ConfigError(
                f"expected NAME = value, a keyword or a comment, got {line.strip()!r}",
                source,
                number,
            )
        yield Statement("assign", assign.group(1), assign.group(3).strip(), number)


def _is_keyword_line(keyword: str, rest: str) -> bool:
    """``if = 3`` assigns a knob named ``if``; ``if defined X`` is a keyword."""
    return not rest.lstrip().startswith("=")
