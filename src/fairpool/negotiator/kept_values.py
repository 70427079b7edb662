"""The vector matcher's values at free slots, kept from one cycle to the next.

In a big, busy pool a cycle sees the same free slots as the one before, but for the few
dozen just freed and the few dozen just claimed, and evaluating an autocluster over them
costs the same whether one row or a thousand changed (the cost of a vector evaluation is
in walking the expressions, not in the rows). An autocluster's values at an unclaimed row
(both Requirements, and the pre, job and post ranks) depend only on the job's values that
the evaluation read, on the row's cells in the columns it read, and on the time when it
read the clock (classad/vector/evaluate.py); so they are kept, per autocluster:

* by row stamp (classad/vector/table.py): a row that kept its stamp kept its cells;
* by content, for rows stamped afresh (a slot just freed): a row whose cells in every
  column the kept evaluations read are the same expressions as those of a row evaluated
  before has that row's values (the argument of classad/vector/classes.py: the same cells
  where an evaluation reads give the same evaluation). A row whose slot the ledger read
  by its shape (``Slot.shape``, slot_shapes.py) is known by that shape instead, when the
  columns read are none of the names slots of one shape differ in (nor a cycle's
  annotation of a slot): ads of one shape hold the same syntax trees there, and the
  shape is found without reading the ad (in a big pool, mostly out of the CPU's caches:
  reading the cells of each fresh row was a twentieth of the month story's time).

They are found again only for a job with the same values where the evaluations read
(``job_token``), under the same configuration, and, when the clock was read, at the same
time. What the within-cycle cache would not keep (names set per submitter, reads that
names do not describe) is not kept either; claimed rows (slot RANK and PREEMPTION_RANK,
read with the cycle's annotations) are evaluated at every cycle. An autocluster that no
cycle evaluates for a cycle loses its values, which bounds what is held.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..classad import ClassAd
from ..classad.vector import SlotColumns
from ..classad.vector.fallback import job_token
from .ephemeral import is_slot_annotation
from .params import NegotiatorParams
from .slot_shapes import VOLATILE

__all__ = ["KeptValues", "Values"]

WIDTH = 4  # a row's values: both Requirements met (0 or 1), pre, job and post rank
_CONTENT_ROWS = 64  # rows of one evaluation whose contents are kept (the first ones)
_CONTENTS = 4096  # contents kept per autocluster at most
_LOOKUPS = 256  # rows at most looked up by content (one at a time) in a lookup


@dataclass(eq=False)
class Values:
    """One autocluster's values at unclaimed rows (see the module docstring)."""

    read: dict[str, Any]  # job attribute -> job_token, where the evaluations read
    when: float | None  # the time they read, if they read the clock
    slot_read: tuple[str, ...]  # the columns they read, sorted
    stamps: np.ndarray  # sorted
    table: np.ndarray  # (len(stamps), WIDTH), in stamp order
    contents: dict[tuple, tuple[np.ndarray, tuple]] = field(default_factory=dict)

    def lookup(
        self, columns: SlotColumns, rows: np.ndarray, shapes: Sequence[object | None] = ()
    ) -> tuple[np.ndarray, np.ndarray]:
        """(which rows have values, their values) for column rows ``rows``; ``shapes``:
        each column row's ``Slot.shape`` (none given: every row is read)."""
        stamps = columns.stamps[rows]
        table = np.zeros((len(rows), WIDTH))
        if not len(self.stamps):
            return np.zeros(len(rows), bool), table
        at = np.minimum(np.searchsorted(self.stamps, stamps), len(self.stamps) - 1)
        found = self.stamps[at] == stamps
        table[found] = self.table[at[found]]
        missing = np.flatnonzero(~found)
        if 0 < len(missing) <= _LOOKUPS and self.contents:  # more: evaluated, for less
            keys = _contents(columns, self.slot_read, rows[missing], shapes)
            for k, (key, _) in zip(missing.tolist(), keys, strict=True):
                kept = self.contents.get(key)
                if kept is not None:
                    found[k] = True
                    table[k] = kept[0]
        return found, table


class KeptValues:
    """Every autocluster's ``Values`` for one configuration, from the last cycles."""

    def __init__(self, params: NegotiatorParams) -> None:
        self.params = params  # held: values hold for this configuration only
        self.current: dict[int, Values] = {}  # evaluated this cycle
        self.previous: dict[int, Values] = {}  # evaluated the cycle before

    @classmethod
    def of(cls, columns: SlotColumns, params: NegotiatorParams) -> KeptValues:
        """The values kept with ``columns`` for ``params``, a new cycle begun."""
        kept = columns.kept.get("lists")
        if not isinstance(kept, cls) or kept.params is not params:
            kept = columns.kept["lists"] = cls(params)
        kept.previous, kept.current = kept.current, {}
        return kept

    def find(self, autocluster: int, job: ClassAd, now: float) -> Values | None:
        """The autocluster's values, if they hold for ``job`` at ``now``."""
        found = self.current.get(autocluster) or self.previous.get(autocluster)
        if found is None or (found.when is not None and found.when != now):
            return None
        if any(job_token(job, name) != token for name, token in found.read.items()):
            return None
        return found

    def keep(
        self,
        autocluster: int,
        columns: SlotColumns,
        rows: np.ndarray,
        table: np.ndarray,
        evaluated: np.ndarray,
        read: Mapping[str, Any],
        slot_read: set[str],
        when: float | None,
        before: Values | None,
        shapes: Sequence[object | None] = (),
    ) -> None:
        """Keep the values ``table`` of column rows ``rows`` (``evaluated``: the positions
        just evaluated; the others came from ``before``). ``read``, ``slot_read`` and
        ``when``: what this cycle's evaluation read (``when``: None if not the clock)."""
        names = tuple(sorted(slot_read | set(before.slot_read if before else ())))
        if before is not None and before.when is not None:
            when = before.when
        order = np.argsort(columns.stamps[rows], kind="stable")
        values = Values(
            {**(before.read if before else {}), **read},
            when,
            names,
            columns.stamps[rows][order],
            table[order],
        )
        if before is not None and before.slot_read == names and len(before.contents) < _CONTENTS:
            values.contents = before.contents
        picked = evaluated[:_CONTENT_ROWS]
        keys = _contents(columns, names, rows[picked], shapes)
        for k, (key, held) in zip(picked.tolist(), keys, strict=True):
            values.contents.setdefault(key, (table[k].copy(), held))
        self.current[autocluster] = values


def _contents(
    columns: SlotColumns,
    names: tuple[str, ...],
    rows: np.ndarray,
    shapes: Sequence[object | None] = (),
) -> list[tuple[tuple, tuple]]:
    """Each row's cells in columns ``names``: (a key of their expressions' identities,
    the expressions, which held keep the identities from being given again). Read from
    the ads, which hold what the columns hold once they follow them (table.py); or the
    row's shape, when it has one and ``names`` are alike in every ad of a shape (a key
    of one item: never equal to a key of cells)."""
    found = []
    ads = columns.ads
    if not shapes or not _shared_by_shapes(names):
        shapes = ()
    for row in rows.tolist():
        shape = shapes[row] if shapes else None
        if shape is not None:
            found.append(((id(shape),), (shape,)))
            continue
        cells = tuple(map(ads[row]._exprs.get, names))
        found.append((tuple(map(id, cells)), cells))
    return found


def _shared_by_shapes(names: tuple[str, ...]) -> bool:
    """Whether slot ads of one shape hold the same trees in columns ``names``: none is
    volatile (what ads of a shape differ in) nor a cycle's annotation of a slot."""
    return VOLATILE.isdisjoint(names) and not any(map(is_slot_annotation, names))
