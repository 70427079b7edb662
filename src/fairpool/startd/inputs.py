"""A machine's measurements over time, for the startd's ``inputs(t)`` (startd.md §14).

The startd samples its machine at evaluation passes and events. ``MachineInputs`` answers
for any time: ``KeyboardIdle`` (and ``ConsoleIdle``) from periods of keyboard use (a touch
is a period of length 0; 0 while in use, then growing), any other attribute as a
piecewise-constant value (``LoadAvg``, ``CondorLoadAvg``...), and ``ClockMin``/``ClockDay``
from the time itself, with ``t = 0`` a Monday 00:00 (``day0`` changes the weekday).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

__all__ = ["MachineInputs"]

DAY = 86400


@dataclass
class MachineInputs:
    """Keyboard use, other measurements and the clock, as functions of time."""

    last_touch: int = -100000
    day0: int = 1
    uses: list[tuple[int, int]] = field(default_factory=list)
    values: dict[str, list[tuple[int, object]]] = field(default_factory=dict)

    def use(self, start: int, end: int | None = None) -> MachineInputs:
        """Someone uses the keyboard from ``start`` to ``end`` (a touch when None)."""
        self.uses.append((start, start if end is None else end))
        self.uses.sort()
        return self

    def keyboard_idle(self, t: int, idle: int) -> MachineInputs:
        """At ``t`` the keyboard has been idle ``idle`` seconds."""
        return self.use(t - idle)

    def set(self, t: int, name: str, value: object) -> MachineInputs:
        """``name`` is ``value`` from ``t`` on."""
        series = self.values.setdefault(name, [])
        series.append((t, value))
        series.sort(key=lambda item: item[0])
        return self

    def idle(self, t: int) -> int:
        index = bisect_right(self.uses, (t, float("inf")))
        if index == 0:
            return t - self.last_touch
        ended = max(end for _, end in self.uses[:index])
        return max(0, t - ended)

    def __call__(self, t: int) -> dict[str, object]:
        idle = self.idle(t)
        values: dict[str, object] = {
            "KeyboardIdle": idle,
            "ConsoleIdle": idle,
            "LoadAvg": 0.0,
            "CondorLoadAvg": 0.0,
            "ClockMin": (t // 60) % 1440,
            "ClockDay": (self.day0 + t // DAY) % 7,
        }
        for name, series in self.values.items():
            index = bisect_right([start for start, _ in series], t)
            if index:
                values[name] = series[index - 1][1]
        return values
