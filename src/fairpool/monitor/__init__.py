"""Monitoring: condor_gangliad's metric definitions evaluated over the collector's ads
(definitions.py, evaluation.py, vectorised.py) and served as Prometheus text or
OpenMetrics (exposition.py); the live pool serves them at ``/metrics``."""

from .definitions import MetricDefinition, load_definitions, parse_definitions
from .evaluation import MetricSettings, evaluate_metrics, metric_settings
from .exposition import exposition, family_name
from .samples import Sample

__all__ = [
    "MetricDefinition",
    "MetricSettings",
    "Sample",
    "evaluate_metrics",
    "exposition",
    "family_name",
    "load_definitions",
    "metric_settings",
    "parse_definitions",
]
