"""Slot rows that no evaluation can tell apart, so that each is evaluated once.

A pool is made of many copies of a few kinds of machine: the negotiation headline's
100,000 slots hold a few hundred distinct combinations of the attributes a match reads,
and a cluster of identical nodes holds one. Rows belong to one class when every column
drawn on holds the same cell in each (the same tag and payload, the same expression
object where the cell is computed). The vector evaluator's value at a row depends only on
the job, the time and the cells it reads at that row, so the value it computes at one row
of a class (the class's representative) is its value at every row of the class.

Which columns an evaluation reads is known only afterwards (``VectorMatch.slot_read``):
the caller evaluates at the representatives, and when the evaluation read a column the
classes were not drawn on, draws them again on that column too (``refine``) and evaluates
again. An evaluation that read what column names do not describe (``VectorMatch.dynamic``)
is no evidence at all: the caller evaluates every row. Classes that are not much fewer
than the rows do not pay for themselves (``useful``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from .fallback import ScalarCells
from .table import SlotColumns

__all__ = ["RowClasses"]

_MOST = 0.25  # classes worth drawing: at most this fraction of the rows


class RowClasses:
    """The classes of ``rows`` (slot rows of ``columns``) on the columns ``key``."""

    def __init__(self, columns: SlotColumns, rows: np.ndarray) -> None:
        self.columns = columns
        self.rows = rows
        self.key: frozenset[str] = frozenset()
        self.ids = np.zeros(len(rows), np.int64)  # each row's class, by position in rows
        self.of_row = np.full(len(columns), -1, np.int64)  # each slot row's class (-1: none)
        self.of_row[rows] = 0
        self.reps = rows[:1]  # the first row of each class
        self.useful = len(rows) > 1

    def evaluate(
        self, vm: ScalarCells, rows: np.ndarray, compute: Callable[[np.ndarray], np.ndarray]
    ) -> np.ndarray:
        """``compute(rows)`` (one value per row, evaluated with ``vm``), computed at one
        row of each class where the classes hold for what it reads, else at every row."""
        while self.useful:
            mark, dynamic = len(vm.slot_log), vm.dynamic
            vm.dynamic = False
            cls = self.of_row[rows]
            present = np.zeros(len(self.reps), bool)
            present[cls] = True
            used = np.flatnonzero(present)
            value = compute(self.reps[used])
            read, unsure = set(vm.slot_log[mark:]), vm.dynamic
            vm.dynamic = dynamic or unsure
            if unsure:
                self.useful = False  # reads more than names say: no classes will do
            elif read <= self.key:
                position = np.zeros(len(self.reps), np.int64)
                position[used] = np.arange(len(used))
                return value[position[cls]]
            else:
                self.refine(read)
        return compute(rows)

    def refine(self, names: Iterable[str]) -> None:
        """Draw the classes on ``names`` too."""
        added = sorted(set(names) - self.key)
        if not added or not self.useful:
            return
        self.key |= set(added)
        ids = self.ids
        for name in added:
            for lane in _lanes(self.columns, name, self.rows):
                ids = _combine(ids, lane)
        count = int(ids.max()) + 1 if len(ids) else 0
        if count > _MOST * len(self.rows):
            self.useful = False
            return
        self.ids = ids
        self.of_row[self.rows] = ids
        _, first = np.unique(ids, return_index=True)
        self.reps = self.rows[first]


def _lanes(columns: SlotColumns, name: str, rows: np.ndarray) -> list[np.ndarray]:
    """What tells cells of a column apart: tag, payloads (reals bit for bit), the
    expression group, and the identity of any object cell."""
    column = columns.column(name)
    cells = column.cells
    lanes = [cells.tag[rows], cells.i[rows], cells.f[rows].view(np.int64), column.group[rows]]
    if cells.x is not None:
        lanes.append(np.array([id(x) for x in cells.x[rows]], np.int64))
    return lanes


def _combine(ids: np.ndarray, lane: np.ndarray) -> np.ndarray:
    """Class ids told apart by ``lane`` too, numbered from 0 in order of the pairs."""
    _, codes = np.unique(lane, return_inverse=True)
    pairs = ids * (int(codes.max()) + 1 if len(codes) else 1) + codes
    return np.unique(pairs, return_inverse=True)[1].astype(np.int64)
