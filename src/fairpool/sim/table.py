"""One table of a scenario file, read with its place known, so every error names it.

``Table(data, source, "[[jobs]] 2")`` reads keys and raises ``ScenarioError`` naming the
file and the key (``scenario.toml: [[jobs]] 2, runtime: expected ...``). Unknown keys are
errors: a misspelt key silently ignored would simulate something else than was meant.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import InputError, ScenarioError
from ..textfiles import read_text
from .durations import Fail, parse_duration

__all__ = ["Table"]

_MISSING = object()


class Table:
    """Keys of one TOML table, with the file and the table's name for errors."""

    def __init__(self, data: Any, source: str, name: str, base: Path | None = None) -> None:
        if not isinstance(data, dict):
            raise ScenarioError(f"expected a table, not {data!r}", source, key=name)
        self.data = data
        self.source = source
        self.name = name
        self.base = base or Path(".")

    def fail(self, key: str | None = None) -> Fail:
        where = f"{self.name}, {key}" if key else self.name
        return lambda message: ScenarioError(message, self.source, key=where)

    def allow(self, keys: Iterable[str]) -> None:
        unknown = sorted(set(self.data) - set(keys))
        if unknown:
            raise self.fail(unknown[0])(f"unknown key; expected one of {', '.join(sorted(keys))}")

    def get(self, key: str, default: Any = _MISSING) -> Any:
        if key in self.data:
            return self.data[key]
        if default is _MISSING:
            raise self.fail(key)("missing; this key is required")
        return default

    def has(self, key: str) -> bool:
        return key in self.data

    def text(self, key: str, default: Any = _MISSING) -> Any:
        value = self.get(key, default)
        if value is not default and not isinstance(value, str):
            raise self.fail(key)(f"expected a string, not {value!r}")
        return value

    def integer(self, key: str, default: Any = _MISSING, minimum: int = 0) -> Any:
        value = self.get(key, default)
        if value is default:
            return value
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(key)(f"expected a whole number of at least {minimum}, not {value!r}")
        return value

    def number(self, key: str, default: Any = _MISSING) -> Any:
        value = self.get(key, default)
        if value is default:
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(key)(f"expected a number, not {value!r}")
        return float(value)

    def duration(self, key: str, default: Any = _MISSING, allow_zero: bool = True) -> Any:
        value = self.get(key, default)
        if value is default:
            return value
        return parse_duration(value, self.fail(key), allow_zero)

    def path(self, key: str) -> Path:
        """A file named relative to the scenario file; it must exist."""
        path = self.base / self.text(key)
        if not path.is_file():
            raise self.fail(key)(f"no such file: {path}")
        return path

    def text_or_file(self, what: str) -> tuple[str, str]:
        """``text = "..."`` or ``file = "..."`` (exactly one): the text and its source name."""
        if self.has("text") == self.has("file"):
            raise self.fail()(f"expected either text or file for the {what}")
        if self.has("text"):
            return self.text("text"), f"{self.source} {self.name}"
        path = self.path("file")
        return self.read(path, f"the {what}"), str(path)

    def read(self, path: Path, what: str) -> str:
        """The text of a file the table names; unreadable or not UTF-8 names the key."""
        try:
            return read_text(path, InputError, what)
        except InputError as err:
            raise self.fail()(str(err)) from None
