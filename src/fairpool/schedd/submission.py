"""A submission as condor_submit hands it to the schedd: each cluster's ad once, and each
job's own attributes beside it.

condor_submit sends a cluster's common attributes once and then, per job, only what
differs (ProcId, Args, Out...); fairpool does the same over HTTP, so that submitting
100,000 jobs sends one cluster ad and 100,000 small objects. The jobs of a cluster made
by fairpool.submit share the expressions they have in common, which makes the split
cheap; jobs that do not are compared by value.
"""

from __future__ import annotations

from typing import Any

from ..classad import ClassAd
from ..classad.jsonads import ad_to_json, expr_to_json

__all__ = ["submission"]

_PER_JOB = frozenset({"procid"})  # always each job's own, whatever the cluster


def submission(jobs: list[ClassAd]) -> list[dict[str, Any]]:
    """The clusters of ``jobs`` (in ClusterId order as they come), each as
    ``{"ad": common attributes, "procs": [each job's own attributes]}``."""
    clusters: dict[object, list[ClassAd]] = {}
    for job in jobs:
        clusters.setdefault(job.get("ClusterId"), []).append(job)
    return [_cluster(members) for members in clusters.values()]


def _cluster(jobs: list[ClassAd]) -> dict[str, Any]:
    first = jobs[0]
    common = {}
    for key, expr in first._exprs.items():
        if key in _PER_JOB:
            continue
        value = None
        for job in jobs:
            other = job._exprs.get(key)
            if other is expr:
                continue
            if value is None:
                value = _typed(expr_to_json(expr))
            if other is None or _typed(expr_to_json(other)) != value:
                break
        else:
            common[key] = expr
    ad = ClassAd()
    for key, expr in common.items():
        ad.insert_expr(first._names[key], expr)
    procs = []
    for job in jobs:
        own = {job._names[k]: expr_to_json(e) for k, e in job._exprs.items() if k not in common}
        procs.append(own)
    return {"ad": ad_to_json(ad), "procs": procs}


def _typed(value: object) -> object:
    """A JSON value with its types, so that 1, 1.0 and true are not taken as equal."""
    if isinstance(value, list):
        return ("list", tuple(_typed(v) for v in value))
    if isinstance(value, dict):
        return ("ad", tuple((k, _typed(v)) for k, v in value.items()))
    return (type(value).__name__, value)
