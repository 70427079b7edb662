"""A percentage on standard error for the simulator benchmarks, printed when it changes."""

from __future__ import annotations

import sys

_shown: list[int] = [-1]


def show(done: float) -> None:
    """The simulator's progress callback: ``done`` runs from 0 to 1."""
    percent = int(done * 100)
    if percent != _shown[0]:
        _shown[0] = percent
        print(f"\r{percent:3d}%", end="", file=sys.stderr, flush=True)
