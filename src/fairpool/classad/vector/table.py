"""Slot ads as columns: one ``Column`` per attribute name, built when first read.

A column keeps, for every row, the expression the ad holds under that name (or None),
the constant cells of the rows whose expression is a literal, and for the other rows the
group of rows whose expressions share one syntax tree (ads read from files share the
parsed tree of equal text, so a pool's few START expressions make a few groups, each
evaluated once over its rows). ``sync`` takes the next cycle's ads, finds each slot
again by its ``Name`` and re-encodes only the cells whose expression changed, so columns
carry over from one cycle to the next.

Every row has a *stamp*, a number no other row state ever gets: a row is stamped afresh
when it is new, when its ad starts or stops being nested in another, or when one of its
cells may have changed (encoded again; with ``track``, also when its slot is marked or
its ad is another object). A value computed at a row from its cells (and nothing else
that changed) therefore holds while the row keeps its stamp, which is what lets an
evaluator keep values from one cycle to the next (``kept``) and find the rows to evaluate
again.

With ``track``, a column follows the rows only when it is next read: a sync logs how rows
moved, and a column read later follows every move logged since it was last read and
encodes again the rows stamped since (an evaluator that keeps its values reads few
columns in a cycle).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..ad import ClassAd, Expr
from ..scope import NOT_CONST
from .cells import StringTable, U, Vec, X, cell_of, is_vec, lanes
from .rownames import RowNames

__all__ = ["MEMO_CELLS", "Column", "Memo", "SlotColumns", "Variants"]

MEMO_CELLS = 24_000_000  # ~400 MiB of kept sub-expression values (17 bytes a cell)
_MOVES = 16  # tracked syncs logged at most before every column follows them


class Column:
    """One attribute across all rows."""

    def __init__(self, exprs: list[Expr | None], strings: StringTable) -> None:
        n = len(exprs)
        self.exprs = np.empty(n, object)  # each row's expression (None: no attribute)
        self.exprs[:] = exprs
        self.cells = Vec(np.full(n, U, np.int8), np.zeros(n, np.int64), np.zeros(n), None)
        self.present = np.zeros(n, bool)
        self.group = np.full(n, -1, np.int32)  # -1: a constant or no attribute
        self.groups: list[Expr] = []
        self._group_ids: dict[int, int] = {}
        for row, expr in enumerate(exprs):
            self._encode(row, expr, strings)

    def _encode(self, row: int, expr: Expr | None, strings: StringTable) -> None:
        self.present[row] = expr is not None
        self.group[row] = -1
        cells = self.cells
        cells.tag[row], cells.i[row], cells.f[row] = U, 0, 0.0
        if expr is None:
            return
        if expr.const is NOT_CONST:
            group = self._group_ids.get(id(expr.node))
            if group is None:  # the first of the expressions with this syntax tree
                group = self._group_ids[id(expr.node)] = len(self.groups)
                self.groups.append(expr)
            self.group[row] = group
            return
        tag, i, f, x = cell_of(expr.const, strings)
        cells.tag[row], cells.i[row], cells.f[row] = tag, i, f
        if tag == X:
            if cells.x is None:
                cells.x = np.empty(len(cells.tag), object)
            cells.x[row] = x

    def update(self, row: int, expr: Expr | None, strings: StringTable) -> bool:
        """Re-encode one row if its expression changed; True when it did."""
        if self.exprs[row] is expr:
            return False
        self.exprs[row] = expr
        self._encode(row, expr, strings)
        return True

    def remap(self, old_rows: np.ndarray, fresh: np.ndarray) -> None:
        """Rows in a new order: row k takes the cells of old row ``old_rows[k]``; rows
        ``fresh`` are new (their ``old_rows`` entry is any valid row), encoded as absent
        until ``update`` gives them their expression."""
        if not len(self.present):  # no rows before (a cycle with no slot to read)
            n = len(old_rows)
            self.cells = Vec(np.full(n, U, np.int8), np.zeros(n, np.int64), np.zeros(n), None)
            self.present = np.zeros(n, bool)
            self.group = np.full(n, -1, np.int32)
            self.exprs = np.full(n, None, object)
            return
        cells = self.cells
        self.cells = Vec(cells.tag[old_rows], cells.i[old_rows], cells.f[old_rows])
        if cells.x is not None:
            self.cells.x = cells.x[old_rows]
        self.present = self.present[old_rows]
        self.group = self.group[old_rows]
        self.exprs = self.exprs[old_rows]
        if len(fresh):
            cells = self.cells
            cells.tag[fresh], cells.i[fresh], cells.f[fresh] = U, 0, 0.0
            if cells.x is not None:
                cells.x[fresh] = None
            self.present[fresh] = False
            self.group[fresh] = -1
            self.exprs[fresh] = None

    def rows_by_group(self, rows: np.ndarray) -> list[tuple[Expr, np.ndarray]]:
        """The positions (into ``rows``) of each expression group, in group order."""
        if not self.groups:
            return []
        groups = self.group[rows]
        found = np.unique(groups[groups >= 0])
        return [(self.groups[g], np.flatnonzero(groups == g)) for g in found]


class Memo:
    """Values of one sub-expression at the rows done, for one set of job values."""

    def __init__(self, n: int) -> None:
        self.cells = Vec(np.full(n, U, np.int8), np.zeros(n, np.int64), np.zeros(n), None)
        self.done = np.zeros(n, bool)

    def keep(self, rows: np.ndarray, value: Any, strings: StringTable) -> None:
        tag, i, f, x = lanes(value, strings)
        cells = self.cells
        cells.tag[rows], cells.i[rows], cells.f[rows] = tag, i, f
        if x is not None:
            if cells.x is None:
                cells.x = np.empty(len(cells.tag), object)
            if is_vec(value):
                cells.x[rows] = x
            else:
                for row in rows:
                    cells.x[row] = x
        self.done[rows] = True


class Variants:
    """The memos of one sub-expression: by the job attributes it read, then by their
    values (fallback.job_token)."""

    def __init__(self, node: Any) -> None:
        self.node = node  # kept so that the id in the memo's key stays this node's
        self.by_names: dict[tuple[str, ...], dict[tuple, Memo]] = {}
        self.slot_names: set[str] = set()  # the slot columns its values read
        self.clock = False  # whether its values read the time


class SlotColumns:
    """A list of slot ads read column by column (see the module docstring)."""

    def __init__(self, ads: Sequence[ClassAd]) -> None:
        self.ads = list(ads)
        self.strings = StringTable()
        self.columns: dict[str, Column] = {}
        self.memo: dict[tuple, Variants] = {}  # see evaluate.VectorMatch._kept
        self.memo_cells = 0  # cells held by the memo, at most MEMO_CELLS
        self.nested = np.array([ad.parent is not None for ad in self.ads], bool)
        self.dirty: set[str] | None = None  # see track()
        # per evaluation named by classes.RowClasses: the columns it reads (None: its
        # classes did not pay), learnt in one cycle, used in the next
        self.class_keys: dict[str, frozenset[str] | None] = {}
        self._row_names = _names(self.ads)
        self._rows = RowNames(self._row_names)
        self._ad_ids = _ids(self.ads)
        self._stamped = 0
        self.stamps = self._fresh(len(self.ads))
        self.kept: dict[str, Any] = {}  # evaluators' values kept by stamp (their own key)
        self._moves: list[np.ndarray | None] = []  # tracked syncs: new row -> old row (-1: new)
        self._read_at: dict[str, tuple[int, int]] = {}  # column -> (moves, stamp) followed
        self._since: dict[int, np.ndarray | None] = {}  # _composed(_moves[k:]) by k

    def _fresh(self, n: int) -> np.ndarray:
        """``n`` stamps never given before."""
        self._stamped += n
        return np.arange(self._stamped - n + 1, self._stamped + 1, dtype=np.int64)

    def track(self) -> None:
        """The owner of the ads promises to ``mark`` every slot it changes in place: a
        ``sync`` then re-reads only those and new slots, not every cell."""
        self.dirty = set()

    def mark(self, names: Iterable[str]) -> None:
        """These slots (by ``Name``) changed in place since the last ``sync``."""
        if self.dirty is not None:
            self.dirty.update(names)

    def __len__(self) -> int:
        return len(self.ads)

    def column(self, lname: str) -> Column:
        """The column of attribute ``lname`` (lower-case), built on first use."""
        column = self.columns.get(lname)
        if column is None:
            exprs = [ad._exprs.get(lname) for ad in self.ads]
            column = self.columns[lname] = Column(exprs, self.strings)
        elif self._read_at[lname][0] != len(self._moves):
            self._follow(lname, column)
        self._read_at[lname] = (len(self._moves), self._stamped)
        return column

    def _follow(self, lname: str, column: Column) -> None:
        """Bring a column up to date with the syncs logged since it was last read."""
        moves, stamped = self._read_at[lname]
        if moves not in self._since:  # the columns read after a sync share the moves
            self._since[moves] = _composed(self._moves[moves:])
        source = self._since[moves]
        if source is not None:
            column.remap(np.maximum(source, 0), np.flatnonzero(source < 0))
        for row in np.flatnonzero(self.stamps > stamped).tolist():
            column.update(row, self.ads[row]._exprs.get(lname), self.strings)

    def remember(
        self,
        key: tuple,
        node: Any,
        names: tuple,
        tokens: tuple,
        rows: np.ndarray,
        value: Any,
        slot_names: Iterable[str] = (),
        clock: bool = False,
    ) -> None:
        """Keep a sub-expression's value at ``rows`` (VectorMatch._kept), within budget;
        ``slot_names``: the slot columns it read, ``clock``: whether it read the time
        (both given back with it)."""
        variants = self.memo.get(key)
        if variants is None or variants.node is not node:
            variants = self.memo[key] = Variants(node)
        variants.slot_names.update(slot_names)
        variants.clock = variants.clock or clock
        by_tokens = variants.by_names.setdefault(names, {})
        memo = by_tokens.get(tokens)
        if memo is None:
            if self.memo_cells + len(self.ads) > MEMO_CELLS:
                return
            memo = by_tokens[tokens] = Memo(len(self.ads))
            self.memo_cells += len(self.ads)
        memo.keep(rows, value, self.strings)

    def sync(self, ads: Sequence[ClassAd], names: list[str | None] | None = None) -> int:
        """Follow a new list of ads (the next cycle's pool); returns how many cells were
        encoded again (none with ``track``: columns are encoded when next read). A slot
        keeps its cells by its ``Name``; only the cells whose expression changed, and
        those of new slots, are encoded. ``names``: the ads' names when the caller has
        them already."""
        previous, previous_ids = self.ads, self._ad_ids
        names = _names(ads) if names is None else names
        self._row_names = names
        old_rows = self._rows.follow(names)
        found = old_rows[old_rows >= 0]
        if len(found) and np.bincount(found).max() > 1:
            old_rows[:] = -1  # a name twice: rows cannot be told apart
        self.ads = ads = list(ads)
        self._ad_ids = _ids(ads)
        nested = self.nested
        self.memo.clear()  # a new cycle: another time, other annotations
        self.memo_cells = 0
        changed = 0
        fresh = np.flatnonzero(old_rows < 0)
        if self.dirty is not None:
            dirty, self.dirty = self.dirty, set()
            # new rows, rows whose ad is another object, rows of slots marked (a name
            # given twice has no old row: its rows are new)
            other = old_rows < 0
            if len(previous):
                other |= previous_ids[np.maximum(old_rows, 0)] != self._ad_ids
            other[self._rows.rows_of(dirty)] = True
            stale: Iterable[int] = np.flatnonzero(other).tolist()
            # the rows kept are the same ads, unchanged: only the others are read again
            self.nested = (
                nested[np.maximum(old_rows, 0)] if len(nested) else np.zeros(len(ads), bool)
            )
            self.nested[stale] = [ads[row].parent is not None for row in stale]
        else:
            self.nested = np.array([ad.parent is not None for ad in ads], bool)
            stale = range(len(ads))
            moved = nested[np.maximum(old_rows, 0)] if len(nested) else self.nested
            renewed = fresh.tolist() + np.flatnonzero(moved != self.nested).tolist()
        unmoved = len(previous) == len(old_rows) and not len(fresh)
        unmoved = unmoved and bool((old_rows == np.arange(len(old_rows))).all())
        source = np.where(old_rows < 0, 0, old_rows)
        if not unmoved:
            self.stamps = self.stamps[source] if len(self.stamps) else self.stamps[:0]
        if self.dirty is not None:  # columns follow when read (see the module docstring)
            self._moves.append(None if unmoved else np.where(old_rows < 0, -1, source))
            self._since.clear()
            self._restamp(list(stale))
            if len(self._moves) > _MOVES:
                for lname in self.columns:
                    self.column(lname)
                self._moves.clear()
                self._since.clear()
                self._read_at = {n: (0, at) for n, (_, at) in self._read_at.items()}
            return 0
        # a row whose new ad has the same cells and nesting keeps its stamp
        touched = set(renewed)
        stale_exprs = [(row, ads[row]._exprs) for row in stale]
        for lname, column in self.columns.items():
            if not unmoved:
                column.remap(source, fresh)
            held = column.exprs.tolist()  # compared by identity first: most cells are kept
            for row, exprs in stale_exprs:
                expr = exprs.get(lname)
                if held[row] is not expr and column.update(row, expr, self.strings):
                    changed += 1
                    touched.add(row)
        self._restamp(sorted(touched))
        return changed

    def _restamp(self, rows: list[int]) -> None:
        if len(self.stamps) != len(self.ads):  # the first rows after none
            self.stamps = self._fresh(len(self.ads))
        elif rows:
            self.stamps[rows] = self._fresh(len(rows))

    def refresh(self, row: int) -> None:
        """Re-read one row after its ad changed in place."""
        ad = self.ads[row]
        self.memo.clear()
        self.memo_cells = 0
        self.nested[row] = ad.parent is not None
        for lname in self.columns:
            column = self.column(lname)
            column.update(row, ad._exprs.get(lname), self.strings)
        self._restamp([row])


def _composed(moves: list[np.ndarray | None]) -> np.ndarray | None:
    """Rows moved by several syncs in turn, as one move (None: no row moved)."""
    source: np.ndarray | None = None
    for move in moves:
        if move is None:
            continue
        if source is None:
            source = move
        elif len(source):
            source = np.where(move >= 0, source[np.clip(move, 0, len(source) - 1)], -1)
        else:
            source = np.full(len(move), -1, np.int64)
    return source


def _ids(ads: list[ClassAd]) -> np.ndarray:
    """Each ad object's identity (the ads are held, so no two live ones share one)."""
    return np.fromiter(map(id, ads), np.int64, len(ads))


def _names(ads: Sequence[ClassAd]) -> list[str | None]:
    """Each ad's ``Name`` when it is a literal string (how a slot is known again)."""
    names = []
    for ad in ads:
        expr = ad._exprs.get("name")
        names.append(expr.const if expr is not None and type(expr.const) is str else None)
    return names
