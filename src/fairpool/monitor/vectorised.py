"""Aggregate metrics over slot ads, all slots at once with the vector evaluator.

A pool's figures are mostly aggregates over its slot ads (slots, cpus and memory by
state; busy cpus by machine), and a pool has many slots: evaluating each definition
ad by ad costs a scalar evaluation per slot per attribute. Here the metric ad plays
the job and the slot ads the slot rows of ``classad.vector``: ``Requirements``,
``Value``, ``AggregateGroup`` and ``Machine`` are evaluated for all rows at once, and
the values are then scaled, typed and aggregated by the same functions as the scalar
path (evaluation.py), so both give the same samples (tests/monitor compare them). A
definition whose ``Name``, ``Type``, ``Scale``, ``Verbosity``, ``Derivative`` or text
attributes are not literals, or that has no ``Value``, is left to the scalar path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..classad import ClassAd
from ..classad.scope import NOT_CONST
from ..classad.vector import SlotColumns, VectorMatch
from ..classad.vector.cells import INT, B, R, S, is_vec, value_at
from .definitions import MetricDefinition
from .samples import INT_TYPES, Aggregates, Sample, typed

__all__ = ["SlotAggregates"]

_LITERAL = (
    "name", "type", "scale", "verbosity", "derivative", "desc", "units", "title", "group",
    "ip", "lifetime",
)  # fmt: skip
_SCALARS = (str, int, float, bool)


class SlotAggregates:
    """The slot ads of one evaluation, as columns shared by every vectorised metric."""

    def __init__(self, slots: list[ClassAd], now: float) -> None:
        self.columns = SlotColumns(slots)
        ids = [ad._exprs.get("slotid") for ad in slots]
        self.slot1 = np.array(
            [
                e is not None and (e.const if e.const is not NOT_CONST else e.eval()) == 1
                for e in ids
            ],
            bool,
        )
        self.now = now

    @staticmethod
    def takes(definition: MetricDefinition) -> bool:
        """Whether the definition can be evaluated here."""
        exprs = definition.ad._exprs
        return (
            definition.aggregate is not None
            and definition.regex is None
            and bool(definition.targets)
            and definition.targets <= {"machine", "machine_slot1"}
            and "value" in exprs
            and all(n not in exprs or type(exprs[n].const) in _SCALARS for n in _LITERAL)
        )

    def gather(self, definition: MetricDefinition, verbosity: int, aggregates: Aggregates) -> None:
        """Add the definition's values over every slot to ``aggregates``."""
        ad = definition.ad
        level, name = _const(ad, "verbosity"), _const(ad, "name")
        if (type(level) is int and level > verbosity) or not isinstance(name, str) or not name:
            return
        rows = np.arange(len(self.columns))
        if "machine" not in definition.targets:
            rows = rows[self.slot1]
        match = VectorMatch(self.columns, ad, now=self.now)
        if "requirements" in ad._exprs:
            rows = rows[_holds(match.attribute("Requirements", rows, my_is_slot=False), len(rows))]
        if not len(rows):
            return
        strings = self.columns.strings
        values = match.attribute("Value", rows, my_is_slot=False)
        groups = (
            match.attribute("AggregateGroup", rows, my_is_slot=False)
            if "aggregategroup" in ad._exprs
            else name
        )
        machines = (
            match.attribute("Machine", rows, my_is_slot=False) if "machine" in ad._exprs else None
        )
        given, scale = _const(ad, "type"), _const(ad, "scale")
        sample = Sample(
            name,
            0,
            "",
            "counter" if _const(ad, "derivative") is True else "gauge",
            _text(ad, "desc", ""),
            _text(ad, "units", ""),
            _text(ad, "title", name),
            "",
            _text(ad, "group", "HTCondor Machine"),
            ip=_text(ad, "ip", ""),
            lifetime=_lifetime(ad),
        )
        given = given.lower() if isinstance(given, str) else given
        if given == "string" or typed(1, given, scale)[0] is None:
            return  # no number to aggregate (as the scalar path finds row by row)
        columns = _Rows(len(rows), values, groups, machines, strings)
        _add_all(definition, sample, columns, given, scale, aggregates)


@dataclass(frozen=True)
class _Rows:
    """The values of the rows a metric counts: each one operand (a Vec or one value)."""

    n: int
    values: Any
    groups: Any
    machines: Any
    strings: Any


def _add_all(
    definition: MetricDefinition,
    sample: Sample,
    rows: _Rows,
    given: Any,
    scale: Any,
    aggregates: Aggregates,
) -> None:
    """Every row's value into its group: numbers with numpy, each group's first row
    (its type and machine) through the scalar path's ``typed``."""
    tag, ints, reals = _lanes(rows.values, rows.n)
    numeric = (tag == B) | (tag == INT) | (tag == R)
    shown = numeric | ((tag == S) & (given is None))
    numbers = np.where(tag == R, reals, ints.astype(np.float64))
    if scale is not None:
        numbers = numbers * scale
    if given in INT_TYPES:
        numbers = np.trunc(numbers)
    names = _group_names(rows.groups, rows.n, sample.name, rows.strings)
    for group, where in _rows_by_group(names, shown).items():
        first = int(where[0])
        kind = typed(value_at(rows.values, first, rows.strings), given, scale)[1]
        machine = (
            value_at(rows.machines, first, rows.strings) if rows.machines is not None else None
        )
        counted = where[numeric[where]]
        if not len(counted):
            aggregates.add(definition, sample, group, "", kind, machine)
            continue
        aggregates.add_many(definition, sample, group, numbers[counted].tolist(), kind, machine)


def _lanes(values: Any, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if is_vec(values):
        return values.tag, values.i, values.f
    kind = type(values)
    tag = {bool: B, int: INT, float: R, str: S}.get(kind, -1)
    ints = int(values) if kind in (bool, int) else 0
    reals = float(values) if kind is float else 0.0
    return np.full(n, tag), np.full(n, ints, np.int64), np.full(n, reals)


def _group_names(groups: Any, n: int, name: str, strings: Any) -> list[str]:
    if not is_vec(groups):
        return [groups if isinstance(groups, str) else name] * n
    table = strings.strings
    pairs = zip(groups.tag.tolist(), groups.i.tolist(), strict=True)
    return [table[c] if t == S else name for t, c in pairs]


def _rows_by_group(names: list[str], shown: np.ndarray) -> dict[str, np.ndarray]:
    """Each group's rows (where ``shown``), in row order, groups in order of first row."""
    found: dict[str, list[int]] = {}
    for k in np.flatnonzero(shown).tolist():
        found.setdefault(names[k], []).append(k)
    return {group: np.array(rows) for group, rows in found.items()}


def _slot_id(ad: ClassAd) -> Any:
    expr = ad._exprs.get("slotid")
    if expr is None:
        return None
    return expr.const if expr.const is not NOT_CONST else ad.eval("SlotID")


def _holds(value: Any, n: int) -> np.ndarray:
    """The rows where a Requirements value lets the metric count (classad.satisfied)."""
    if not is_vec(value):
        kind = type(value)
        true = (kind is bool and value) or (kind in (int, float) and value != 0)
        return np.full(n, bool(true))
    tag = value.tag
    return ((tag == B) | (tag == INT)) & (value.i != 0) | (tag == R) & (value.f != 0)


def _const(ad: ClassAd, lname: str) -> Any:
    expr = ad._exprs.get(lname)
    return None if expr is None else expr.const


def _lifetime(ad: ClassAd) -> int | None:
    value = _const(ad, "lifetime")
    return value if type(value) is int and value > 0 else None


def _text(ad: ClassAd, lname: str, default: str) -> str:
    value = _const(ad, lname)
    return value if isinstance(value, str) else default
