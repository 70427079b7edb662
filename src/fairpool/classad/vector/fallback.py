"""The scalar path inside the vector evaluator: cells evaluated one at a time by the
compiled evaluator, in exactly the scope the scalar path would have, and what such an
evaluation may read of the job (so that the vector path knows when a value may be
reused for another job)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import compile as _compile
from ..ad import ClassAd, new_state
from ..builtins import FUNCTIONS
from ..nodes import AttrRef, Call, Node, Subscript, children
from ..scope import MATCH_SCOPE_NAMES, NOT_CONST, SPECIAL_NAMES, eval_attr
from ..values import UNDEFINED, Error
from .cells import Vec, vec_of
from .table import Column, SlotColumns

__all__ = ["JOB", "SLOT", "ScalarCells", "Whole", "job_token"]

SLOT, JOB = 0, 1


def job_token(job: ClassAd, lname: str) -> Any:
    """What an evaluation can observe of a job attribute: absent, a literal (by type and
    value, reals bit for bit), or the expression itself (what it reads is logged apart)."""
    expr = job._exprs.get(lname)
    if expr is None:
        return None
    const = expr.const
    if const is NOT_CONST:
        return id(expr), expr  # by identity; holding it keeps the id from being reused
    return float.hex(const) if type(const) is float else (type(const), const)


def _busy(ad: ClassAd, lname: str) -> tuple[int, int]:
    """The scalar path's mark of attribute ``lname`` of ``ad`` being evaluated."""
    return id(ad), id(ad._exprs[lname])


class Whole(Exception):
    """This evaluation goes to the scalar path as a whole."""


class ScalarCells:
    """The state of one job's evaluations against slot rows, and the scalar path."""

    def __init__(self, columns: SlotColumns, job: ClassAd, *, now: float) -> None:
        self.columns = columns
        self.job = job
        self.now = now
        self.strings = columns.strings
        self.my_is_slot = True
        self.read: set[str] = set()  # names looked up in the job
        self.log: list[str] = []  # names read from the job, in order (see _kept)
        self.unknown = 0  # reads of the job that ``log`` does not describe
        self.dynamic = False  # something was read that ``read`` does not describe
        self.slot_log: list[str] = []  # slot columns read, in order (classes.py)
        self.clock = False  # the time was read: a value holds for this ``now`` only

    def _column(self, lname: str) -> Column:
        """The slot column ``lname``, noted as read."""
        self.slot_log.append(lname)
        return self.columns.column(lname)

    def _whole(self) -> None:
        """The scalar path reads what it likes of the job: nothing of this evaluation
        may be reused for another job."""
        self.dynamic = True
        self.unknown += 1

    def _pair(self, row: int) -> tuple[ClassAd, ClassAd]:
        slot = self.columns.ads[row]
        return (slot, self.job) if self.my_is_slot else (self.job, slot)

    def _scalar_attribute(self, lname: str, row: int) -> Any:
        my, target = self._pair(row)
        expr = my._exprs.get(lname)
        if expr is None:
            return UNDEFINED
        st = new_state(_compile.run, my, target, self.now)
        try:
            return eval_attr(st, my, expr)
        except RecursionError:
            return Error("expression nests too deeply")

    # -- the scalar path, cell by cell -----------------------------------------------
    def _cells(self, node: Node, rows: np.ndarray, side: int, stack: tuple) -> Vec:
        """``node`` for each row by the compiled evaluator, in the same scope and with
        the same attributes busy as the scalar path would have."""
        self.unknown += 1  # the scalar path has the job in scope
        self._scan(node, rows, None)
        job, run, values = self.job, _compile.run, []
        for row in rows:
            slot = self.columns.ads[row]
            my, target = (slot, job) if self.my_is_slot else (job, slot)
            st = new_state(run, my, target, self.now)
            st.ad = slot if side == SLOT else job
            st.depth = len(stack)
            st.busy = {_busy(slot if s == SLOT else job, lname) for s, _, lname in stack}
            try:
                values.append(run(node, st))
            except RecursionError:
                raise Whole from None
        return vec_of(values, self.strings)

    def _reads(self, lname: str) -> None:
        self.read.add(lname)
        self.log.append(lname)

    def _scan(self, node: Node, rows: np.ndarray, parent: Node | None) -> None:
        """What a subtree left to the scalar path may read: its names go to ``read``;
        ``dynamic`` when it may read more (an attribute that is an expression, a
        subscript, a scope used as a value, a function that reads expressions)."""
        kind = type(node)
        if kind is Subscript:
            self.dynamic = True
        elif kind is Call:
            spec = FUNCTIONS.get(node.lname)
            if spec is not None and node.lname not in ("time", "ifthenelse"):
                self.dynamic = self.dynamic or spec.lazy or not spec.pure
            self.clock = self.clock or node.lname == "time"
        elif kind is AttrRef:
            lname = node.lname
            if lname in SPECIAL_NAMES or lname in MATCH_SCOPE_NAMES:
                scope_of_select = type(parent) is AttrRef and parent.scope is node
                self.dynamic = self.dynamic or not scope_of_select
            else:
                self._reads(lname)
                expr = self.job._exprs.get(lname)
                if expr is not None and expr.const is NOT_CONST:
                    self.dynamic = True
                if bool((self._column(lname).group[rows] >= 0).any()):
                    self.dynamic = True
        for child in children(node):
            self._scan(child, rows, node)
