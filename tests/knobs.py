"""Configuration knobs for tests, given as ``NAME = value`` lines (no macros)."""

from __future__ import annotations


class TextKnobs:
    """The ``Knobs`` view negotiator/configure.py reads, over literal ``NAME = value`` lines."""

    def __init__(self, text: str, source: str = "test.config") -> None:
        self.source = source
        self.values: dict[str, tuple[str, str, int]] = {}
        for number, line in enumerate(text.splitlines(), 1):
            if "=" in line and not line.lstrip().startswith("#"):
                name, _, value = line.partition("=")
                self.values[name.strip().lower()] = (name.strip(), value.strip(), number)

    def get(self, name: str) -> str | None:
        found = self.values.get(name.lower())
        return found[1] if found else None

    def where(self, name: str) -> tuple[str | None, int | None]:
        found = self.values.get(name.lower())
        return (self.source, found[2]) if found else (None, None)

    def names(self) -> list[str]:
        return [spelling for spelling, _, _ in self.values.values()]
