"""``-af`` / ``-autoformat[:jlhVr,tng]``, shared by condor_q, condor_status and condor_history.

Each argument is an attribute name or an expression, evaluated in each ad. From the tools'
manual pages and HTCondor's test expectations (src/condor_tests/CheckOutputFormats.pm,
check_af and check_type), one line per ad:

* values one space apart; a string as its text, ``undefined``/``error``, booleans
  ``true``/``false``, a real as ``-l`` writes it (``%.16G``, ``.0`` added to a whole
  number: ``1289.0``, ``0.1``, ``1E+30``); ``V``: strings quoted as in ``-l``; ``r``: the
  expression unevaluated (an attribute the ad lacks prints as its own name);
* ``j``: the job id ``C.P`` first (headed and labelled ``ID``); ``l``: each field
  ``NAME = value``; ``h``: a heading line of the arguments, every column as wide as its
  heading or widest value;
* ``,``: fields joined by ``, ``; ``t``: by a tab instead of a space; ``n``: a newline after
  each field (the fields after the first still start with the separator); ``g``: no
  separator, and a blank line before each ad (``-af:lrng`` is the ``-l`` layout).

``n`` with ``,``, and ``l`` with ``h``, are refused, as the tools refuse them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...classad import ClassAd, Expr
from ...classad.ad import node_of
from ...classad.unparse import quote_string_old, real_text, unparse
from ...classad.values import Error, Undefined
from ...errors import InputError
from .attributes import number

__all__ = ["QUALIFIERS", "AutoFormat", "autoformat", "value_text"]

QUALIFIERS = "jlhVr,tng"
_WHERE = "<command line>"


@dataclass(frozen=True)
class AutoFormat:
    """An ``-af`` request: its arguments (parsed once) and qualifiers."""

    arguments: tuple[str, ...]
    qualifiers: str = ""

    @classmethod
    def parse(cls, qualifiers: str, arguments: Sequence[str]) -> AutoFormat:
        """``qualifiers`` as written after ``-af`` (``":lh"``, ``"lh"`` or ``""``); a bad
        qualifier or expression is an error naming it."""
        flags = qualifiers.removeprefix(":")
        for flag in flags:
            if flag not in QUALIFIERS:
                message = f"-af:{flags}: unknown qualifier {flag!r}; expected some of {QUALIFIERS}"
                raise InputError(message, _WHERE)
        if "n" in flags and "," in flags:
            raise InputError(f"-af:{flags}: n and , may not be used together", _WHERE)
        if "l" in flags and "h" in flags:
            raise InputError(f"-af:{flags}: l and h may not be used together", _WHERE)
        if not arguments:
            raise InputError("-af needs at least one attribute or expression", _WHERE)
        for argument in arguments:
            Expr(argument)  # a ClassAdSyntaxError names the argument and the column
        return cls(tuple(arguments), flags)

    def has(self, flag: str) -> bool:
        return flag in self.qualifiers


def autoformat(ads: Sequence[ClassAd], spec: AutoFormat, *, now: float) -> str:
    """The ``-af`` output for ``ads``."""
    names = (["ID"] if spec.has("j") else []) + list(spec.arguments)
    rows = [_fields(ad, spec, now) for ad in ads]
    if spec.has("l"):
        rows = [[f"{n} = {v}" for n, v in zip(names, row, strict=True)] for row in rows]
    if spec.has("h") and rows:
        rows = _aligned([names, *rows])
    return "".join(_record(row, spec) for row in rows)


def _aligned(rows: list[list[str]]) -> list[list[str]]:
    """Every column but the last padded to its widest cell (the heading included)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [[c.ljust(w) for c, w in zip(row[:-1], widths, strict=False)] + row[-1:] for row in rows]


def _fields(ad: ClassAd, spec: AutoFormat, now: float) -> list[str]:
    fields = []
    if spec.has("j"):
        cluster, proc = number(ad, "ClusterId", now), number(ad, "ProcId", now)
        fields.append(f"{_whole(cluster)}.{_whole(proc)}")
    for argument in spec.arguments:
        if spec.has("r"):
            fields.append(_raw(ad, argument))
        else:
            fields.append(value_text(Expr(argument).eval(ad, now=now), spec.has("V")))
    return fields


def _record(fields: list[str], spec: AutoFormat) -> str:
    separator = "" if spec.has("g") else "\t" if spec.has("t") else " "
    after = "\n" if spec.has("n") else ""
    parts = [
        (separator if i else "") + field + ("," if spec.has(",") and i < len(fields) - 1 else "")
        for i, field in enumerate(fields)
    ]
    text = after.join(parts) + after if after else "".join(parts) + "\n"
    return ("\n" if spec.has("g") else "") + text


def value_text(value: Any, quoted: bool = False) -> str:
    """A value as ``%v`` prints it (``quoted``: ``%V``, strings as ``-l`` writes them)."""
    kind = type(value)
    if kind is str:
        return quote_string_old(value) if quoted else value
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if kind is float:
        return _real(value)
    if kind is Undefined:
        return "undefined"
    if kind is Error:
        return "error"
    return unparse(node_of(value), old=True)


def _real(value: float) -> str:
    """A real as ``-l`` writes it: ``%.16G``, and ``.0`` after a whole number."""
    if math.isnan(value) or math.isinf(value):
        return real_text(value)
    text = f"{value:.16G}"
    return text if "." in text or "E" in text else text + ".0"


def _raw(ad: ClassAd, argument: str) -> str:
    """The expression unevaluated: the ad's own expression for an attribute it has."""
    if argument in ad:
        return unparse(ad.lookup(argument).node, old=True)
    return unparse(Expr(argument).node, old=True)


def _whole(value: float | None) -> str:
    return "undefined" if value is None else str(int(value))
