"""Metric definitions evaluated over the collector's ads, as condor_gangliad evaluates
them: a pure function from (definitions, ads, settings) to samples.

For each daemon ad that ``GANGLIAD_REQUIREMENTS`` admits and each definition whose
``TargetType`` names its type: the definition's ``Requirements`` must be true and its
``Verbosity`` at most ``GANGLIAD_VERBOSITY``; ``Name`` gives the metric's name and
``Value`` its value (by default the daemon ad's attribute of that name), multiplied by
``Scale`` and converted to ``Type``. A ``Regex`` definition makes one metric per
attribute whose name matches it (the whole name), with ``Regex`` in the daemon ad
standing for that attribute and ``\\1``, ``\\2``... in the definition's strings
replaced by the groups. An ``Aggregate`` definition (sum, avg, max, min) publishes one
value per ``AggregateGroup`` (default: the name) over all the ads, for the collector's
host; the others one value per ad, for the ad's machine (``GANGLIAD_DEFAULT_MACHINE``,
else the daemon's Name when it is ``name@host``, else its Machine).
``GANGLIAD_PER_EXECUTE_NODE_METRICS = False`` leaves out the per-ad metrics of slot ads.
A value that is UNDEFINED, ERROR or of the wrong kind gives no sample, as in gangliad.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..classad import UNDEFINED, ClassAd, Expr
from ..classad.match import evaluate, evaluate_attribute, satisfied
from ..classad.nodes import AttrRef
from ..config import Config
from ..config.knob_values import knob_error, knob_expr
from .definitions import MetricDefinition
from .samples import Aggregates, Sample, typed
from .vectorised import SlotAggregates

__all__ = ["MetricSettings", "Sample", "evaluate_metrics", "metric_settings"]

_ABSENT = object()


@dataclass(frozen=True)
class MetricSettings:
    """The knobs that shape the metrics (condor_gangliad's)."""

    verbosity: int = 0
    requirements: Expr | None = None
    per_execute_node: bool = True
    default_machine: Expr | None = None
    default_ip: Expr | None = None
    collector_host: str = ""  # aggregates' machine when no Collector ad names one


def metric_settings(config: Config, collector_host: str = "") -> MetricSettings:
    """The settings from GANGLIAD_VERBOSITY, GANGLIAD_REQUIREMENTS,
    GANGLIAD_PER_EXECUTE_NODE_METRICS, GANGLIAD_DEFAULT_MACHINE and GANGLIAD_DEFAULT_IP."""
    verbosity = config.get_int("GANGLIAD_VERBOSITY", 0)
    per_node = config.get_bool("GANGLIAD_PER_EXECUTE_NODE_METRICS", True)
    if verbosity is None or verbosity < 0:
        raise knob_error(config, "GANGLIAD_VERBOSITY", "a whole number of 0 or more")
    return MetricSettings(
        verbosity,
        knob_expr(config, "GANGLIAD_REQUIREMENTS"),
        True if per_node is None else per_node,
        knob_expr(config, "GANGLIAD_DEFAULT_MACHINE"),
        knob_expr(config, "GANGLIAD_DEFAULT_IP"),
        collector_host,
    )


def evaluate_metrics(
    definitions: list[MetricDefinition],
    ads: list[ClassAd],
    settings: MetricSettings,
    now: float,
) -> list[Sample]:
    """Every sample the definitions make of the ads (aggregates after the per-ad ones)."""
    kept = ads
    if settings.requirements is not None:
        kept = [ad for ad in ads if satisfied(evaluate(settings.requirements, ad, now=now))]
    aggregates = Aggregates(*_collector(kept, settings))
    run = _Run(settings, now, aggregates)
    columnar = [d for d in definitions if SlotAggregates.takes(d)]
    if columnar:
        slots = [ad for ad in kept if _my_type(ad).lower() == "machine"]
        columns = SlotAggregates(slots, now)
        for definition in columnar:
            columns.gather(definition, settings.verbosity, aggregates)
    rest = [d for d in definitions if not SlotAggregates.takes(d)]
    by_type: dict[tuple[str, object], list[MetricDefinition]] = {}
    for ad in kept:
        my_type = _my_type(ad)
        key = (my_type.lower(), _literal(ad, "slotid") if my_type.lower() == "machine" else None)
        chosen = by_type.get(key)
        if chosen is None:
            chosen = by_type[key] = [d for d in rest if d.targets_ad(my_type, key[1])]
        per_node = settings.per_execute_node or key[0] != "machine"
        for definition in chosen:
            if definition.aggregate is None and not per_node:
                continue
            if definition.regex is None:
                run.metric(definition, run.reader(definition), ad, my_type)
            else:
                run.regex(definition, ad, my_type)
    return run.samples + aggregates.samples()


def _my_type(ad: ClassAd) -> str:
    value = _literal(ad, "mytype")
    return value if isinstance(value, str) else ""


def _literal(ad: ClassAd, lname: str) -> Any:
    """An attribute written as a literal (MyType, SlotID: read for every ad), else its
    value; None when absent."""
    expr = ad._exprs.get(lname)
    if expr is None:
        return None
    return expr.const if type(expr.const) in (str, int, float, bool) else ad.eval(lname)


class _Reader:
    """How each attribute of one metric ad is read against a daemon ad, decided once:
    absent, a literal, a bare reference to a daemon attribute the metric does not
    define (read straight from the daemon ad), or an expression to evaluate."""

    def __init__(self, metric: ClassAd, now: float) -> None:
        self.metric = metric
        self.now = now
        self.plans: dict[str, tuple[str, Any]] = {}
        for name in _ATTRIBUTES:
            expr = metric._exprs.get(name)
            if expr is None:
                self.plans[name] = ("absent", _ABSENT)
            elif type(expr.const) in (str, int, float, bool):
                self.plans[name] = ("const", expr.const)
            elif _bare(expr, metric):
                self.plans[name] = ("daemon", expr.node.lname)
            else:
                self.plans[name] = ("eval", name)

    def __call__(self, name: str, ad: ClassAd) -> Any:
        how, what = self.plans[name]
        if how == "const" or how == "absent":
            return what
        if how == "daemon":
            expr = ad._exprs.get(what)
            if expr is None:
                return UNDEFINED
            if type(expr.const) in (str, int, float, bool):
                return expr.const
            return evaluate_attribute(ad, what, now=self.now)
        return evaluate_attribute(self.metric, what, ad, now=self.now)

    def text(self, name: str, ad: ClassAd, default: str) -> str:
        value = self(name, ad)
        return value if isinstance(value, str) else default


_ATTRIBUTES = (
    "requirements", "verbosity", "name", "value", "type", "scale", "derivative", "desc",
    "units", "title", "group", "machine", "aggregategroup", "ip", "lifetime",
)  # fmt: skip


def _bare(expr: Expr, metric: ClassAd) -> bool:
    node = expr.node
    return type(node) is AttrRef and node.scope is None and node.lname not in metric._exprs


class _Run:
    """One evaluation: the per-ad samples so far and the aggregates being gathered."""

    def __init__(self, settings: MetricSettings, now: float, aggregates: Aggregates) -> None:
        self.settings = settings
        self.now = now
        self.samples: list[Sample] = []
        self.aggregates = aggregates
        self.readers: dict[int, _Reader] = {}
        self.places: dict[int, tuple[str, str]] = {}  # id of a daemon ad -> (machine, ip)

    def reader(self, definition: MetricDefinition) -> _Reader:
        found = self.readers.get(id(definition))
        if found is None:
            found = self.readers[id(definition)] = _Reader(definition.ad, self.now)
        return found

    def regex(self, definition: MetricDefinition, ad: ClassAd, my_type: str) -> None:
        assert definition.regex is not None
        for attribute in list(ad):
            found = definition.regex.fullmatch(attribute)
            if found is None:
                continue
            metric = _substituted(definition.ad, found)
            del metric["Regex"]  # so that Regex names the daemon ad's matched attribute
            if "Name" not in metric:
                metric["Name"] = attribute
            if "Value" not in metric:
                metric.insert_expr("Value", Expr("Regex"))
            seen = ad.copy()
            seen.insert_node("Regex", AttrRef(attribute))
            self.metric(definition, _Reader(metric, self.now), seen, my_type)

    def metric(
        self, definition: MetricDefinition, read: _Reader, ad: ClassAd, my_type: str
    ) -> None:
        requirements = read("requirements", ad)
        if requirements is not _ABSENT and not satisfied(requirements):
            return
        verbosity = read("verbosity", ad)
        if type(verbosity) is int and verbosity > self.settings.verbosity:
            return
        name = read("name", ad)
        if not isinstance(name, str) or not name:
            return
        raw = read("value", ad)
        if raw is _ABSENT:
            raw = evaluate_attribute(ad, name, now=self.now)
        value, kind = typed(raw, _given(read("type", ad)), _given(read("scale", ad)))
        if value is None:
            return
        lifetime = read("lifetime", ad)
        if definition.aggregate is None:
            machine = read.text("machine", ad, "")
            ip = read.text("ip", ad, "")
            if not machine or not ip:
                place = self.place(ad)
                machine, ip = machine or place[0], ip or place[1]
            group = ""
        else:
            machine, ip = "", read.text("ip", ad, "")
            group = read.text("aggregategroup", ad, name)
        sample = Sample(
            name,
            value,
            kind,
            "counter" if read("derivative", ad) is True else "gauge",
            read.text("desc", ad, ""),
            read.text("units", ad, ""),
            read.text("title", ad, name),
            machine,
            read.text("group", ad, f"HTCondor {my_type}"),
            "",
            ip,
            lifetime if type(lifetime) is int and lifetime > 0 else None,
        )
        if definition.aggregate is None:
            self.samples.append(sample)
        else:
            self.aggregates.add(definition, sample, group, value, kind, read("machine", ad))

    def place(self, ad: ClassAd) -> tuple[str, str]:
        """The default machine and IP of a daemon ad's metrics (found once per ad)."""
        found = self.places.get(id(ad))
        if found is None:
            machine = self.default_machine(ad)
            found = self.places[id(ad)] = (machine, self.default_ip(ad, machine))
        return found

    def default_ip(self, ad: ClassAd, machine: str) -> str:
        """GANGLIAD_DEFAULT_IP, else the machine when it is name@host (unique per
        instance), else the host of the ad's MyAddress."""
        if self.settings.default_ip is not None:
            chosen = evaluate(self.settings.default_ip, ad, now=self.now)
            if isinstance(chosen, str) and chosen:
                return chosen
        return machine if "@" in machine else (_address(ad) or machine)

    def default_machine(self, ad: ClassAd) -> str:
        if self.settings.default_machine is not None:
            chosen = evaluate(self.settings.default_machine, ad, now=self.now)
            if isinstance(chosen, str) and chosen:
                return chosen
        name = ad.get("Name")
        if isinstance(name, str) and "@" in name and _my_type(ad) != "Machine":
            return name
        machine = ad.eval("Machine")
        return machine if isinstance(machine, str) else ""


def _given(value: Any) -> Any:
    return None if value is _ABSENT else value


def _substituted(metric: ClassAd, found: re.Match[str]) -> ClassAd:
    """The metric's string attributes with ``\\1``... replaced by the regex's groups."""
    out = metric.copy()
    for name in list(metric):
        value = metric.lookup(name).const
        if isinstance(value, str) and "\\" in value:
            out[name] = re.sub(r"\\(\d)", lambda m: _group(found, int(m.group(1))), value)
    return out


def _group(found: re.Match[str], number: int) -> str:
    return (found.group(number) or "") if number <= (found.re.groups or 0) else ""


def _collector(ads: list[ClassAd], settings: MetricSettings) -> tuple[str, str]:
    """The collector's host and address: aggregates' machine and IP."""
    for ad in ads:
        if ad.eval("MyType") == "Collector":
            machine = ad.eval("Machine")
            if isinstance(machine, str):
                return machine, _address(ad) or machine
    return settings.collector_host, settings.collector_host


def _address(ad: ClassAd) -> str:
    """The host part of the ad's MyAddress (``<10.0.0.1:9618?...>``)."""
    address = ad.eval("MyAddress")
    if not isinstance(address, str):
        return ""
    return address.strip("<>").split("?")[0].rsplit(":", 1)[0]
