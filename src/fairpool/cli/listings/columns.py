"""The tables condor_q, condor_status and condor_history print: columns one space apart.

Every column is as wide as the widest of its least width, its heading and its cells: the
tools widen a column for a long value rather than cut it (the few columns they cut, such
as condor_q's 14-character OWNER, are cut by the layout before the table sees them).
Cells are aligned left or right; a heading follows its column's alignment unless the
column says otherwise (condor_q's SIZE heading starts at the left edge of a right-aligned
column). The last column is not padded when it is left-aligned, so no line ends in blanks
(condor_q's CMD and JOB_IDS, condor_status's Name in ``-any``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Column", "table"]


@dataclass(frozen=True)
class Column:
    heading: str
    right: bool = False
    width: int = 0  # the least width
    heading_left: bool = False  # a right-aligned column whose heading is left-aligned


def table(columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> list[str]:
    """The heading line and one line per row."""
    widths = [
        max(column.width, len(column.heading), *(len(row[i]) for row in rows))
        for i, column in enumerate(columns)
    ]
    heading_right = [c.right and not c.heading_left for c in columns]
    lines = [_line([c.heading for c in columns], widths, heading_right)]
    right = [c.right for c in columns]
    lines.extend(_line(row, widths, right) for row in rows)
    return lines


def _line(cells: Sequence[str], widths: Sequence[int], right: Sequence[bool]) -> str:
    padded = [
        cell.rjust(width) if to_right else cell.ljust(width)
        for cell, width, to_right in zip(cells, widths, right, strict=True)
    ]
    if cells and not right[-1]:
        padded[-1] = cells[-1]  # a left-aligned last column is not padded
    return " ".join(padded)
