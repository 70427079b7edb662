"""The negotiator's Accounting ads: one per accountant record, as HTCondor's negotiator
publishes them to the collector (``condor_status -accounting``), so that monitoring
(fairpool's /metrics, condor_gangliad's metric files) reads fair share from the
collector like every other pool figure.

Each ad carries the record (``Priority`` is the real user priority; the effective one is
``Priority * PriorityFactor``), the last cycle's ``SubmitterShare`` and
``SubmitterLimit`` for a submitter that had a pie turn, and for a group its quota
figures (``ConfigQuota``, ``EffectiveQuota``, ``SubtreeQuota``, ``Requested``,
``SurplusPolicy``) with ``IsAccountingGroup`` true.
"""

from __future__ import annotations

from typing import Any

from ..accounting.records import Customer, is_group_name
from ..classad import ClassAd

__all__ = ["accounting_ads"]


def accounting_ads(
    customers: list[Customer],
    cycle: dict[str, Any],
    common: dict[str, Any],
) -> list[ClassAd]:
    """An Accounting ad per record and per group of the last cycle (``cycle``: its
    summary as the negotiator keeps it); ``common``: the attributes every ad of this
    negotiator carries (NegotiatorName, Machine, ...)."""
    submitters = cycle.get("submitters", {})
    groups = cycle.get("groups", {})
    ads = []
    for record in customers:
        ad = ClassAd(
            {
                "MyType": "Accounting",
                "Name": record.name,
                **common,
                "IsAccountingGroup": is_group_name(record.name),
                "Priority": record.priority,
                "PriorityFactor": record.factor,
                "ResourcesUsed": record.resources_used,
                "WeightedResourcesUsed": record.weighted_resources_used,
                "AccumulatedUsage": record.accumulated_usage,
                "WeightedAccumulatedUsage": record.weighted_accumulated_usage,
                "BeginUsageTime": record.begin_usage_time,
                "LastUsageTime": record.last_usage_time,
                "Ceiling": record.ceiling,
                "Floor": record.floor,
            }
        )
        summary = submitters.get(record.name) or {}
        if summary.get("share") is not None:
            ad["SubmitterShare"] = summary["share"]
            ad["SubmitterLimit"] = summary["limit"]
        if record.name in groups:
            ad.update(_group_attributes(groups[record.name]))
        ads.append(ad)
    named = {record.name for record in customers}
    for name, figures in sorted(groups.items()):
        if name not in named:
            ad = ClassAd({"MyType": "Accounting", "Name": name, **common})
            ad["IsAccountingGroup"] = True
            ad.update(_group_attributes(figures))
            ads.append(ad)
    return ads


def _group_attributes(figures: dict[str, Any]) -> dict[str, Any]:
    names = {
        "ConfigQuota": "config_quota",
        "EffectiveQuota": "quota",
        "SubtreeQuota": "subtree_quota",
        "Requested": "requested",
        "GroupResourcesUsed": "usage",
        "SurplusPolicy": "surplus",
    }
    return {attr: figures[key] for attr, key in names.items() if figures.get(key) is not None}
