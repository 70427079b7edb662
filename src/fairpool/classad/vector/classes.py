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
_FEW = 1000  # fewer rows than this are evaluated as they are: classes would not pay
_MIX = np.uint64(0x9E3779B97F4A7C15)


class RowClasses:
    """The classes of ``rows`` (slot rows of ``columns``) on the columns ``key``.

    ``stage`` names what is evaluated: the columns it was seen to read are kept in
    ``columns.class_keys`` (with the columns, from cycle to cycle), so that the next
    cycle draws its classes on them at once."""

    def __init__(self, columns: SlotColumns, rows: np.ndarray, stage: str) -> None:
        self.columns = columns
        self.rows = rows
        self.stage = stage
        self.key: frozenset[str] = frozenset()
        self.of_row = np.full(len(columns), -1, np.int64)  # each slot row's class (-1: none)
        self.of_row[rows] = 0
        self.reps = rows[:1]  # the first row of each class
        known = columns.class_keys.get(stage, frozenset())
        self.useful = len(rows) >= _FEW and known is not None
        if self.useful and known:
            self.refine(known)

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
        key = self.key | set(names)
        if key == self.key or not self.useful:
            return
        self.key = frozenset(key)
        ids = _classes([lane for n in sorted(key) for lane in _lanes(self.columns, n, self.rows)])
        count = int(ids.max()) + 1 if len(ids) else 0
        self.useful = count <= _MOST * len(self.rows)
        self.columns.class_keys[self.stage] = self.key if self.useful else None
        if self.useful:
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


def _classes(lanes: list[np.ndarray]) -> np.ndarray:
    """Class ids of rows equal in every lane, numbered from 0: rows by a hash of their
    lanes, checked lane by lane (a collision is told apart lane by lane, exactly)."""
    n = len(lanes[0])
    mixed = np.zeros(n, np.uint64)
    with np.errstate(over="ignore"):
        for lane in lanes:
            mixed = (mixed ^ lane.astype(np.uint64)) * _MIX
            mixed ^= mixed >> np.uint64(29)
    _, first, ids = np.unique(mixed, return_index=True, return_inverse=True)
    ids = ids.reshape(-1).astype(np.int64)
    if all((lane[first][ids] == lane).all() for lane in lanes):
        return ids
    for lane in lanes:  # a collision: exact, one lane at a time
        _, codes = np.unique(lane, return_inverse=True)
        pairs = ids * (int(codes.max()) + 1) + codes.reshape(-1)
        ids = np.unique(pairs, return_inverse=True)[1].reshape(-1).astype(np.int64)
    return ids
