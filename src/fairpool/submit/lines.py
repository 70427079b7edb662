"""Submit description text -> statements: assignments and queue statements, with line numbers.

condor_submit's surface syntax: ``name = value`` (names without case), ``+Attr = value``
(which is ``MY.Attr``), ``name @= TAG`` ... ``@TAG`` multi-line values, a trailing ``\\``
joining the next line (its leading blanks dropped), ``#`` comment lines, blank lines, and
``queue ...`` statements whose item list may open with ``(`` and run on to a line beginning
with ``)``. Nothing is expanded here; macros are expanded per job (``jobs.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..errors import SubmitError

__all__ = ["Assignment", "QueueLine", "Statement", "read_statements"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\Z")
_MULTILINE = re.compile(r"([+]?[A-Za-z_][A-Za-z0-9_.]*)\s*@=\s*(\S+)\s*\Z")
_QUEUE = re.compile(r"queue(?:\s+(.*))?\Z", re.IGNORECASE | re.DOTALL)
_UNSUPPORTED = ("include", "if", "elif", "else", "endif", "error", "warning")


@dataclass(frozen=True)
class Assignment:
    """``name = value``; ``name`` lower-cased (``+X`` becomes ``my.x``), ``spelling`` kept."""

    name: str
    spelling: str
    value: str
    line: int


@dataclass(frozen=True)
class QueueLine:
    """A queue statement: the text after ``queue`` and, for a ``(`` list spanning lines,
    the lines up to the closing ``)`` line (``None`` when the list is on one line)."""

    args: str
    block: tuple[str, ...] | None
    line: int


Statement = Assignment | QueueLine


def read_statements(text: str, source: str) -> list[Statement]:
    """Split submit text into statements, raising SubmitError at the first bad line."""
    return list(_Reader(text.splitlines(), source).statements())


class _Reader:
    """A cursor over the raw lines: logical lines, and blocks that follow a statement."""

    def __init__(self, lines: list[str], source: str) -> None:
        self.lines = lines
        self.source = source
        self.index = 0

    def statements(self) -> Iterator[Statement]:
        while self.index < len(self.lines):
            number, text = self._logical_line()
            if not text or text.startswith("#"):
                continue
            queue = _QUEUE.match(text)
            if queue and not (queue.group(1) or "").startswith("="):
                args = (queue.group(1) or "").strip()
                block = self._block(number) if _opens_block(args) else None
                yield QueueLine(args, block, number)
                continue
            multi = _MULTILINE.match(text)
            if multi:
                value = self._tagged(multi.group(2), number)
                yield _assignment(multi.group(1), value, self.source, number)
                continue
            yield _parse_assignment(text, self.source, number)

    def _logical_line(self) -> tuple[int, str]:
        """The next line with its continuations (a trailing backslash) joined."""
        number = self.index + 1
        text = self.lines[self.index].strip()
        self.index += 1
        while text.endswith("\\") and self.index < len(self.lines):
            text = text[:-1] + self.lines[self.index].strip()
            self.index += 1
        if text.endswith("\\"):
            raise SubmitError(
                "the last line ends with '\\': expected a continuation line", self.source, number
            )
        return number, text

    def _block(self, number: int) -> tuple[str, ...]:
        """Raw lines up to one beginning with ``)``, which is consumed too."""
        block: list[str] = []
        while self.index < len(self.lines):
            raw = self.lines[self.index]
            self.index += 1
            if raw.lstrip().startswith(")"):
                return tuple(block)
            block.append(raw)
        raise SubmitError(
            "the queue statement's item list opened with '(' is not closed: "
            "expected a line beginning with ')'",
            self.source,
            number,
        )

    def _tagged(self, tag: str, number: int) -> str:
        """Raw lines up to ``@tag`` for a ``name @= tag`` value."""
        block: list[str] = []
        while self.index < len(self.lines):
            raw = self.lines[self.index]
            self.index += 1
            if raw.strip() == f"@{tag}":
                return "\n".join(block)
            block.append(raw)
        raise SubmitError(
            f"multi-line value is not closed: expected a line '@{tag}'", self.source, number
        )


def _parse_assignment(text: str, source: str, number: int) -> Assignment:
    name, equals, value = text.partition("=")
    name = name.strip()
    if not equals:
        word = text.split(None, 1)[0].lower().rstrip(":")
        if word in _UNSUPPORTED:
            raise SubmitError(f"'{word}' statements are not supported by fairpool", source, number)
        raise SubmitError(
            f"expected 'name = value' or a 'queue' statement, found {text!r}", source, number
        )
    return _assignment(name, value.strip(), source, number)


def _assignment(name: str, value: str, source: str, number: int) -> Assignment:
    spelling = name[1:] if name.startswith("+") else name
    if name.lower().startswith("my."):
        spelling = name[3:]
    if not _NAME.match(spelling) or (name.startswith("+") and "." in spelling):
        raise SubmitError(
            f"bad command name {name!r}: expected letters, digits, '_' or '.'", source, number
        )
    key = f"my.{spelling}" if spelling != name else name
    return Assignment(key.lower(), spelling, value, number)


def _opens_block(args: str) -> bool:
    """True when the item list opens with ``(`` and does not close on the same line."""
    return "(" in args and ")" not in args[args.index("(") :]
