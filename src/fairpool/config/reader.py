"""Reading configuration files into a table of knobs, in HTCondor's order.

Statements run top to bottom: an assignment stores the knob's text unexpanded, except that
references to the knob itself (``PATH = $(PATH):/more``) are replaced at once by its
previous text (or the table default, or nothing), so a knob can extend itself. ``include``
reads another file there and then (``ifexist`` skips a missing one; relative paths are
relative to the working directory, as in HTCondor); ``use`` reads metaknob templates;
``if``/``elif``/``else``/``endif`` choose lines; ``error :`` stops reading with its message
and ``warning :`` is kept in ``Reader.warnings``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError
from .conditions import evaluate_condition
from .lines import Statement, statements
from .macros import expand
from .metaknobs import template_text
from .params import lookup_param
from .selfref import replace_self

__all__ = ["Entry", "Reader"]

MAX_INCLUDE_DEPTH = 20


@dataclass(frozen=True)
class Entry:
    """One knob as a file set it: its spelling, raw text, and where."""

    name: str
    raw: str
    source: str
    line: int | None


@dataclass
class _Branch:
    """One ``if`` being read: whether its enclosing lines run, and whether a branch ran."""

    outer: bool
    taken: bool
    active: bool
    line: int


@dataclass
class Reader:
    """Reads texts and files into ``entries`` (upper-case name -> Entry)."""

    env: Mapping[str, str]
    facts: Mapping[str, str]
    seed: int = 0
    strict: bool = True
    entries: dict[str, Entry] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def raw(self, name: str) -> str | None:
        """A macro's text now: set in a file, else a fact of this host, else the default."""
        entry = self.entries.get(name.upper())
        if entry is not None:
            return entry.raw
        if name.upper() in self.facts:
            return self.facts[name.upper()]
        param = lookup_param(name)
        return param.default if param else None

    def expand_now(self, text: str, source: str, line: int | None) -> str:
        return expand(
            text,
            self.raw,
            source=source,
            line=line,
            rng=random.Random(f"{self.seed}:{source}:{line}"),
            env=self.env,
            strict=self.strict,
        )

    def read_file(self, path: str | Path, depth: int = 0, *, must_exist: bool = True) -> None:
        source = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            if must_exist:
                raise ConfigError("no such configuration file", source) from None
            return
        except OSError as err:
            raise ConfigError(f"cannot read: {err.strerror}", source) from None
        self.files.append(source)
        self.read_text(text, source, depth)

    def read_text(self, text: str, source: str, depth: int = 0) -> None:
        branches: list[_Branch] = []
        for statement in statements(text, source):
            if self._conditional(statement, branches, source):
                continue
            if branches and not branches[-1].active:
                continue
            self._run(statement, source, depth)
        if branches:
            line = branches[-1].line
            raise ConfigError("expected 'endif' for this 'if' before the end of file", source, line)

    def _conditional(self, st: Statement, branches: list[_Branch], source: str) -> bool:
        """Handle if/elif/else/endif; True when ``st`` was one of them."""
        running = not branches or branches[-1].active
        if st.kind == "if":
            active = running and self._condition(st, source)
            branches.append(_Branch(running, active, active, st.line))
        elif st.kind in ("elif", "else", "endif"):
            if not branches:
                raise ConfigError(f"'{st.kind}' without 'if'", source, st.line)
            branch = branches[-1]
            if st.kind == "endif":
                branches.pop()
            elif branch.taken:
                branch.active = False
            else:
                chosen = st.kind == "else" or (branch.outer and self._condition(st, source))
                branch.active = branch.taken = branch.outer and chosen
        else:
            return False
        return True

    def _condition(self, st: Statement, source: str) -> bool:
        text = self.expand_now(st.value, source, st.line)
        return evaluate_condition(text, lambda name: bool(self.raw(name)), source, st.line)

    def _run(self, st: Statement, source: str, depth: int) -> None:
        if st.kind == "assign":
            self.assign(st.name, st.value, source, st.line)
        elif st.kind == "include":
            self._include(st, source, depth)
        elif st.kind == "use":
            self._use(st, source, depth)
        elif st.kind in ("error", "warning"):
            message = self.expand_now(st.value.partition(":")[2].strip(), source, st.line)
            if st.kind == "error":
                raise ConfigError(f"error statement: {message}", source, st.line)
            self.warnings.append(f"{source}:{st.line}: {message}")

    def assign(self, name: str, value: str, source: str, line: int | None) -> None:
        if "$" in name:
            name = self.expand_now(name, source, line)
        previous = self.raw(name) or ""
        self.entries[name.upper()] = Entry(name, replace_self(value, name, previous), source, line)

    def _include(self, st: Statement, source: str, depth: int) -> None:
        options, colon, target = st.value.partition(":")
        words = options.lower().split()
        if not colon or not target.strip() or set(words) - {"ifexist"}:
            raise ConfigError(
                "expected 'include : FILE' or 'include ifexist : FILE'"
                + (" (include command is not supported)" if "command" in words else ""),
                source,
                st.line,
            )
        if depth + 1 > MAX_INCLUDE_DEPTH:
            raise ConfigError(f"includes nested deeper than {MAX_INCLUDE_DEPTH}", source, st.line)
        path = self.expand_now(target.strip(), source, st.line)
        self.read_file(path, depth + 1, must_exist="ifexist" not in words)

    def _use(self, st: Statement, source: str, depth: int) -> None:
        category, colon, names = st.value.partition(":")
        if not colon or not category.strip() or not names.strip():
            raise ConfigError("expected 'use CATEGORY : TEMPLATE[, TEMPLATE...]'", source, st.line)
        for call in _split_calls(self.expand_now(names, source, st.line)):
            text = template_text(category, call, source, st.line)
            branches: list[_Branch] = []  # a template's if/else on its arguments
            for inner in statements(text, f"{category.strip()}:{call}"):
                if self._conditional(inner, branches, source):
                    continue
                if branches and not branches[-1].active:
                    continue
                if inner.kind != "assign":
                    raise ConfigError(f"template {call}: only assignments", source, st.line)
                self.assign(inner.name, inner.value, source, st.line)


def _split_calls(text: str) -> list[str]:
    """``A, B(1, 2)`` -> ``["A", "B(1, 2)"]``: commas outside parentheses separate."""
    calls, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            calls.append(text[start:i])
            start = i + 1
    calls.append(text[start:])
    return [c.strip() for c in calls if c.strip()]
