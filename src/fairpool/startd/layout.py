"""The slot ads a startd advertises for its configuration: how ``NUM_CPUS``, ``MEMORY``,
``DISK``, ``MACHINE_RESOURCE_<name>``, ``SLOT_TYPE_<N>``, ``NUM_SLOTS_TYPE_<N>``,
``NUM_SLOTS``, ``SLOT_TYPE_<N>_PARTITIONABLE``, the consumption policy knobs, ``START``,
``RANK``, ``SLOT_WEIGHT`` and ``STARTD_ATTRS`` divide one machine into slots (HTCondor's
manual, "Startd Daemon Configuration Options" and "condor_startd policy configuration").

This lets a dry run or a simulation take its machines from the same configuration the
startds run (HTCondor's own regression tests describe their pools this way).

**Hardware.** What the configuration says, never what fairpool runs on: ``NUM_CPUS``
(else ``DETECTED_CPUS``, else 1), ``MEMORY`` in MiB (else ``DETECTED_MEMORY``, else 2048 a
CPU) less ``RESERVED_MEMORY``, ``DISK`` in KiB (else 100 GiB) less ``RESERVED_DISK`` (MiB),
and each ``MACHINE_RESOURCE_<name>`` (a quantity, or a list of ids; filtered by
``MACHINE_RESOURCE_NAMES`` when set); ``NUM_GPUS`` is fairpool's shorthand for
``MACHINE_RESOURCE_GPUs``. Only values the configuration sets count (``startd.machine.
configured``): ``fairpool.config``'s host facts and table defaults do not, so the same
files give the same slots on any machine. The live startd, which measures its machine,
passes its figures in ``detected`` (``DETECTED_CPUS``, ``DETECTED_MEMORY``, ...); they
stand where the files set nothing.

**Slots.** Since HTCondor 23 a startd without slot types makes one partitionable slot
owning the whole machine; ``NUM_SLOTS`` (or ``SLOT_TYPE_0_PARTITIONABLE = False``) makes
static slots instead, one per CPU unless ``NUM_SLOTS`` says how many. A slot type is a
comma list of ``resource=amount`` and at most one bare amount for the resources it leaves
out; each amount a whole number (MiB for memory; ``GB``/``MB`` suffixes too), a
percentage, a fraction or ``auto``. Resource names match a custom resource's name, else
by first letter as HTCondor reads them (``c`` cpus, ``m``/``r`` memory, ``d`` disk,
``s``/``v`` swap). ``auto`` shares evenly what the typed slots leave.

**Per-slot knobs.** Every knob a slot reads is looked up as ``SLOT<id>_<knob>``, then
``SLOT_TYPE_<N>_<knob>``, then ``<knob>``: ``START``, ``RANK``, ``SLOT_WEIGHT``, the
other policy expressions, ``CONSUMPTION_POLICY``, ``CONSUMPTION_<RES>`` and the
attributes ``STARTD_ATTRS``/``STARTD_EXPRS`` (and ``SLOT<id>_STARTD_ATTRS``) name.
``START``, ``RANK`` and ``SLOT_WEIGHT`` not set in the files take HTCondor's built-in
defaults (``TRUE``, ``0``, ``Cpus``), not the seed's desktop policy: the machines a dry
run describes are dedicated ones.

A partitionable slot's ``Requirements`` is ``START && WithinResourceLimits`` (spec
startd.md §5, §11), except under a consumption policy, whose ``CONSUMPTION_CPUS``,
``_MEMORY`` and ``_DISK`` default to ``quantize(target.Request<R>, {1 | 128 | 1024})``.

**Names.** Slots are ``slot<id>@<startd>``: the startd is named by ``STARTD_NAME``
(``name@host`` as HTCondor composes it, so that two startds of one host differ), else
by the host (``FULL_HOSTNAME``); ``Machine`` is the host either way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..classad import ClassAd, Expr
from ..config.knob_values import KnobSource as Knobs
from ..config.knob_values import daemon_name, knob_error, knob_expr
from .knobs import POLICY_EXPRESSIONS
from .machine import configured, machine_attributes
from .slot import limit_resources

__all__ = ["Knobs", "machine_ads"]

STANDARD = ("Cpus", "Memory", "Disk")
_BY_LETTER = {"c": "Cpus", "m": "Memory", "r": "Memory", "d": "Disk", "s": "Swap", "v": "Swap"}
_UNITS = {"": 1, "K": 1 / 1024, "KB": 1 / 1024, "M": 1, "MB": 1, "G": 1024, "GB": 1024}
_CONSUMPTION = {
    "Cpus": "quantize(target.RequestCpus, {1})",
    "Memory": "quantize(target.RequestMemory, {128})",
    "Disk": "quantize(target.RequestDisk, {1024})",
}
_BUILTIN = {"START": "TRUE", "RANK": "0", "SLOT_WEIGHT": "Cpus"}
_MAX_TYPES = 10


@dataclass(frozen=True)
class _Machine:
    host: str
    name: str  # the startd's (STARTD_NAME), after which its slots are named
    totals: dict[str, float]  # resource -> amount; Swap in KiB
    custom: tuple[str, ...]  # the MACHINE_RESOURCE_<name> resources
    ids: dict[str, list[str]]  # custom resources given as id lists


@dataclass(frozen=True)
class _SlotType:
    number: int  # 0 for the default type
    count: int
    share: dict[str, str]  # resource -> amount text ("auto" where unset)
    partitionable: bool


def machine_ads(knobs: Knobs, detected: Mapping[str, str] | None = None) -> list[ClassAd]:
    """Every slot ad the machine the configuration describes starts with (``detected``:
    the live startd's measurements, ``DETECTED_CPUS``, ``DETECTED_MEMORY``...)."""
    machine = _machine(knobs, {k.upper(): v for k, v in (detected or {}).items()})
    types = _slot_types(knobs, machine)
    sizes = _sizes(knobs, types, machine)
    ads, slot_id, taken = [], 0, {name: 0 for name in machine.ids}
    for slot_type, size in zip(types, sizes, strict=True):
        for _ in range(slot_type.count):
            slot_id += 1
            ad = _slot_ad(knobs, machine, slot_id, slot_type, size)
            for name, ids in machine.ids.items():
                count = int(size[name])
                ad[f"Assigned{name}"] = ", ".join(ids[taken[name] : taken[name] + count])
                taken[name] += count
            ads.append(ad)
    for ad in ads:
        ad["TotalSlots"] = len(ads)
    return ads


# -- the machine ---------------------------------------------------------------------


def _machine(knobs: Knobs, detected: dict[str, str]) -> _Machine:
    cpus = _number(knobs, "NUM_CPUS") or _detected(knobs, detected, "DETECTED_CPUS") or 1
    memory = _number(knobs, "MEMORY") or _detected(knobs, detected, "DETECTED_MEMORY")
    memory = (memory or 2048 * cpus) - (_number(knobs, "RESERVED_MEMORY") or 0)
    disk = (_number(knobs, "DISK") or 100 * 1024 * 1024) - 1024 * (
        _number(knobs, "RESERVED_DISK") or 0
    )
    totals = {"Cpus": cpus, "Memory": max(memory, 0), "Disk": max(disk, 0), "GPUs": 0.0}
    totals["GPUs"] = _number(knobs, "NUM_GPUS") or 0
    ids: dict[str, list[str]] = {}
    custom = _custom_names(knobs)
    for name in custom:
        knob = f"MACHINE_RESOURCE_{name}"
        text = configured(knobs, knob) or ""
        if re.fullmatch(r"\s*\d+(\.\d+)?\s*", text):
            totals[name] = float(text)
        else:
            ids[name] = [i for i in re.split(r"[\s,]+", text) if i]
            totals[name] = float(len(ids[name]))
    totals["Swap"] = totals["Memory"] * 1024
    host = (knobs.get("FULL_HOSTNAME") or knobs.get("HOSTNAME") or "localhost").strip()
    name = daemon_name(knobs.get("STARTD_NAME"), host)
    return _Machine(host, name, totals, tuple(custom), ids)


def _detected(knobs: Knobs, detected: dict[str, str], name: str) -> float | None:
    if name in detected:
        return float(detected[name])
    return _number(knobs, name)


def _custom_names(knobs: Knobs) -> list[str]:
    """The custom resources: ``MACHINE_RESOURCE_<name>`` knobs the files set (the names
    ``MACHINE_RESOURCE_NAMES`` lists, when it is set), spelled as the knob is."""
    names = getattr(knobs, "names", None)
    found = []
    for knob in names() if names is not None else []:
        if knob.upper().startswith("MACHINE_RESOURCE_") and configured(knobs, knob):
            name = knob[len("MACHINE_RESOURCE_") :]
            if name.upper() not in ("NAMES",) and not name.upper().startswith("INVENTORY_"):
                found.append("GPUs" if name.upper() == "GPUS" else name[0].upper() + name[1:])
    wanted = configured(knobs, "MACHINE_RESOURCE_NAMES")
    if wanted is not None:
        allowed = {n.upper() for n in re.split(r"[\s,]+", wanted) if n}
        found = [n for n in found if n.upper() in allowed]
    return found


# -- slot types ----------------------------------------------------------------------


def _slot_types(knobs: Knobs, machine: _Machine) -> list[_SlotType]:
    names = list(machine.totals)
    types = []
    for number in range(1, _MAX_TYPES + 1):
        count = _number(knobs, f"NUM_SLOTS_TYPE_{number}")
        if not count:
            continue
        text = knobs.get(f"SLOT_TYPE_{number}")
        share = _parse_type(knobs, f"SLOT_TYPE_{number}", text or "", names)
        partitionable = _flag(knobs, f"SLOT_TYPE_{number}_PARTITIONABLE", False)
        types.append(_SlotType(number, int(count), share, partitionable))
    if types:
        return types
    count = _number(knobs, "NUM_SLOTS")
    partitionable = _flag(knobs, "SLOT_TYPE_0_PARTITIONABLE", count is None)
    if count is None:
        count = 1 if partitionable else machine.totals["Cpus"]
    share = _parse_type(knobs, "SLOT_TYPE_0", knobs.get("SLOT_TYPE_0") or "", names)
    return [_SlotType(0, int(count), share, partitionable)]


def _parse_type(knobs: Knobs, name: str, text: str, resources: list[str]) -> dict[str, str]:
    """Resource -> amount text of a slot type: ``cpus=2, mem=25%, 1/4`` (a bare amount
    serves every resource the list leaves out)."""
    given: dict[str, str] = {}
    blanket = "auto"
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        resource, sep, amount = part.partition("=")
        if not sep:
            if not re.fullmatch(r"\d+(\.\d+)?%|\d+/\d+|auto", part, re.IGNORECASE):
                raise knob_error(knobs, name, "resource=amount pairs or one fraction such as 1/4")
            blanket = part
            continue
        key = _resource(resource.strip(), resources)
        if key is None:
            raise knob_error(knobs, name, f"resource=amount ({', '.join(resources)}), not {part!r}")
        given[key] = amount.strip()
    return {r: given.get(r, blanket) for r in resources}


def _resource(word: str, resources: list[str]) -> str | None:
    """A slot type's resource name: a resource's own name, else HTCondor's first letter."""
    for resource in resources:
        if word.lower() in (resource.lower(), resource.lower().rstrip("s")):
            return resource
    return _BY_LETTER.get(word[:1].lower()) if word else None


def _sizes(knobs: Knobs, types: list[_SlotType], machine: _Machine) -> list[dict[str, float]]:
    """Each type's amounts: fixed ones first, then ``auto`` shares of what remains."""
    fixed: list[dict[str, float | None]] = []
    for slot_type in types:
        name = f"SLOT_TYPE_{slot_type.number}" if slot_type.number else "NUM_SLOTS"
        fixed.append(
            {
                r: _amount(knobs, name, slot_type.share[r], total, r)
                for r, total in machine.totals.items()
            }
        )
    for resource, total in machine.totals.items():
        used = sum((f[resource] or 0) * t.count for f, t in zip(fixed, types, strict=True))
        autos = sum(t.count for f, t in zip(fixed, types, strict=True) if f[resource] is None)
        left = max(0.0, total - used)
        for f in fixed:
            if f[resource] is None:
                f[resource] = _even(left, autos, resource)
    return [{r: v or 0.0 for r, v in f.items()} for f in fixed]


def _even(left: float, slots: int, resource: str) -> float:
    share = left / slots if slots else 0
    return share if resource in ("Memory", "Disk", "Swap") else float(int(share))


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


# -- one slot ------------------------------------------------------------------------


def _slot_ad(
    knobs: Knobs, machine: _Machine, slot_id: int, slot_type: _SlotType, size: dict[str, float]
) -> ClassAd:
    totals = machine.totals
    resources = [r for r in totals if r != "Swap"]
    kind = "Partitionable" if slot_type.partitionable else "Static"
    ad = ClassAd(machine_attributes(knobs, machine.host))
    ad.update(
        {
            "Name": f"slot{slot_id}@{machine.name}",
            "SlotID": slot_id,
            "SlotTypeID": slot_type.number,
            "SlotType": kind,
            "PartitionableSlot": slot_type.partitionable,
            "State": "Unclaimed",
            "Activity": "Idle",
            "CurrentRank": 0.0,
            "DetectedCpus": int(totals["Cpus"]),
            "DetectedMemory": int(totals["Memory"]),
            "TotalVirtualMemory": int(totals["Swap"]),
            "VirtualMemory": int(size["Swap"]),
            **{f"Total{r}": _whole(totals[r]) for r in resources},
            **{r: _whole(size[r]) for r in resources},
            **{f"TotalSlot{r}": _whole(size[r]) for r in resources},
            **{f"Detected{r}": _whole(totals[r]) for r in machine.custom},
        }
    )
    knob = _SlotKnobs(knobs, slot_id, slot_type.number)
    ad["START"] = knob.policy("START")
    ad["Requirements"] = Expr("START")
    ad["Rank"] = knob.policy("RANK")
    ad["SlotWeight"] = knob.policy("SLOT_WEIGHT")
    for name, attribute in POLICY_EXPRESSIONS.items():
        if name not in _BUILTIN and knob.specific(name):
            ad[attribute] = knob.expr(name)
    for name in knob.attribute_names():
        value = knob.attribute(name)
        if value is not None:
            ad[name] = value
    if slot_type.partitionable:
        ad["NumDynamicSlots"] = 0
        if knob.flag("CONSUMPTION_POLICY"):
            ad["MachineResources"] = " ".join(r for r in resources if totals[r] or r in STANDARD)
            for resource in resources:
                default = _CONSUMPTION.get(resource)
                if knob.text(f"CONSUMPTION_{resource.upper()}") is not None or default:
                    ad[f"Consumption{resource}"] = knob.expr(f"CONSUMPTION_{resource}", default)
        else:
            limit_resources(ad, [r for r in resources if r not in (*STANDARD, "GPUs")])
    return ad


def _whole(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


class _SlotKnobs:
    """A slot's view of the configuration: ``SLOT<id>_<knob>``, then
    ``SLOT_TYPE_<N>_<knob>``, then ``<knob>``."""

    def __init__(self, knobs: Knobs, slot_id: int, type_number: int) -> None:
        self.knobs = knobs
        self.prefixes = (f"SLOT{slot_id}_", f"SLOT_TYPE_{type_number}_")

    def _found(self, name: str, specific_only: bool = False) -> str | None:
        """The knob that applies to this slot (its full name), None when none is set."""
        for prefix in self.prefixes:
            if configured(self.knobs, prefix + name) is not None:
                return prefix + name
        if specific_only or configured(self.knobs, name) is None:
            return None
        return name

    def specific(self, name: str) -> bool:
        return self._found(name, specific_only=True) is not None

    def text(self, name: str) -> str | None:
        found = self._found(name)
        return None if found is None else self.knobs.get(found)

    def expr(self, name: str, default: str | None = None) -> Expr:
        found = self._found(name)
        value = knob_expr(self.knobs, found) if found is not None else None
        return value if value is not None else Expr(default or "UNDEFINED")

    def policy(self, name: str) -> Expr:
        """A policy knob the configuration files set, else HTCondor's built-in default:
        the machines of a dry run are dedicated ones, not the seed's desktop policy."""
        return self.expr(name, _BUILTIN[name])

    def flag(self, name: str) -> bool:
        return self._found(name) is not None and self.expr(name).eval() is True

    def attribute(self, name: str) -> Expr | None:
        """A STARTD_ATTRS entry's value: its slot-specific knob, else the knob as the
        configuration (or its parameter table) gives it; None when nothing does."""
        found = self._found(name, specific_only=True) or name
        return knob_expr(self.knobs, found)

    def attribute_names(self) -> list[str]:
        """What STARTD_ATTRS / STARTD_EXPRS (and their slot-specific forms) name."""
        names: list[str] = []
        for knob in ("STARTD_ATTRS", "STARTD_EXPRS"):
            for candidate in (*(p + knob for p in self.prefixes), knob):
                text = self.knobs.get(candidate) or ""
                names += [n for n in re.split(r"[\s,]+", text) if n and n not in names]
        return names


def _number(knobs: Knobs, name: str) -> float | None:
    """A number the configuration sets (None when it sets nothing)."""
    if configured(knobs, name) is None:
        return None
    value = (knob_expr(knobs, name) or Expr("0")).eval()
    if type(value) not in (int, float) or value < 0:
        raise knob_error(knobs, name, "a number of 0 or more")
    return float(value)


def _flag(knobs: Knobs, name: str, default: bool) -> bool:
    if configured(knobs, name) is None:
        return default
    return (knob_expr(knobs, name) or Expr("false")).eval() is True
