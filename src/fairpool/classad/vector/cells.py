"""Many ClassAd values at once: a type tag per cell and numpy arrays for the payloads.

A ``Vec`` holds one value per row of a slot column. Its ``tag`` says what each cell is;
the payload sits in ``i`` (booleans as 0/1, integers, string codes) or ``f`` (reals), and
anything the columns cannot hold (absolute and relative times, lists, ads) stays a Python
object in ``x``, to be handled cell by cell by the scalar operators. A value that is the
same for every row (a literal, an attribute of the job being matched) is kept as the plain
Python value: ``Operand = Vec | Any``.

Strings are interned in a ``StringTable``: equal strings share a code, so ``=?=`` compares
codes, and every code knows the code of its ASCII-lower-cased form, so ``==`` compares
those (the library's ``strcasecmp``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..values import ERROR, UNDEFINED, Error, ascii_lower

__all__ = [
    "INT",
    "B",
    "E",
    "R",
    "S",
    "StringTable",
    "U",
    "Vec",
    "X",
    "assemble",
    "cell_of",
    "is_vec",
    "lanes",
    "value_at",
    "vec_of",
]

U, E, B, INT, R, S, X = range(7)  # undefined, error, boolean, integer, real, string, other
_I64, _F64, _TAG = np.int64, np.float64, np.int8


class StringTable:
    """Interned byte strings (latin-1 ``str``), each with the code of its lower-cased form."""

    def __init__(self) -> None:
        self._codes: dict[str, int] = {}
        self.strings: list[str] = []
        self._lower: list[int] = []
        self._lower_array = np.zeros(0, _I64)

    def code(self, text: str) -> int:
        found = self._codes.get(text)
        if found is not None:
            return found
        code = self._codes[text] = len(self.strings)
        self.strings.append(text)
        folded = ascii_lower(text)
        self._lower.append(code if folded == text else self.code(folded))
        return code

    def lower(self) -> np.ndarray:
        """Code -> code of the lower-cased string, for every string interned so far."""
        if len(self._lower_array) != len(self._lower):
            self._lower_array = np.array(self._lower, _I64)
        return self._lower_array


class Vec:
    """One ClassAd value per row (see the module docstring)."""

    __slots__ = ("f", "i", "tag", "x")

    def __init__(
        self, tag: np.ndarray, i: np.ndarray, f: np.ndarray, x: np.ndarray | None = None
    ) -> None:
        self.tag, self.i, self.f, self.x = tag, i, f, x

    def __len__(self) -> int:
        return len(self.tag)

    def take(self, index: np.ndarray) -> Vec:
        return Vec(
            self.tag[index], self.i[index], self.f[index], None if self.x is None else self.x[index]
        )


def is_vec(value: Any) -> bool:
    return type(value) is Vec


def cell_of(value: Any, strings: StringTable) -> tuple[int, int, float, Any]:
    """(tag, i, f, x) of one Python value."""
    t = type(value)
    if t is bool:
        return B, int(value), 0.0, None
    if t is int:
        return INT, value, 0.0, None
    if t is float:
        return R, 0, value, None
    if t is str:
        return S, strings.code(value), 0.0, None
    if value is UNDEFINED:
        return U, 0, 0.0, None
    if t is Error:
        return E, 0, 0.0, None
    return X, 0, 0.0, value


def lanes(value: Any, strings: StringTable) -> tuple[Any, Any, Any, Any]:
    """Tag, i, f and x of an operand, ready to broadcast against arrays."""
    if type(value) is Vec:
        return value.tag, value.i, value.f, value.x
    tag, i, f, x = cell_of(value, strings)
    return _TAG(tag), _I64(i), _F64(f), x


def vec_of(values: list[Any], strings: StringTable) -> Vec:
    """A Vec from Python values, one per row."""
    n = len(values)
    tag, i, f = np.empty(n, _TAG), np.zeros(n, _I64), np.zeros(n, _F64)
    x = None
    for k, value in enumerate(values):
        t, iv, fv, xv = cell_of(value, strings)
        tag[k] = t
        if t == R:
            f[k] = fv
        elif t != X:
            i[k] = iv
        else:
            if x is None:
                x = np.empty(n, object)
            x[k] = xv
    return Vec(tag, i, f, x)


def value_at(value: Any, k: int, strings: StringTable) -> Any:
    """The Python value of row ``k`` of an operand."""
    if type(value) is not Vec:
        return value
    t = value.tag[k]
    if t == B:
        return bool(value.i[k])
    if t == INT:
        return int(value.i[k])
    if t == R:
        return float(value.f[k])
    if t == S:
        return strings.strings[value.i[k]]
    if t == U:
        return UNDEFINED
    if t == E:
        return ERROR
    return value.x[k]


def assemble(n: int, parts: list[tuple[np.ndarray, Any]], strings: StringTable) -> Any:
    """One operand from pieces: each (row positions, operand for those rows). Rows not
    covered are UNDEFINED. Equal scalars everywhere stay a scalar."""
    if len(parts) == 1 and type(parts[0][1]) is not Vec and len(parts[0][0]) == n:
        return parts[0][1]
    tag, i, f = np.full(n, U, _TAG), np.zeros(n, _I64), np.zeros(n, _F64)
    x = None
    for where, part in parts:
        ptag, pi, pf, px = lanes(part, strings)
        tag[where], i[where], f[where] = ptag, pi, pf
        if px is not None:
            if x is None:
                x = np.empty(n, object)
            if type(part) is Vec:
                x[where] = px
            else:  # one object for many rows: numpy would unpack a list-like value
                for k in np.asarray(where).nonzero()[0] if _is_mask(where) else where:
                    x[k] = px
    return Vec(tag, i, f, x)


def _is_mask(where: np.ndarray) -> bool:
    return getattr(where, "dtype", None) == np.bool_
