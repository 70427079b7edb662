"""``Config``: a loaded configuration, read the way HTCondor's ``param()`` reads it.

``get`` expands a knob's text when asked (``$(X)`` sees the final value of X, wherever it
was set), falling back to the parameter table's default; typed accessors read numbers
and booleans as ClassAd expressions with no ad in scope (``60 * 60``, ``True``). A
``Config`` never changes; ``reload`` reads the same sources again into a new one.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from functools import cached_property

from ..classad import ClassAdSyntaxError, Expr
from ..errors import ConfigError
from .knob_values import knob_error, knob_expr
from .macros import UndefinedMacroError, expand
from .params import lookup_param
from .reader import Entry

__all__ = ["Config"]

_MACRO_NAME = re.compile(r"[A-Za-z0-9_.]+")


class Config:
    """Knobs by case-insensitive name; satisfies negotiator.configure.Knobs."""

    def __init__(
        self,
        entries: Mapping[str, Entry],
        *,
        facts: Mapping[str, str],
        env: Mapping[str, str],
        seed: int,
        strict: bool = True,
        files: tuple[str, ...] = (),
        warnings: tuple[str, ...] = (),
        reloader: Callable[[], Config] | None = None,
    ) -> None:
        self._entries = dict(entries)
        self._facts = dict(facts)
        self._env = dict(env)
        self._seed = seed
        self.strict = strict
        self._cache: dict[str, str | None] = {}
        self._reloader = reloader
        self.files = files
        self.warnings = list(warnings)

    def raw(self, name: str) -> str | None:
        """The unexpanded text: set in a file, else a host fact, else the table default."""
        entry = self._entries.get(name.upper())
        if entry is not None:
            return entry.raw
        if name.upper() in self._facts:
            return self._facts[name.upper()]
        param = lookup_param(name)
        return param.default if param else None

    def is_set(self, name: str) -> bool:
        """Whether a configuration file (or metaknob, or the environment) set the knob."""
        return name.upper() in self._entries

    def get(self, name: str) -> str | None:
        """The expanded text, or None when neither the files nor the table give one."""
        key = name.upper()
        if key not in self._cache:
            self._cache[key] = self._expand(name, self.strict)
        return self._cache[key]

    def _expand(self, name: str, strict: bool) -> str | None:
        raw = self.raw(name)
        if raw is None:
            return None
        source, line = self.where(name)
        return expand(
            f"$({name})" if _MACRO_NAME.fullmatch(name) else raw,  # the chain starts here
            self.raw,
            source=source,
            line=line,
            rng=random.Random(f"{self._seed}:{name.upper()}"),
            env=self._env,
            strict=strict,
        ).strip()

    def _expand_default(self, name: str) -> str | None:
        default = lookup_param(name)
        if default is None or default.default is None:
            return None
        return expand(
            default.default, self.raw, rng=random.Random(self._seed), env=self._env, strict=False
        ).strip()

    def where(self, name: str) -> tuple[str | None, int | None]:
        """The file and line that set the knob; ("<default>", None) for a table default."""
        entry = self._entries.get(name.upper())
        if entry is not None:
            return entry.source, entry.line
        if name.upper() in self._facts:
            return "<host>", None
        return ("<default>", None) if self.raw(name) is not None else (None, None)

    def names(self) -> list[str]:
        """The knobs set in the configuration, in their spelling, in the order first set."""
        return [entry.name for entry in self._entries.values()]

    def items(self) -> list[tuple[str, str | None]]:
        """Every knob set, with its expanded value."""
        return [(name, self.get(name)) for name in self.names()]

    def reload(self) -> Config:
        """The same sources read again, as a new Config; raises ConfigError if they fail."""
        if self._reloader is None:
            return self
        return self._reloader()

    def check(self) -> None:
        """Expand every knob that was set, so bad references fail now, not when read.

        When not strict, an undefined macro is a warning (in ``warnings``), not an error.
        """
        for name in self.names():
            try:
                self._expand(name, True)
            except UndefinedMacroError as err:
                if self.strict:
                    raise
                self.warnings.append(f"{name}: {err}")

    # typed accessors

    def _value(self, name: str, expected: str) -> object:
        """The knob evaluated; a knob set to nothing reads as its table default (HTCondor)."""
        text = self.get(name)
        if text is not None and not text.strip():
            param = lookup_param(name)
            text = self._expand_default(name) if param and param.default else None
        if text is None or not text.strip():
            return None
        try:
            return Expr(text).eval(now=0)
        except ClassAdSyntaxError as err:
            raise self._error(name, f"{expected} ({err.message})") from None

    def _error(self, name: str, expected: str) -> ConfigError:
        return knob_error(self, name, expected)

    def get_bool(self, name: str, default: bool | None = None) -> bool | None:
        """True or False (a number counts as ``!= 0``); ``default`` when unset or empty."""
        value = self._value(name, "True or False")
        if value is None:
            return default
        if type(value) is bool:
            return value
        if type(value) in (int, float):
            return value != 0
        raise self._error(name, "True or False")

    def get_float(self, name: str, default: float | None = None) -> float | None:
        value = self._value(name, "a number")
        if value is None:
            return default
        if type(value) in (int, float):
            return float(value)  # type: ignore[arg-type]
        raise self._error(name, "a number")

    def get_int(self, name: str, default: int | None = None) -> int | None:
        """A whole number (``2.0`` is 2; ``2.5`` is an error, as in HTCondor)."""
        value = self._value(name, "a whole number")
        if value is None:
            return default
        if type(value) is int:
            return value
        if type(value) is float and value.is_integer():
            return int(value)
        raise self._error(name, "a whole number")

    def get_expr(self, name: str) -> Expr | None:
        """The knob as a ClassAd expression, None when unset or empty."""
        return knob_expr(self, name)

    def get_list(self, name: str) -> list[str]:
        """Items separated by commas and/or blanks; empty when unset."""
        text = self.get(name) or ""
        return [item for item in re.split(r"[\s,]+", text) if item]

    @cached_property
    def entries(self) -> dict[str, Entry]:
        return dict(self._entries)
