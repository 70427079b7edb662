"""Which row each slot name held at the last sync (SlotColumns.sync), found with numpy.

A sync must find every slot of the new list again by its ``Name``. Building a dict of a
thousand names and looking each one up, at every cycle, was a good part of what a cycle
of a big pool costs in Python. Here each name gets a small number the first time it is
seen, and an array maps each number to its row at the last sync; a sync then costs one
C-level pass of dict lookups and a few array operations. A name given twice keeps its
last row, as a dict built row by row would. The numbers are given again from scratch
when names that left make up most of them, so they stay bounded by the pool's size.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import repeat

import numpy as np

__all__ = ["RowNames"]

_SLACK = 4  # numbers kept for at most this many times the rows (and 1,024)


class RowNames:
    """The rows of the last sync's names (None: a slot without a literal Name)."""

    def __init__(self, names: Sequence[str | None] = ()) -> None:
        self._ids: dict[str, int] = {}
        self._rows = np.zeros(0, np.int64)  # number -> row at the last sync (-1: absent)
        self._numbers = np.zeros(0, np.int64)  # row -> number (-1: no name)
        self.follow(names)

    def follow(self, names: Sequence[str | None]) -> np.ndarray:
        """The next sync's names: each one's row at the last sync (-1: not there)."""
        numbers = self._number(names)
        rows = self._rows
        if len(rows) < len(self._ids):
            rows = np.concatenate([rows, np.full(len(self._ids) - len(rows), -1, np.int64)])
        old = np.where(numbers >= 0, rows[np.maximum(numbers, 0)], -1) if len(rows) else numbers
        rows[self._numbers[self._numbers >= 0]] = -1
        named = np.flatnonzero(numbers >= 0)
        np.maximum.at(rows, numbers[named], named)  # a name twice: its last row
        self._rows, self._numbers = rows, numbers
        if len(self._ids) > _SLACK * max(len(names), 1024):
            self._renumber(names)
        return old

    def rows_of(self, names: Iterable[str]) -> list[int]:
        """The rows (at the last sync) of those of ``names`` that were there."""
        ids, rows = self._ids, self._rows
        found = (rows[k] for k in map(ids.get, names, repeat(-1)) if 0 <= k < len(rows))
        return [int(row) for row in found if row >= 0]

    def _number(self, names: Sequence[str | None]) -> np.ndarray:
        ids = self._ids
        numbers = np.fromiter(map(ids.get, names, repeat(-1)), np.int64, len(names))
        for k in np.flatnonzero(numbers < 0).tolist():
            name = names[k]
            if name is not None:
                numbers[k] = ids.setdefault(name, len(ids))
        return numbers

    def _renumber(self, names: Sequence[str | None]) -> None:
        """Forget the numbers of names that left (the rows stay as they are)."""
        self._ids, self._rows, self._numbers = {}, np.zeros(0, np.int64), np.zeros(0, np.int64)
        self.follow(names)
