"""Simulated machines: ``[[machines]]`` tables (and ``add_machines`` events) to slot ads.

A table gives ``count`` machines and either ``ad`` (one old-syntax slot ad per machine,
static or partitionable) or, without ``ad``, the slots the ``[config]`` startd knobs give one
machine (``NUM_CPUS``, ``SLOT_TYPE_<N>``, ...; ``fairpool.startd.layout``). ``name`` is the
machines' host-name pattern, ``{n}`` numbering them from 1 (default ``m<table>-{n}``); a
slot is named ``slot<SlotID>@<host>``. What an ad leaves out is filled in as its startd
would publish it: the bookkeeping attributes (``MyType``, ``State``, ``Activity``,
``SlotID``, ``Rank = 0``, ``Requirements = START``, for a partitionable slot ``START &&
WithinResourceLimits``), the machine's platform and domains (``Arch``, ``OpSys``,
``OpSysAndVer``..., ``FileSystemDomain`` and ``UidDomain`` from ``[config]``'s
``FILESYSTEM_DOMAIN`` and ``UID_DOMAIN``, both ``localdomain`` unless set: one pool
sharing one configuration, as its jobs do; startd/machine.py), ``Disk`` (100 GiB) and
the ``Total*`` figures. ``Cpus`` is the scenario's to give.

Each table also carries its startd policy and owner activity (``activity``,
``activity_repeat``; startd_policy.py), and whether its machines run the startd.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..classad import ClassAd, ClassAdSyntaxError, Expr, parse_ad
from ..config import Config
from ..negotiator.consumption import has_policy as has_consumption_policy
from ..startd import StartdPolicy
from ..startd.layout import machine_ads
from ..startd.machine import machine_attributes
from ..startd.slot import limit_resources
from .startd_policy import OwnerActivity, driven, read_activity, table_policy
from .table import Table

__all__ = ["MachineSpec", "machine_slots", "parse_machines"]

_KEYS = ("count", "ad", "name", "activity", "activity_repeat")


@dataclass(frozen=True)
class MachineSpec:
    """``count`` machines, each with the slots of ``template``, hosts named by ``name``;
    ``driven``: they run ``policy`` (and ``activity``) in a startd."""

    count: int
    template: tuple[ClassAd, ...]
    name: str
    label: str
    policy: StartdPolicy
    activity: OwnerActivity | None
    driven: bool


def parse_machines(
    table: Table, knobs: Config, default_name: str, extra: tuple = ()
) -> MachineSpec:
    """Read a ``[[machines]]`` table (``extra``: further keys the caller reads itself)."""
    table.allow(_KEYS + extra)
    count = table.integer("count", 1, minimum=1)
    name = table.text("name", default_name)
    if count > 1 and "{n" not in name:
        raise table.fail("name")("expected a pattern with {n} when count is more than 1")
    try:
        name.format(n=1)
    except (ValueError, KeyError, IndexError) as err:
        raise table.fail("name")(f'expected a pattern such as "node{{n:03d}}" ({err})') from None
    own = _slot_ad(table) if table.has("ad") else None
    if own is not None:
        _fill_machine(own, knobs)
    template = (own,) if own is not None else tuple(machine_ads(knobs))
    policy = table_policy(knobs, own)
    activity = read_activity(table)
    runs = driven(policy, template, activity)
    if runs and any(has_consumption_policy(ad) for ad in template):
        raise table.fail("activity" if activity else "ad")(
            "a startd policy on machines with a consumption policy is not simulated"
        )
    return MachineSpec(count, template, name, table.name, policy, activity, runs)


def _slot_ad(table: Table) -> ClassAd:
    text = table.text("ad")
    try:
        ad = parse_ad(text)
    except ClassAdSyntaxError as err:
        raise table.fail("ad")(f"not a machine ad: {err.message} (line {err.line})") from None
    if "Cpus" not in ad:
        raise table.fail("ad")("the machine ad needs Cpus")
    return ad


def _fill_machine(ad: ClassAd, knobs: Config) -> None:
    """What a table's ad leaves out of the machine attributes its startd would publish."""
    for name, value in machine_attributes(knobs, "localhost").items():
        if name not in ad and name != "Machine":
            ad[name] = value
    if "Disk" not in ad:
        ad["Disk"] = DISK
    for resource in ("Cpus", "Memory", "Disk"):
        if resource in ad and f"Total{resource}" not in ad:
            ad[f"Total{resource}"] = ad.lookup(resource)


DISK = 100 * 1024 * 1024  # KiB, the layout's default (startd/layout.py)


def machine_slots(spec: MachineSpec, first: int = 1) -> list[ClassAd]:
    """The slot ads of machines ``first`` .. ``first + count - 1`` of ``spec``."""
    templates = [_published(t, number) for number, t in enumerate(spec.template, 1)]
    slots = []
    for n in range(first, first + spec.count):
        host = spec.name.format(n=n)
        for slot_id, template in templates:
            ad = template.copy()
            ad.update({"Name": f"slot{slot_id}@{host}", "Machine": host, "SlotID": slot_id})
            slots.append(ad)
    return slots


def _published(template: ClassAd, number: int) -> tuple[int, ClassAd]:
    """A template with what a startd adds filled in, and its SlotID. Done once per table,
    so the machines' copies share each expression (the vector evaluator evaluates an
    expression shared by many slots once over all of them)."""
    ad = template.copy()
    slot_id = ad.eval("SlotID") if "SlotID" in ad else number
    slot_id = slot_id if type(slot_id) is int else number
    defaults = {"MyType": "Machine", "State": "Unclaimed", "Activity": "Idle", "Rank": 0}
    for key, value in defaults.items():
        if key not in ad:
            ad[key] = value
    partitionable = ad.eval("PartitionableSlot") is True
    if "Requirements" not in ad:
        if "START" not in ad:
            ad["START"] = True
        ad["Requirements"] = Expr("START")
        if partitionable and not has_consumption_policy(ad):  # as the startd publishes it
            limit_resources(ad)
    if partitionable:
        ad.update({"SlotType": "Partitionable", "NumDynamicSlots": 0})
        for resource in ("Cpus", "Memory", "Disk"):
            if resource in ad and f"TotalSlot{resource}" not in ad:
                ad[f"TotalSlot{resource}"] = ad.eval(resource)
    return slot_id, ad
