"""What a metric evaluation publishes: samples, the conversion of a value to a metric's
``Type`` (after ``Scale``), and the aggregation of values by ``AggregateGroup``, shared
by the scalar path (evaluation.py) and the slot columns (vectorised.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

__all__ = ["INT_TYPES", "Aggregates", "Sample", "typed"]

INT_TYPES = ("int32", "uint32", "int16", "uint16", "int8", "uint8")
_TYPES = ("double", "float", "string", *INT_TYPES)
_FUNCTIONS = {
    "sum": sum,
    "avg": lambda values: sum(values) / len(values),
    "max": max,
    "min": min,
}


@dataclass(frozen=True)
class Sample:
    """One published value. ``type``: gangliad's (int32, float, string, ...); ``kind``:
    "gauge", or "counter" for a Derivative metric."""

    name: str
    value: float | int | str
    type: str
    kind: str
    desc: str
    units: str
    title: str
    machine: str
    group: str
    aggregate_group: str = ""
    ip: str = ""  # for Ganglia: the machine's address (unique per machine)
    lifetime: int | None = None  # for Ganglia: the metric's Lifetime (DMAX)


def typed(raw: Any, given: Any, scale: Any) -> tuple[Any, str]:
    """``raw`` scaled and converted to the metric's type (``given``: the Type attribute,
    None when absent; ``scale``: Scale, None when absent), and that type; (None, "")
    when the value cannot be published (UNDEFINED, ERROR, a list, a bad Scale)."""
    given = given.lower() if isinstance(given, str) else given
    if isinstance(raw, bool):
        number: Any = int(raw)
        kind = "int8"
    elif isinstance(raw, int):
        number, kind = raw, "int32"
    elif isinstance(raw, float):
        number, kind = raw, "float"
    elif isinstance(raw, str):
        return (raw, "string") if given in (None, "string") else (None, "")
    else:
        return None, ""
    if scale is not None:
        if not isinstance(scale, int | float) or isinstance(scale, bool):
            return None, ""
        number = number * scale
        kind = "float" if isinstance(number, float) else kind
    if given in _TYPES:
        kind = given
    if kind == "string":
        return str(number), kind
    if kind in INT_TYPES:
        return int(number), kind
    return float(number), kind


class Aggregates:
    """Values gathered by (definition, aggregate group): the first sample of each group
    gives its name, texts and machine (the group's first ad's ``Machine`` when the
    definition sets one, else the collector's host)."""

    def __init__(self, collector_host: str, collector_ip: str = "") -> None:
        self.collector_host = collector_host
        self.collector_ip = collector_ip
        self.groups: dict[tuple[int, str], tuple[Sample, str, list[Any]]] = {}

    def add(
        self,
        definition: Any,
        sample: Sample,
        group: str,
        value: Any,
        kind: str,
        machine: Any,
    ) -> None:
        key = (id(definition), group)
        entry = self.groups.get(key)
        if entry is None:
            given = isinstance(machine, str) and bool(machine)
            where = machine if given else self.collector_host
            ip = sample.ip or (where if given else self.collector_ip)
            first = replace(sample, type=kind, machine=where, aggregate_group=group, ip=ip)
            entry = self.groups[key] = (first, definition.aggregate, [])
        if not isinstance(value, str):
            entry[2].append(value)

    def add_many(
        self,
        definition: Any,
        sample: Sample,
        group: str,
        values: list[Any],
        kind: str,
        machine: Any,
    ) -> None:
        """Several numbers of one group at once (the first of them or an earlier value
        having made the group)."""
        self.add(definition, sample, group, values[0], kind, machine)
        self.groups[(id(definition), group)][2].extend(values[1:])

    def samples(self) -> list[Sample]:
        out = []
        for first, function, values in self.groups.values():
            if not values:
                continue
            value = _FUNCTIONS[function](values)
            if first.type in INT_TYPES:
                value = int(value)
            out.append(replace(first, value=value))
        return out
