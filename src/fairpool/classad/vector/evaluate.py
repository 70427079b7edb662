"""The vector evaluator: one job ad matched against many slot rows at once (DESIGN §5).

``VectorMatch(columns, job, now=...)`` evaluates an expression, or an attribute of one of
the two ads, for a set of slot rows, with the job as the other ad of the match. It walks
the same syntax tree as interpret.py and compile.py and gives, cell for cell, the value
they give (``MY``/``TARGET``/unscoped names with the fall-back to the other ad, the
operators of ops.py, ``?:``, ``ifThenElse``, the ``is*`` type tests). A value that does not
depend on the slot stays one Python value. Whatever it does not vectorise (other
functions, subscripts, special and absolute names, lists and ads) is evaluated for each
row by the compiled scalar evaluator in exactly the scope the scalar path would have, with
the attributes being evaluated marked busy; a circular reference, deep nesting or a slot
ad nested in another sends the whole evaluation to the scalar path.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ad import Expr
from ..builtins import FUNCTIONS, arity_ok
from ..dependence import own_only
from ..match import evaluate as scalar_evaluate
from ..nodes import (
    AttrRef,
    Binary,
    Call,
    Cond,
    Elvis,
    Literal,
    Node,
    Paren,
    Unary,
)
from ..scope import MATCH_SCOPE_NAMES, NOT_CONST, SPECIAL_NAMES
from ..values import ERROR, UNDEFINED
from .cells import INT, B, E, R, S, U, Vec, assemble, is_vec, value_at, vec_of
from .fallback import JOB, SLOT, ScalarCells, Whole, job_token
from .ops import binary, logical, truth_of, unary
from .table import Column

__all__ = ["VectorMatch"]

_MAX_STACK = 100  # deeper chains of attributes go to the scalar path (MAX_DEPTH is 120)
_TYPE_TESTS = {"isundefined": U, "iserror": E, "isstring": S, "isinteger": INT, "isreal": R}
_TYPE_TESTS["isboolean"] = B
_SCOPES = ("my", "target", "other")
_KEPT = (Binary, Unary, Cond, Elvis, Call)


def _chain(node: Node, op: str) -> list[Node]:
    """The operands of ``a && b && (c && d)``: associative under ClassAd's three-valued
    logic (compile.py chains them the same way)."""
    inner = node
    while type(inner) is Paren:
        inner = inner.inner
    if type(inner) is Binary and inner.op == op:
        return _chain(inner.left, op) + _chain(inner.right, op)
    return [node]


class VectorMatch(ScalarCells):
    """Evaluations of one job against slot rows of ``columns`` (see the module docstring)."""

    def attribute(self, name: str, rows: np.ndarray, *, my_is_slot: bool) -> Any:
        """The value of MY's own attribute ``name`` (UNDEFINED when MY has none), MY
        being the slot of each row or the job: one value per row, or one for all."""
        lname = name.lower()
        self.my_is_slot = my_is_slot
        side = SLOT if my_is_slot else JOB
        try:
            self._check(rows)
            return self._own(lname, rows, side, ())
        except Whole:
            self._whole()
            return vec_of([self._scalar_attribute(lname, r) for r in rows], self.strings)

    def expression(self, expr: Expr, rows: np.ndarray, *, my_is_slot: bool) -> Any:
        """The value of ``expr`` written in MY (the slot or the job), matched with the other."""
        self.my_is_slot = my_is_slot
        side = SLOT if my_is_slot else JOB
        try:
            self._check(rows)
            return self._ev(expr.node, rows, side, ())
        except Whole:
            self._whole()
            values = [scalar_evaluate(expr, *self._pair(r), now=self.now) for r in rows]
            return vec_of(values, self.strings)

    def _check(self, rows: np.ndarray) -> None:
        if self.job.parent is not None or self.columns.nested[rows].any():
            raise Whole

    # -- the tree walk ---------------------------------------------------------------
    def _ev(self, node: Node, rows: np.ndarray, side: int, stack: tuple) -> Any:
        kind = type(node)
        if kind is Literal:
            return node.value
        if kind is Paren:
            return self._ev(node.inner, rows, side, stack)
        if kind is AttrRef:
            return self._reference(node, rows, side, stack)
        if kind in _KEPT:
            return self._kept(node, rows, side, stack)
        return self._computed(node, rows, side, stack)

    def _kept(self, node: Node, rows: np.ndarray, side: int, stack: tuple) -> Any:
        """A sub-expression's value depends on the slot rows and on the job attributes
        it read, nothing else: kept in the columns' memo under those attributes' values
        and reused for another job that has the same values (``job_token``)."""
        key = (id(node), side, self.my_is_slot, stack)
        variants = self.columns.memo.get(key)
        if variants is not None and variants.node is node:
            for names, by_tokens in variants.by_names.items():
                memo = by_tokens.get(tuple(job_token(self.job, n) for n in names))
                if memo is not None and memo.done[rows].all():
                    for name in names:
                        self._reads(name)
                    self.slot_log += variants.slot_names
                    self.clock = self.clock or variants.clock
                    return memo.cells.take(rows)
        mark, unknown, slot_mark = len(self.log), self.unknown, len(self.slot_log)
        clock, self.clock = self.clock, False
        value = self._computed(node, rows, side, stack)
        clock, self.clock = self.clock, clock or self.clock
        if self.unknown == unknown:
            names = tuple(sorted(set(self.log[mark:])))
            tokens = tuple(job_token(self.job, n) for n in names)
            read = self.slot_log[slot_mark:]
            self.columns.remember(key, node, names, tokens, rows, value, read, clock)
        return value

    def _computed(self, node: Node, rows: np.ndarray, side: int, stack: tuple) -> Any:
        kind = type(node)
        if kind is Binary:
            return self._binary(node, rows, side, stack)
        if kind is Unary:
            return unary(
                node.op, self._ev(node.operand, rows, side, stack), len(rows), self.strings
            )
        if kind is Cond:
            return self._choose(node.cond, node.then, node.other, rows, side, stack)
        if kind is Elvis:
            return self._elvis(node, rows, side, stack)
        if kind is Call:
            return self._call(node, rows, side, stack)
        return self._per_row(node, rows, side, stack)

    def _per_row(self, node: Node, rows: np.ndarray, side: int, stack: tuple) -> Any:
        """The scalar path for ``node``: once for all rows when it reads nothing of the
        slot (a job's ``MAX({1024, TransferInputSizeMB * 1.25})``), else row by row."""
        if len(rows) > 1 and side == JOB and own_only(node, self.job, other=True, clock=False):
            return value_at(self._cells(node, rows[:1], side, stack), 0, self.strings)
        return self._cells(node, rows, side, stack)

    def _binary(self, node: Binary, rows: np.ndarray, side: int, stack: tuple) -> Any:
        op, n = node.op, len(rows)
        if op == "&&" or op == "||":
            operands = [self._operand(part, rows, side, stack) for part in _chain(node, op)]
            return logical(op, operands, n)
        left = self._ev(node.left, rows, side, stack)
        return binary(op, left, self._ev(node.right, rows, side, stack), n, self.strings)

    def _operand(self, node: Node, rows: np.ndarray, side: int, stack: tuple) -> Any:
        return lambda pos: self._ev(node, rows[pos], side, stack)

    def _choose(
        self, cond: Node, then: Node, other: Node, rows: np.ndarray, side: int, stack: tuple
    ) -> Any:
        test = truth_of(self._ev(cond, rows, side, stack), len(rows))
        if not is_vec(test):
            if test is True:
                return self._ev(then, rows, side, stack)
            return self._ev(other, rows, side, stack) if test is False else test
        parts: list[tuple[np.ndarray, Any]] = [(np.arange(len(rows)), test)]
        for branch, wanted in ((then, 1), (other, 0)):
            pos = np.flatnonzero((test.tag == B) & (test.i == wanted))
            if len(pos):
                parts.append((pos, self._ev(branch, rows[pos], side, stack)))
        return assemble(len(rows), parts, self.strings)

    def _elvis(self, node: Elvis, rows: np.ndarray, side: int, stack: tuple) -> Any:
        left = self._ev(node.left, rows, side, stack)
        if not is_vec(left):
            return self._ev(node.right, rows, side, stack) if left is UNDEFINED else left
        pos = np.flatnonzero(left.tag == U)
        if len(pos) == 0:
            return left
        right = self._ev(node.right, rows[pos], side, stack)
        return assemble(len(rows), [(np.arange(len(rows)), left), (pos, right)], self.strings)

    def _call(self, node: Call, rows: np.ndarray, side: int, stack: tuple) -> Any:
        spec = FUNCTIONS.get(node.lname)
        if spec is None or not arity_ok(spec, len(node.args)):
            return ERROR
        if node.lname == "ifthenelse":
            return self._choose(*node.args, rows, side, stack)
        if node.lname == "time":
            self.clock = True
            return int(self.now)
        wanted = _TYPE_TESTS.get(node.lname)
        if wanted is not None:
            value = self._ev(node.args[0], rows, side, stack)
            if not is_vec(value):
                return spec.fn(None, [value])
            return Vec(
                np.full(len(rows), B, np.int8),
                (value.tag == wanted).astype(np.int64),
                np.zeros(len(rows)),
                None,
            )
        if spec.pure and not spec.lazy:
            args = [self._ev(arg, rows, side, stack) for arg in node.args]
            if len(rows) and not any(is_vec(a) for a in args):  # the same for every row
                return value_at(self._cells(node, rows[:1], side, stack), 0, self.strings)
        return self._per_row(node, rows, side, stack)

    # -- names -----------------------------------------------------------------------
    def _reference(self, node: AttrRef, rows: np.ndarray, side: int, stack: tuple) -> Any:
        lname = node.lname
        scope = node.scope
        if lname == "currenttime" and scope is None and not node.absolute:
            return self._current_time(rows, side, stack)
        if node.absolute or lname in SPECIAL_NAMES or lname in MATCH_SCOPE_NAMES:
            return self._cells(node, rows, side, stack)
        if scope is None:
            return self._name(lname, rows, side, stack)
        if (
            type(scope) is not AttrRef
            or scope.scope is not None
            or scope.absolute
            or scope.lname not in _SCOPES
            or self._has(scope.lname, rows, side)
        ):
            return self._cells(node, rows, side, stack)
        return self._own(lname, rows, side if scope.lname == "my" else 1 - side, stack)

    def _current_time(self, rows: np.ndarray, side: int, stack: tuple) -> Any:
        """``CurrentTime``: the ad's own attribute of that name, else the time."""
        if self._has("currenttime", rows, side):
            return self._cells(AttrRef("CurrentTime"), rows, side, stack)
        self.clock = True
        return int(self.now)

    def _has(self, lname: str, rows: np.ndarray, side: int) -> bool:
        if side == JOB:
            self._reads(lname)
            return lname in self.job._exprs
        return bool(self._column(lname).present[rows].any())

    def _name(self, lname: str, rows: np.ndarray, side: int, stack: tuple) -> Any:
        """An unscoped name: the current ad's, else the other ad's."""
        if side == JOB:
            self._reads(lname)
            if lname in self.job._exprs:
                return self._own(lname, rows, JOB, stack)
            return self._own(lname, rows, SLOT, stack)
        column = self._column(lname)
        present = column.present[rows]
        if present.all():
            return self._slot_values(column, rows, stack, lname)
        absent = np.flatnonzero(~present)
        parts = [(absent, self._own(lname, rows[absent], JOB, stack))]
        held = np.flatnonzero(present)
        if len(held):
            parts.append((held, self._slot_values(column, rows[held], stack, lname)))
        return assemble(len(rows), parts, self.strings)

    def _own(self, lname: str, rows: np.ndarray, side: int, stack: tuple) -> Any:
        """An ad's own attribute, UNDEFINED where it has none."""
        if side == SLOT:
            return self._slot_values(self._column(lname), rows, stack, lname)
        self._reads(lname)
        expr = self.job._exprs.get(lname)
        if expr is None:
            return UNDEFINED
        if expr.const is not NOT_CONST:
            return expr.const
        return self._inside(JOB, expr, rows, stack, lname)

    def _slot_values(self, column: Column, rows: np.ndarray, stack: tuple, lname: str) -> Any:
        cells = column.cells.take(rows)
        groups = column.rows_by_group(rows)
        if not groups:
            return cells
        parts: list[tuple[np.ndarray, Any]] = [(np.arange(len(rows)), cells)]
        for expr, pos in groups:
            parts.append((pos, self._inside(SLOT, expr, rows[pos], stack, lname)))
        return assemble(len(rows), parts, self.strings)

    def _inside(self, side: int, expr: Expr, rows: np.ndarray, stack: tuple, lname: str) -> Any:
        """Attribute ``lname``'s expression, evaluated in the ad that holds it. ``expr``
        stands for every row's own expression with its syntax tree (table.Column); the
        stack holds (side, tree, name) of the attributes being evaluated."""
        node = expr.node
        if any(s == side and n == id(node) for s, n, _ in stack) or len(stack) >= _MAX_STACK:
            raise Whole  # maybe a circular reference: the scalar path has the rules for it
        return self._ev(node, rows, side, (*stack, (side, id(node), lname)))
