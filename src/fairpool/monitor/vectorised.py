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

from typing import Any

import numpy as np

from ..classad import ClassAd
from ..classad.vector import SlotColumns, VectorMatch
from ..classad.vector.cells import INT, B, R, is_vec, value_at
from .definitions import MetricDefinition
from .samples import Aggregates, Sample, typed

__all__ = ["SlotAggregates"]

_LITERAL = (
    "name", "type", "scale", "verbosity", "derivative", "desc", "units", "title", "group",
)  # fmt: skip
_SCALARS = (str, int, float, bool)


class SlotAggregates:
    """The slot ads of one evaluation, as columns shared by every vectorised metric."""

    def __init__(self, slots: list[ClassAd], now: float) -> None:
        self.columns = SlotColumns(slots)
        self.slot1 = np.array([ad.eval("SlotID") == 1 for ad in slots], bool)
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
        )
        for k in range(len(rows)):
            value, kind = typed(value_at(values, k, strings), given, scale)
            if value is None:
                continue
            group = value_at(groups, k, strings) if is_vec(groups) else groups
            if not isinstance(group, str):
                group = name
            machine = value_at(machines, k, strings) if machines is not None else None
            aggregates.add(definition, sample, group, value, kind, machine)


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


def _text(ad: ClassAd, lname: str, default: str) -> str:
    value = _const(ad, lname)
    return value if isinstance(value, str) else default
