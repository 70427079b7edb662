"""condor_defrag's knobs, with HTCondor's defaults (defrag.md §D2).

Read through the same ``Knobs`` protocol as the startd (``get(name) -> str | None``, and
``where(name)`` for messages when present). Expressions are checked when read: a knob that
does not parse, or a schedule that is not graceful/quick/fast, is a ``ConfigError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..classad import ClassAdSyntaxError, Expr
from ..errors import ConfigError
from ..startd.policy import Knobs, MappingKnobs

__all__ = ["DEFAULTS", "SCHEDULES", "DefragConfig"]

# knob -> default text (None: unset)
DEFAULTS: dict[str, str | None] = {
    "DEFRAG_NAME": "defrag",
    "DEFRAG_INTERVAL": "600",
    "DEFRAG_DRAINING_MACHINES_PER_HOUR": "0",
    "DEFRAG_MAX_CONCURRENT_DRAINING": "-1",
    "DEFRAG_MAX_WHOLE_MACHINES": "-1",
    "DEFRAG_REQUIREMENTS": None,
    "DEFRAG_RANK": "-ExpectedMachineGracefulDrainingBadput",
    "DEFRAG_WHOLE_MACHINE_EXPR": "Cpus == TotalSlotCpus",
    "DEFRAG_CANCEL_REQUIREMENTS": None,  # default: DEFRAG_WHOLE_MACHINE_EXPR
    "DEFRAG_DRAINING_SCHEDULE": "graceful",  # the docs' name: DEFRAG_SCHEDULE
    "DEFRAG_DRAINING_START_EXPR": "FALSE",
    "DEFRAG_UPDATE_INTERVAL": "300",
}
SCHEDULES = {"graceful": 0, "quick": 10, "fast": 20}


@dataclass(frozen=True)
class DefragConfig:
    """Everything a defrag cycle reads from the configuration."""

    name: str = "defrag"
    interval: int = 600
    per_hour: float = 0.0
    max_concurrent: int = -1
    max_whole: int = -1
    requirements: str | None = None
    rank: str = "-ExpectedMachineGracefulDrainingBadput"
    whole: str = "Cpus == TotalSlotCpus"
    cancel: str | None = "Cpus == TotalSlotCpus"
    schedule: str = "graceful"
    start: str = "FALSE"
    update_interval: int = 300

    @classmethod
    def from_knobs(cls, knobs: Knobs | Mapping[str, str] | None = None) -> DefragConfig:
        reader = _Reader(MappingKnobs(knobs) if isinstance(knobs, Mapping) else knobs)
        whole = reader.expr_text("DEFRAG_WHOLE_MACHINE_EXPR")
        assert whole is not None
        cancel = reader.raw("DEFRAG_CANCEL_REQUIREMENTS")
        schedule = (
            (reader.raw("DEFRAG_DRAINING_SCHEDULE") or reader.raw("DEFRAG_SCHEDULE") or "graceful")
            .strip()
            .lower()
        )
        if schedule not in SCHEDULES:
            name = "DEFRAG_DRAINING_SCHEDULE"
            raise reader.error(name, "graceful, quick or fast")
        return cls(
            name=reader.raw("DEFRAG_NAME") or "defrag",
            interval=reader.number("DEFRAG_INTERVAL", int),
            per_hour=reader.number("DEFRAG_DRAINING_MACHINES_PER_HOUR", float),
            max_concurrent=reader.number("DEFRAG_MAX_CONCURRENT_DRAINING", int),
            max_whole=reader.number("DEFRAG_MAX_WHOLE_MACHINES", int),
            requirements=reader.expr_text("DEFRAG_REQUIREMENTS"),
            rank=reader.expr_text("DEFRAG_RANK") or "0",
            whole=whole,
            cancel=whole if cancel is None else (reader.expr_text("DEFRAG_CANCEL_REQUIREMENTS")),
            schedule=schedule,
            start=reader.expr_text("DEFRAG_DRAINING_START_EXPR") or "FALSE",
            update_interval=reader.number("DEFRAG_UPDATE_INTERVAL", int),
        )


class _Reader:
    def __init__(self, knobs: Knobs | None) -> None:
        self.knobs = knobs

    def raw(self, name: str) -> str | None:
        text = self.knobs.get(name) if self.knobs is not None else None
        return text.strip() if text is not None and text.strip() else None

    def text(self, name: str) -> str | None:
        text = self.raw(name)
        return DEFAULTS.get(name) if text is None else text

    def error(self, name: str, expected: str) -> ConfigError:
        where = getattr(self.knobs, "where", None)
        source, line = where(name) if where is not None else (None, None)
        return ConfigError(f"{name} = {self.raw(name)!r}: expected {expected}", source, line, name)

    def number(self, name: str, kind: type) -> int | float:
        text = self.text(name) or "0"
        try:
            value = Expr(text).eval(now=0)
        except ClassAdSyntaxError:
            value = None
        if kind is int and type(value) is int:
            return value
        if kind is float and type(value) in (int, float):
            return float(value)
        raise self.error(name, "an integer" if kind is int else "a number")

    def expr_text(self, name: str) -> str | None:
        text = self.text(name)
        if text is None:
            return None
        try:
            Expr(text)
        except ClassAdSyntaxError as err:
            raise self.error(name, f"a ClassAd expression ({err.message})") from None
        return text
