"""The slot ads a startd advertises for its configuration: how ``NUM_CPUS``, ``MEMORY``,
``SLOT_TYPE_<N>``, ``NUM_SLOTS_TYPE_<N>``, ``SLOT_TYPE_<N>_PARTITIONABLE``, ``NUM_SLOTS``,
``CONSUMPTION_POLICY`` / ``CONSUMPTION_<RES>``, ``START``, ``RANK`` and ``SLOT_WEIGHT``
divide one machine into slots.

This lets a dry run or a simulation take its machines from the same configuration the
startds run (HTCondor's own regression tests describe their pools this way: ``NUM_CPUS = 4``).
The machine's hardware is what the knobs say, never detected: ``NUM_CPUS`` (default
``DETECTED_CPUS``, 1), ``MEMORY`` in MiB (default ``DETECTED_MEMORY``, 2048 per CPU),
``DISK`` in KiB (default 100 GiB) and ``NUM_GPUS`` (default 0).

A slot type is a comma list of ``resource=amount`` (``cpus``/``c``, ``memory``/``mem``/``m``/
``ram``, ``disk``/``d``, ``gpus``), each amount a whole number (MiB for memory; ``GB``/``MB``
suffixes too), a percentage (``50%``), a fraction (``1/4``) or ``auto``; or one bare fraction
or percentage for every resource. Resources a type leaves out are ``auto``: an even share of
what the typed slots leave, as HTCondor does; an empty ``SLOT_TYPE_<N>`` is all ``auto``.

A partitionable slot's ``Requirements`` is ``START && WithinResourceLimits``, as the
startd publishes it (spec startd.md §5, §11), except under a consumption policy.

``START``, ``RANK`` and ``SLOT_WEIGHT`` are taken from the configuration files; where the
files do not set them, HTCondor's built-in defaults apply (``TRUE``, ``0``, ``Cpus``), not
the seed's desktop policy that fairpool's parameter table gives the startd: the machines a
dry run describes are dedicated ones, as in HTCondor's own regression tests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..classad import ClassAd, Expr
from ..config.knob_values import KnobSource as Knobs
from ..config.knob_values import knob_error, knob_expr
from .slot import limit_resources

__all__ = ["Knobs", "machine_ads"]

RESOURCES = ("Cpus", "Memory", "Disk", "GPUs")
_ALIASES = {
    "cpus": "Cpus",
    "cpu": "Cpus",
    "c": "Cpus",
    "memory": "Memory",
    "mem": "Memory",
    "m": "Memory",
    "ram": "Memory",
    "disk": "Disk",
    "d": "Disk",
    "gpus": "GPUs",
    "gpu": "GPUs",
}
_UNITS = {"": 1, "K": 1 / 1024, "KB": 1 / 1024, "M": 1, "MB": 1, "G": 1024, "GB": 1024}
_MAX_TYPES = 10


@dataclass(frozen=True)
class _SlotType:
    number: int  # 0 for the default type
    count: int
    share: dict[str, str]  # resource -> amount text ("auto" where unset)
    partitionable: bool


def machine_ads(knobs: Knobs) -> list[ClassAd]:
    """Every slot ad the machine the configuration describes starts with."""
    total = _hardware(knobs)
    types = _slot_types(knobs, total)
    host = (knobs.get("FULL_HOSTNAME") or knobs.get("HOSTNAME") or "localhost").strip()
    sizes = _sizes(knobs, types, total)
    ads, slot_id = [], 0
    for slot_type, size in zip(types, sizes, strict=True):
        for _ in range(slot_type.count):
            slot_id += 1
            ads.append(_slot_ad(knobs, host, slot_id, slot_type, size, total))
    for ad in ads:
        ad["TotalSlots"] = len(ads)
    return ads


def _hardware(knobs: Knobs) -> dict[str, float]:
    cpus = _number(knobs, "NUM_CPUS") or _number(knobs, "DETECTED_CPUS") or 1
    memory = _number(knobs, "MEMORY") or _number(knobs, "DETECTED_MEMORY") or 2048 * cpus
    return {
        "Cpus": cpus,
        "Memory": memory,
        "Disk": _number(knobs, "DISK") or 100 * 1024 * 1024,
        "GPUs": _number(knobs, "NUM_GPUS") or 0,
    }


def _slot_types(knobs: Knobs, total: dict[str, float]) -> list[_SlotType]:
    types = []
    for number in range(1, _MAX_TYPES + 1):
        text = knobs.get(f"SLOT_TYPE_{number}")
        count = _number(knobs, f"NUM_SLOTS_TYPE_{number}")
        if not count:
            continue
        share = (
            _parse_type(knobs, f"SLOT_TYPE_{number}", text)
            if text and text.strip()
            else {r: "auto" for r in RESOURCES}  # an empty type: even shares (StaticSlots)
        )
        types.append(
            _SlotType(number, int(count), share, _flag(knobs, f"SLOT_TYPE_{number}_PARTITIONABLE"))
        )
    if types:
        return types
    count = _number(knobs, "NUM_SLOTS")
    count = int(count) if count else int(total["Cpus"])
    return [_SlotType(0, count, {r: "auto" for r in RESOURCES}, False)]


def _parse_type(knobs: Knobs, name: str, text: str) -> dict[str, str]:
    share = {r: "auto" for r in RESOURCES}
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) == 1 and "=" not in parts[0]:
        if not re.fullmatch(r"\d+(\.\d+)?%|\d+/\d+", parts[0]):
            raise knob_error(knobs, name, "resource=amount pairs or one fraction such as 1/4")
        return {r: parts[0] for r in RESOURCES}
    for part in parts:
        resource, sep, amount = part.partition("=")
        key = _ALIASES.get(resource.strip().lower())
        if not sep or key is None:
            raise knob_error(
                knobs, name, f"resource=amount (cpus, memory, disk, gpus), not {part!r}"
            )
        share[key] = amount.strip()
    return share


def _sizes(
    knobs: Knobs, types: list[_SlotType], total: dict[str, float]
) -> list[dict[str, float | None]]:
    """Each type's amounts: fixed ones first, then ``auto`` shares of what remains."""
    fixed: list[dict[str, float | None]] = []
    for slot_type in types:
        name = f"SLOT_TYPE_{slot_type.number}" if slot_type.number else "NUM_SLOTS"
        fixed.append({r: _amount(knobs, name, slot_type.share[r], total[r], r) for r in RESOURCES})
    for resource in RESOURCES:
        used = sum((f[resource] or 0) * t.count for f, t in zip(fixed, types, strict=True))
        autos = sum(t.count for f, t in zip(fixed, types, strict=True) if f[resource] is None)
        left = max(0.0, total[resource] - used)
        for f in fixed:
            if f[resource] is None:
                f[resource] = _even(left, autos, resource)
    return fixed


def _even(left: float, slots: int, resource: str) -> float:
    share = left / slots if slots else 0
    return float(int(share)) if resource in ("Cpus", "GPUs") else share


def _amount(knobs: Knobs, name: str, text: str, total: float, resource: str) -> float | None:
    text = text.strip()
    if text.lower() == "auto":
        return None
    if text.endswith("%"):
        return total * float(text[:-1]) / 100
    if "/" in text:
        top, _, bottom = text.partition("/")
        return total * float(top) / float(bottom)
    found = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMG]B?)?", text, re.IGNORECASE)
    if found is None:
        raise knob_error(knobs, name, f"an amount, percentage or fraction, not {text!r}")
    value = float(found.group(1))
    if resource == "Memory":
        value *= _UNITS[(found.group(2) or "").upper()]
    return value


def _slot_ad(
    knobs: Knobs,
    host: str,
    slot_id: int,
    slot_type: _SlotType,
    size: dict[str, float],
    total: dict[str, float],
) -> ClassAd:
    kind = "Partitionable" if slot_type.partitionable else "Static"
    ad = ClassAd(
        {
            "MyType": "Machine",
            "Name": f"slot{slot_id}@{host}",
            "Machine": host,
            "SlotID": slot_id,
            "SlotTypeID": slot_type.number,
            "SlotType": kind,
            "PartitionableSlot": slot_type.partitionable,
            "State": "Unclaimed",
            "Activity": "Idle",
            "Arch": (knobs.get("ARCH") or "X86_64").strip(),
            "OpSys": (knobs.get("OPSYS") or "LINUX").strip(),
            "HasFileTransfer": True,
            "CurrentRank": 0.0,
            "TotalCpus": int(total["Cpus"]),
            "TotalMemory": int(total["Memory"]),
            "TotalDisk": int(total["Disk"]),
            **{r: int(size[r]) for r in RESOURCES},
            **{f"TotalSlot{r}": int(size[r]) for r in RESOURCES},
        }
    )
    ad["START"] = _policy(knobs, "START", "TRUE")
    ad["Requirements"] = Expr("START")
    ad["Rank"] = _policy(knobs, "RANK", "0")
    ad["SlotWeight"] = _policy(knobs, "SLOT_WEIGHT", "Cpus")
    if slot_type.partitionable:
        ad["NumDynamicSlots"] = 0
        if not _flag(knobs, "CONSUMPTION_POLICY"):
            limit_resources(ad)
        else:
            ad["MachineResources"] = " ".join(RESOURCES)
            for resource in RESOURCES:
                expr = knobs.get(f"CONSUMPTION_{resource.upper()}")
                if expr and expr.strip():
                    ad[f"Consumption{resource}"] = _expression(
                        knobs, f"CONSUMPTION_{resource}", "0"
                    )
    return ad


def _expression(knobs: Knobs, name: str, default: str) -> Expr:
    return knob_expr(knobs, name) or Expr(default)


def _policy(knobs: Knobs, name: str, builtin: str) -> Expr:
    """A policy knob the configuration files set, else HTCondor's built-in default: the
    machines of a dry run are dedicated ones, not the seed's desktop policy."""
    source, _ = knobs.where(name)
    if source in (None, "<default>"):
        return Expr(builtin)
    return _expression(knobs, name, builtin)


def _number(knobs: Knobs, name: str) -> float | None:
    text = knobs.get(name)
    if text is None or not text.strip():
        return None
    value = _expression(knobs, name, "0").eval()
    if type(value) not in (int, float) or value < 0:
        raise knob_error(knobs, name, "a number of 0 or more")
    return float(value)


def _flag(knobs: Knobs, name: str) -> bool:
    text = knobs.get(name)
    return bool(text) and _expression(knobs, name, "false").eval() is True
