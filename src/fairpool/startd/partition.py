"""Carving dynamic slots out of a partitionable slot (spec startd.md §11).

A claim on a partitionable slot creates a dynamic slot sized to the job's request:

1. the request is rounded by ``MODIFY_REQUEST_EXPR_REQUEST{CPUS,MEMORY,DISK}`` (defaults
   ``quantize(RequestCpus,{1})``, ``quantize(RequestMemory,{128})``,
   ``quantize(RequestDisk,{1024})``), each evaluated with MY = job, TARGET = p-slot;
2. the p-slot's Requirements must accept the rounded request, or else the original one;
3. the dynamic slot gets exactly those amounts (cpus and memory at least 1; GPUs as
   requested, never rounded), which are taken off the p-slot; the p-slot keeps
   advertising what is left, and its weight (``SlotWeight``, by default ``Cpus``) with it.

Dynamic slots are named ``slot<N>_<M>@host`` and carry ``DynamicSlot``, ``SlotType``,
``ParentSlotId`` and ``DSlotId``. Releasing one gives its resources back.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..classad import ClassAd, Expr
from ..classad.match import evaluate, requirements_met

__all__ = ["DEFAULT_MODIFIERS", "Carving", "carve", "release"]

DEFAULT_MODIFIERS = {
    "RequestCpus": Expr("quantize(RequestCpus, {1})"),
    "RequestMemory": Expr("quantize(RequestMemory, {128})"),
    "RequestDisk": Expr("quantize(RequestDisk, {1024})"),
}
_NOT_COPIED = {
    "name",
    "slottype",
    "partitionableslot",
    "cpus",
    "memory",
    "disk",
    "gpus",
    "slotid",
    "state",
    "activity",
    "numdynamicslots",
    "totalslotcpus",
    "totalslotmemory",
    "totalslotdisk",
    "totalslotgpus",
}


@dataclass
class Carving:
    """What a claim on a p-slot takes: the amounts, per resource."""

    amounts: dict[str, float]


def _number(value: object) -> float | None:
    return float(value) if type(value) in (int, float) else None


def sizes(
    pslot: ClassAd, job: ClassAd, now: float, modifiers: dict[str, Expr] | None = None
) -> Carving | None:
    """The resources a dynamic slot for ``job`` would get, or None if the p-slot refuses."""
    rounded = {}
    for attribute, expr in (modifiers or DEFAULT_MODIFIERS).items():
        value = _number(evaluate(expr, job, pslot, now=now))
        if value is not None:
            rounded[attribute] = value
    for request in (rounded, {}):
        probe = job.copy()
        for attribute, value in request.items():
            probe[attribute] = int(value) if value.is_integer() else value
        if requirements_met(pslot, probe, now=now):
            return _amounts(probe, pslot)
    return None


def _amounts(request: ClassAd, pslot: ClassAd) -> Carving | None:
    cpus = _number(request.eval("RequestCpus")) if "RequestCpus" in request else 1.0
    memory = _number(request.eval("RequestMemory"))
    disk = _number(request.eval("RequestDisk"))
    if cpus is None or memory is None or disk is None:
        return None
    amounts = {"Cpus": max(cpus, 1.0), "Memory": max(memory, 1.0), "Disk": disk}
    gpus = _number(request.eval("RequestGPUs")) if "RequestGPUs" in request else None
    if gpus:
        amounts["GPUs"] = gpus
    return Carving(amounts)


def carve(
    pslot: ClassAd,
    job: ClassAd,
    now: float,
    slot_number: int,
    modifiers: dict[str, Expr] | None = None,
) -> ClassAd | None:
    """A new dynamic slot for ``job`` taken out of ``pslot`` (changed in place), or None."""
    carving = sizes(pslot, job, now, modifiers)
    if carving is None or not _fits(pslot, carving.amounts):
        return None
    dslot = _dynamic_slot(pslot, carving.amounts, slot_number)
    if _ids(pslot, "GPUs") is not None:
        dslot["AssignedGPUs"] = ""  # none unless the job asks for some (below)
    for resource, amount in carving.amounts.items():
        pslot[resource] = _same_kind(pslot.eval(resource) - amount, pslot.eval(resource))
        ids = _ids(pslot, resource)
        if ids is not None:  # a resource listed by id: the first ones go with the slot
            dslot[f"Assigned{resource}"] = ", ".join(ids[: int(amount)])
            pslot[f"Assigned{resource}"] = ", ".join(ids[int(amount) :])
    count = pslot.eval("NumDynamicSlots")
    pslot["NumDynamicSlots"] = (count if type(count) is int else 0) + 1
    return dslot


def _fits(pslot: ClassAd, amounts: dict[str, float]) -> bool:
    for resource, amount in amounts.items():
        have = _number(pslot.eval(resource))
        if have is None or have < amount:
            return False
    return True


def _same_kind(value: float, like: object) -> int | float:
    return int(value) if type(like) is int and float(value).is_integer() else value


def _dynamic_slot(pslot: ClassAd, amounts: dict[str, float], number: int) -> ClassAd:
    name = pslot.eval("Name")
    slot_part, _, host = name.partition("@")
    parent_id = pslot.eval("SlotID")
    dslot = ClassAd()
    for attribute in pslot:
        if attribute.lower() not in _NOT_COPIED:
            dslot.insert_expr(attribute, pslot.lookup(attribute))
    dslot.update(
        {
            "Name": f"{slot_part}_{number}@{host}",
            "SlotType": "Dynamic",
            "DynamicSlot": True,
            "PartitionableSlot": False,
            "ParentSlotId": parent_id,
            "DSlotId": number,
            "SlotID": parent_id,
        }
    )
    for resource, amount in amounts.items():
        dslot[resource] = int(amount) if float(amount).is_integer() else amount
        dslot[f"TotalSlot{resource}"] = dslot[resource]
    return dslot


def release(pslot: ClassAd, dslot: ClassAd) -> None:
    """Give a dynamic slot's resources back to its partitionable slot (the ids of a
    resource listed by id, such as ``AssignedGPUs``, too)."""
    for resource in ("Cpus", "Memory", "Disk", "GPUs"):
        if resource in dslot and resource in pslot:
            pslot[resource] = _same_kind(
                pslot.eval(resource) + dslot.eval(resource), pslot.eval(resource)
            )
        back, kept = _ids(dslot, resource), _ids(pslot, resource)
        if back is not None and kept is not None:
            pslot[f"Assigned{resource}"] = ", ".join(kept + back)
    count = pslot.eval("NumDynamicSlots")
    if type(count) is int and count > 0:
        pslot["NumDynamicSlots"] = count - 1


def _ids(ad: ClassAd, resource: str) -> list[str] | None:
    """The ids of ``Assigned<resource>`` (None: the slot has no such list)."""
    value = ad.get(f"Assigned{resource}")
    return [i for i in value.replace(",", " ").split() if i] if isinstance(value, str) else None
