"""Partitionable slots with a consumption policy (spec negotiator.md §5.7).

A partitionable slot whose ad defines ``Consumption<Resource>`` expressions for the
resources in its ``MachineResources`` can take several jobs, from several submitters, in
one cycle: each match deducts what the job consumes from the slot, and costs the drop in
the slot's weight. The job is matched as if it requested exactly what it consumes.
Without a consumption policy a partitionable slot is one candidate, matched once per cycle
for its whole weight; the schedd carves jobs out of it afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..classad import ClassAd
from ..classad.match import evaluate
from ..classad.scope import NOT_CONST

__all__ = ["consumption_of", "deduct", "has_policy", "requesting", "sufficient"]

_PREFIX = "Consumption"


def consumption_of(slot: ClassAd, job: ClassAd, now: float) -> dict[str, float] | None:
    """What ``job`` would consume of each resource of a consumption-policy slot (None for
    a slot without one). A job without ``Request<Resource>`` is taken to request 0 of it
    while the consumption is computed, as HTCondor's negotiator does (issue 14): a job
    that asks for no GPUs consumes none, rather than matching nothing."""
    resources = _consumed(slot)
    if not resources:
        return None
    missing = [f"Request{r}" for r in resources if f"Request{r}" not in job]
    for name in missing:
        job[name] = 0
    try:
        amounts = {}
        for resource in resources:
            value = evaluate(slot.lookup(_PREFIX + resource), slot, job, now=now)
            amounts[resource] = float(value) if type(value) in (int, float) else float("inf")
    finally:
        for name in missing:
            del job[name]
    return amounts


def has_policy(slot: ClassAd) -> bool:
    """Whether the slot is a partitionable slot with a consumption policy."""
    return bool(_consumed(slot))


def _consumed(slot: ClassAd) -> list[str]:
    """The resources a partitionable slot's policy says how much a job consumes of."""
    if slot.eval("PartitionableSlot") is not True:
        return []
    resources = slot.eval("MachineResources")
    if not isinstance(resources, str):
        return []
    return [r for r in resources.replace(",", " ").split() if _PREFIX + r in slot]


def sufficient(slot: ClassAd, amounts: dict[str, float]) -> bool:
    """The slot has at least what the job consumes of every resource."""
    for resource, amount in amounts.items():
        have = slot.eval(resource)
        if type(have) not in (int, float) or have < amount:
            return False
    return True


@contextmanager
def requesting(job: ClassAd, amounts: dict[str, float]) -> Iterator[None]:
    """The job's ``Request<Resource>`` set to what it consumes, for the length of a test."""
    saved = {}
    for resource, amount in amounts.items():
        name = "Request" + resource
        saved[name] = job.lookup(name) if name in job else None
        job[name] = int(amount) if float(amount).is_integer() else amount
    try:
        yield
    finally:
        for name, expr in saved.items():
            if expr is None:
                del job[name]
            else:
                job.insert_expr(name, expr)


def deduct(slot: ClassAd, amounts: dict[str, float]) -> dict[str, float]:
    """The slot's resource values once a job consuming ``amounts`` is placed."""
    left = {}
    for resource, amount in amounts.items():
        have = slot.lookup(resource).const
        if have is NOT_CONST or type(have) not in (int, float):
            have = slot.eval(resource)
        remaining = have - amount
        left[resource] = (
            int(remaining) if type(have) is int and float(amount).is_integer() else remaining
        )
    return left
