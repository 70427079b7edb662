"""Text made once per attribute: a piece (an ad's line, a JSON member) for each pair of
a name and an expression, kept by the expression's identity (expressions are immutable
and shared), so that the ads of one cluster or one slot, written again and again, make
only their new pieces. The name is part of the key: a plain value's expression is one
shared object (``0``, ``true``, this second's time), and kept by the expression alone
the many names of one value took each other's place."""

from __future__ import annotations

from collections.abc import Callable

from .ad import Expr

__all__ = ["KeptPieces"]

_KEPT = 100_000  # pieces kept before they are all forgotten


class KeptPieces:
    """``make(name, expr)``, kept by the name and the expression (which is held, so that
    its identity stays its own)."""

    __slots__ = ("_kept", "_make")

    def __init__(self, make: Callable[[str, Expr], str]) -> None:
        self._make = make
        self._kept: dict[tuple[str, int], tuple[Expr, str]] = {}

    def __call__(self, name: str, expr: Expr) -> str:
        found = self._kept.get((name, id(expr)))
        if found is None or found[0] is not expr:
            found = (expr, self._make(name, expr))  # whatever make raises, nothing kept
            if len(self._kept) >= _KEPT:
                self._kept.clear()
            self._kept[name, id(expr)] = found
        return found[1]
