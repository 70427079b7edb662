"""An attribute's value for a cell: evaluated in its ad at the caller's ``now`` (never the
wall clock), and None when it is not of the kind the cell shows."""

from __future__ import annotations

from typing import Any

from ...classad import ClassAd

__all__ = ["number", "text"]


def number(ad: ClassAd, name: str, now: float) -> float | None:
    """A numeric attribute (booleans are not numbers here), or None."""
    value: Any = ad.eval(name, now=now)
    return value if type(value) in (int, float) else None


def text(ad: ClassAd, name: str, now: float) -> str | None:
    value = ad.eval(name, now=now)
    return value if type(value) is str else None
