"""The ClassAd operators over columns, with the rules of operators.py cell by cell.

Each operator works on tagged cells: ERROR wins over UNDEFINED in the strict operators,
booleans are integers in arithmetic and comparison but not in ``=?=``, integers wrap at
64 bits, a real result of +infinity is ERROR, strings compare without case. Cells the
columns cannot decide cheaply and exactly (absolute and relative times, lists, ads,
ordering of strings, integer division at the edges) go through the scalar operator of
operators.py one cell at a time, so every result is the scalar one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..operators import BINARY, UNARY, truth
from ..values import UNDEFINED
from .cells import INT, B, E, R, S, StringTable, U, Vec, X, cell_of, is_vec, value_at

__all__ = ["binary", "logical", "truth_of", "unary"]

_INT_MIN = np.int64(-(1 << 63))
_ARITH = frozenset("+-*/%")
_COMPARE = frozenset(("<", "<=", ">", ">=", "==", "!="))


class _Out:
    """The cells of a result, filled by masks (vectorised) or one cell at a time."""

    def __init__(self, n: int, fill: int) -> None:
        self.tag = np.full(n, fill, np.int8)
        self.i = np.zeros(n, np.int64)
        self.f = np.zeros(n, np.float64)
        self.x: np.ndarray | None = None

    def put(self, k: int, value: Any, strings: StringTable) -> None:
        tag, i, f, x = cell_of(value, strings)
        self.tag[k], self.i[k], self.f[k] = tag, i, f
        if tag == X:
            if self.x is None:
                self.x = np.empty(len(self.tag), object)
            self.x[k] = x

    def cells(
        self, fn: Callable[..., Any], mask: np.ndarray, operands: tuple, strings: StringTable
    ) -> None:
        for k in np.flatnonzero(mask):
            self.put(k, fn(*(value_at(v, k, strings) for v in operands)), strings)

    def vec(self) -> Vec:
        return Vec(self.tag, self.i, self.f, self.x)


def _lanes(value: Any, n: int, strings: StringTable) -> tuple[Any, Any, Any]:
    """Tag, integer and real lanes of an operand, as arrays of ``n`` cells."""
    if is_vec(value):
        return value.tag, value.i, value.f
    tag, i, f, _ = cell_of(value, strings)
    return np.full(n, tag, np.int8), np.full(n, i, np.int64), np.full(n, f, np.float64)


def _numeric(tag: Any) -> Any:
    return (tag == B) | (tag == INT) | (tag == R)


def _as_real(tag: Any, i: Any, f: Any) -> Any:
    return np.where(tag == R, f, np.asarray(i, np.float64))


def binary(op: str, a: Any, b: Any, n: int, strings: StringTable) -> Any:
    """``a op b`` for a strict binary operator (everything but ``&&`` and ``||``)."""
    if not is_vec(a) and not is_vec(b):
        return BINARY[op](a, b)
    if op in ("is", "isnt"):
        return _identical(op, a, b, n, strings)
    ta, ia, fa = _lanes(a, n, strings)
    tb, ib, fb = _lanes(b, n, strings)
    err = (ta == E) | (tb == E)
    und = ((ta == U) | (tb == U)) & ~err
    out = _Out(n, E)
    out.tag[und] = U
    live = ~err & ~und
    objects = live & ((ta == X) | (tb == X))
    if op in _ARITH:
        _arith(op, out, live & ~objects, (ta, ia, fa), (tb, ib, fb), n)
    elif op in _COMPARE:
        _compare(op, out, live & ~objects, (ta, ia, fa), (tb, ib, fb), n, strings)
        out.cells(BINARY[op], out.tag == S, (a, b), strings)  # ordering of strings
    else:  # bitwise: rare in policies, done by the scalar operator
        objects = live
    out.cells(BINARY[op], objects, (a, b), strings)
    return out.vec()


def _arith(op: str, out: _Out, live: np.ndarray, a: tuple, b: tuple, n: int) -> None:
    (ta, ia, fa), (tb, ib, fb) = a, b
    both = live & (_numeric(ta) & _numeric(tb))
    ints = both & ((ta != R) & (tb != R))
    reals = both & ~ints
    x, y = ia, ib
    with np.errstate(all="ignore"):
        if op in "/%":
            edge = ints & ((y == 0) | (y == -1) | (x == _INT_MIN) | (y == _INT_MIN))
            _edge_ints(op, out, edge, x, y)
            ints = ints & ~edge
            safe = np.where(ints, y, 1)
            q = np.abs(x) // np.abs(safe) if op == "/" else np.abs(x) % np.abs(safe)
            negative = ((x < 0) != (safe < 0)) if op == "/" else (x < 0)
            value = np.where(negative, -q, q)
        else:
            value = x + y if op == "+" else x - y if op == "-" else x * y
        out.tag[ints] = INT
        out.i[ints] = value[ints]
        if op == "%":
            return  # a real remainder is ERROR, already there
        u, v = _as_real(ta, ia, fa), _as_real(tb, ib, fb)
        real = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[op](u, v)
        ok = reals & (real != np.inf)
        out.tag[ok] = R
        out.f[ok] = real[ok]


def _edge_ints(op: str, out: _Out, edge: np.ndarray, x: np.ndarray, y: np.ndarray) -> None:
    fn = BINARY[op]
    for k in np.flatnonzero(edge):
        value = fn(int(x[k]), int(y[k]))
        if type(value) is int:
            out.tag[k], out.i[k] = INT, value


def _compare(
    op: str, out: _Out, live: np.ndarray, a: tuple, b: tuple, n: int, strings: StringTable
) -> None:
    (ta, ia, fa), (tb, ib, fb) = a, b
    sa, sb = (ta == S), (tb == S)
    words = live & (sa | sb)
    pairs = words & sa & sb
    if op in ("==", "!=") and pairs.any():
        lower = strings.lower()
        same = lower[np.where(sa, ia, 0)] == lower[np.where(sb, ib, 0)]
        out.tag[pairs] = B
        out.i[pairs] = (same if op == "==" else ~same)[pairs]
    else:
        out.tag[pairs] = S  # marked for the scalar operator
    both = live & ~words & (_numeric(ta) & _numeric(tb))
    ints = (ta != R) & (tb != R)
    fn = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}
    fn |= {"==": np.equal, "!=": np.not_equal}
    by_int = fn[op](ia, ib)
    by_real = fn[op](_as_real(ta, ia, fa), _as_real(tb, ib, fb))
    out.tag[both] = B
    out.i[both] = np.where(ints, by_int, by_real)[both]


def _identical(op: str, a: Any, b: Any, n: int, strings: StringTable) -> Vec:
    ta, ia, fa = _lanes(a, n, strings)
    tb, ib, fb = _lanes(b, n, strings)
    objects = (ta == X) | (tb == X)
    same_type = ta == tb
    equal = np.where((ta == R), (fa == fb), (ia == ib))
    equal = equal | ((ta == U) | (ta == E))
    result = same_type & equal
    out = _Out(n, B)
    out.i[:] = result if op == "is" else ~result
    out.cells(BINARY[op], objects, (a, b), strings)
    return out.vec()


def truth_of(value: Any, n: int) -> Any:
    """Each cell as a condition: a boolean, UNDEFINED or ERROR (operators.truth)."""
    if not is_vec(value):
        return truth(value)
    tag = value.tag
    out = _Out(n, E)
    ints = (tag == B) | (tag == INT)
    out.tag[ints | (tag == R)] = B
    out.i[ints] = value.i[ints] != 0
    real = tag == R
    out.i[real] = value.f[real] != 0
    out.tag[tag == U] = U
    return out.vec()


def logical(op: str, operands: list[Callable[[np.ndarray], Any]], n: int) -> Any:
    """A chain ``a && b && ...`` (or ``||``), left to right: ``operands[k](positions)``
    evaluates operand k at the rows not yet decided, as operators.logical_and/or would
    (a false (true) operand or ERROR decides a row; UNDEFINED waits for a decider)."""
    decisive = int(op == "||")
    tag = np.full(n, B, np.int8)
    value = np.full(n, 1 - decisive, np.int64)  # the chain's identity: true for &&
    pending = np.arange(n)
    for operand in operands:
        y = truth_of(operand(pending), len(pending))
        ytag, yi = (y.tag, y.i) if is_vec(y) else _truth_cell(y)
        take = (tag[pending] == B) | (ytag == E) | ((ytag == B) & (yi == decisive))
        new_tag, new_value = np.where(take, ytag, U), np.where(take, yi, 0)
        tag[pending], value[pending] = new_tag, new_value
        pending = pending[(new_tag == U) | ((new_tag == B) & (new_value != decisive))]
        if len(pending) == 0:
            break
    return Vec(tag, value, np.zeros(n), None)


def _truth_cell(value: Any) -> tuple[int, int]:
    """(tag, i) of a truth value: True, False, UNDEFINED or ERROR."""
    if type(value) is bool:
        return B, int(value)
    return (U, 0) if value is UNDEFINED else (E, 0)


def unary(op: str, a: Any, n: int, strings: StringTable) -> Any:
    """``-a``, ``+a``, ``!a``, ``~a``."""
    if not is_vec(a):
        return UNARY[op](a)
    if op == "!":
        x = truth_of(a, n)
        x.i = np.where(x.tag == B, 1 - x.i, x.i)
        return x
    tag = a.tag
    out = _Out(n, E)
    out.tag[tag == U] = U
    ints, reals = tag == INT, tag == R
    with np.errstate(all="ignore"):
        if op == "-":
            out.i[ints], out.f[reals] = -a.i[ints], -a.f[reals]
        elif op == "~":
            out.i[ints] = ~a.i[ints]
            reals = np.zeros(n, bool)
        else:
            out.i[ints], out.f[reals] = a.i[ints], a.f[reals]
    out.tag[ints] = INT
    out.tag[reals] = R
    if op != "~":
        out.cells(UNARY[op], tag == X, (a,), strings)
    return out.vec()
