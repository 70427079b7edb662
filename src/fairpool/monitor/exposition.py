"""Samples as Prometheus text or OpenMetrics, written by prometheus_client.

A metric's name becomes ``htcondor_`` and its name in snake case (``JobsSubmitted`` ->
``htcondor_jobs_submitted``, ``PoolGPUs`` -> ``htcondor_pool_gpus``; characters
Prometheus does not allow become ``_``); its Desc and Units the help text. Every
sample carries the labels ``machine``, ``group`` (the metric's Group) and
``aggregate_group`` (empty for a per-ad metric). A Derivative metric is a counter
(``_total``), the others gauges. String metrics have no place in Prometheus and are
left out; where two ads give the same metric the same labels (two slots of one machine
for a per-ad slot metric), the last one stands, as in Ganglia.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.openmetrics.exposition import (
    CONTENT_TYPE_LATEST as OPENMETRICS_TYPE,
)
from prometheus_client.openmetrics.exposition import (
    generate_latest as generate_openmetrics,
)
from prometheus_client.registry import Collector, CollectorRegistry

from .evaluation import Sample

__all__ = ["PREFIX", "exposition", "family_name"]

PREFIX = "htcondor_"
LABELS = ("machine", "group", "aggregate_group")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_BAD = re.compile(r"[^a-zA-Z0-9_]+")
_PLURAL = re.compile(r"([A-Z]{2,})s(?=[A-Z_0-9]|$)")  # GPUs: one word, not GP_Us


def family_name(name: str) -> str:
    """The Prometheus name of a metric: ``NegotiationCycleDuration`` ->
    ``htcondor_negotiation_cycle_duration``."""
    words = _PLURAL.sub(lambda m: m.group(1).capitalize() + "s", name)
    snake = _BAD.sub("_", _CAMEL.sub("_", words)).strip("_").lower()
    return PREFIX + snake


def exposition(samples: Iterable[Sample], openmetrics: bool = False) -> tuple[bytes, str]:
    """The text and its content type (OpenMetrics when asked for)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Samples(list(samples)))
    if openmetrics:
        return generate_openmetrics(registry), OPENMETRICS_TYPE
    return generate_latest(registry), "text/plain; version=0.0.4; charset=utf-8"


class _Samples(Collector):
    def __init__(self, samples: list[Sample]) -> None:
        self.samples = samples

    def collect(self) -> Iterator[Metric]:
        families: dict[str, Metric] = {}
        values: dict[str, dict[tuple[str, ...], float]] = {}
        for sample in self.samples:
            if isinstance(sample.value, str):
                continue
            name = family_name(sample.name)
            if name not in families:
                families[name] = _family(name, sample)
                values[name] = {}
            labels = (sample.machine, sample.group, sample.aggregate_group)
            values[name][labels] = float(sample.value)
        for name, family in families.items():
            for labels, value in values[name].items():
                family.add_metric(list(labels), value)
            yield family


def _family(name: str, sample: Sample) -> Metric:
    text = sample.desc or sample.title
    if sample.units:
        text = f"{text} ({sample.units})" if text else sample.units
    if sample.kind == "counter":
        return CounterMetricFamily(name, text, labels=LABELS)
    return GaugeMetricFamily(name, text, labels=LABELS)
