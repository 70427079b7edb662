"""The exceptions fairpool raises, all under one root.

    FairpoolError
    ├── ClassAdSyntaxError      text that is not ClassAd syntax (with line, column and a caret)
    └── InputError              input that names its place: file, line, and what was expected
        ├── ConfigError         a configuration file or knob (also names the knob)
        ├── SubmitError         a submit description file
        ├── ScenarioError       a simulation scenario (also names the key)
        └── StateError          a state directory or database that cannot be used

Data problems inside expressions are never exceptions: they are the ClassAd values
UNDEFINED and ERROR. Exceptions are for input that cannot be read or used at all; commands
turn them into one clear line and a non-zero exit.
"""

from __future__ import annotations

__all__ = [
    "ClassAdSyntaxError",
    "ConfigError",
    "FairpoolError",
    "InputError",
    "ScenarioError",
    "StateError",
    "SubmitError",
    "excerpt",
]


class FairpoolError(Exception):
    """Root of every error fairpool raises on purpose."""


class ClassAdSyntaxError(FairpoolError, ValueError):
    """A ClassAd expression or ad that does not parse.

    ``line`` and ``column`` are 1-based; ``source`` names the file (or is None for a
    string given directly). ``str()`` shows the offending line with a caret under the column.
    """

    def __init__(
        self,
        message: str,
        text: str = "",
        offset: int = 0,
        source: str | None = None,
        line_base: int = 0,
    ) -> None:
        self.message = message
        self.text = text
        self.offset = max(0, min(offset, len(text)))
        self.source = source
        self.line = text.count("\n", 0, self.offset) + 1 + line_base
        line_start = text.rfind("\n", 0, self.offset) + 1
        self.column = self.offset - line_start + 1
        line_end = text.find("\n", self.offset)
        self.source_line = text[line_start : line_end if line_end >= 0 else len(text)]
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.source}:" if self.source else ""
        shown, column = _window(self.source_line, self.column)
        caret = " " * (column - 1) + "^"
        return f"{where}{self.line}:{self.column}: {self.message}\n  {shown}\n  {caret}"

    def __reduce__(self):  # keep the exception picklable with all its fields
        return (type(self), (self.message, self.text, self.offset, self.source))


_WINDOW = 60  # characters shown on each side of the caret


def excerpt(text: str, width: int = 2 * _WINDOW) -> str:
    """``text`` for an error message: its first ``width`` characters, ``...`` if cut."""
    return text if len(text) <= width else f"{text[:width]}..."


def _window(line: str, column: int) -> tuple[str, int]:
    """The part of a long line around ``column`` (marked ``...`` where cut), and the
    column within it: a one-megabyte line is not echoed whole."""
    start = max(0, column - 1 - _WINDOW)
    end = column - 1 + _WINDOW
    if start == 0 and end >= len(line):
        return line, column
    head = "..." if start else ""
    tail = "..." if end < len(line) else ""
    return f"{head}{line[start:end]}{tail}", column - start + len(head)


class InputError(FairpoolError):
    """Input that cannot be used, reported with where it came from.

    ``source`` is a file name (or a description such as ``"<command line>"``), ``line`` is
    1-based or None.
    """

    def __init__(self, message: str, source: str | None = None, line: int | None = None) -> None:
        self.message = message
        self.source = source
        self.line = line
        super().__init__(str(self))

    def where(self) -> str:
        if self.source and self.line:
            return f"{self.source}:{self.line}: "
        return f"{self.source}: " if self.source else ""

    def __str__(self) -> str:
        return f"{self.where()}{self.message}"

    def __reduce__(self):
        return (type(self), (self.message, self.source, self.line))


class ConfigError(InputError):
    """A configuration that cannot be read or used. ``knob`` names the knob when there is one."""

    def __init__(
        self,
        message: str,
        source: str | None = None,
        line: int | None = None,
        knob: str | None = None,
    ) -> None:
        self.knob = knob
        super().__init__(message, source, line)

    def __reduce__(self):
        return (type(self), (self.message, self.source, self.line, self.knob))


class SubmitError(InputError):
    """A submit description that cannot be turned into jobs."""


class ScenarioError(InputError):
    """A simulation scenario that cannot be run; ``key`` names the table and key
    (``[[jobs]] 2, runtime``) when there is one."""

    def __init__(
        self,
        message: str,
        source: str | None = None,
        line: int | None = None,
        key: str | None = None,
    ) -> None:
        self.key = key
        super().__init__(message, source, line)

    def __str__(self) -> str:
        prefix = f"{self.key}: " if self.key else ""
        return f"{self.where()}{prefix}{self.message}"

    def __reduce__(self):
        return (type(self), (self.message, self.source, self.line, self.key))


class StateError(InputError):
    """A state directory that is missing, is not a directory, or holds a database or log
    fairpool cannot read (corrupt, or another program's)."""
