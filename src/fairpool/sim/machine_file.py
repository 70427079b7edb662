"""Machines read from a real pool: ``[[machines]] file = "..."``, slot ads as
``condor_status -l`` prints them (old syntax; or JSON, ``condor_status -json``; gzip when
the name ends in ``.gz``).

Only ``MyType = "Machine"`` ads are read (a ``condor_status -any -l`` dump holds daemons'
ads too). Each startd (the part of ``Name`` after its first ``@``) becomes one machine,
its slots taken as they are with what they are doing taken out:

* a partitionable slot gets back what its dynamic slots held (``Cpus``, ``Memory``,
  ``Disk``, ``GPUs`` from its ``TotalSlot*`` figures; ``NumDynamicSlots = 0``, the
  ``Child*`` lists dropped), and its dynamic slots are not read: the simulator carves
  its own as jobs come;
* dynamic slots whose partitionable slot is not in the file (a sampled dump) become that
  partitionable slot: ``slot<ParentSlotId>``, the machine's ``Total*`` resources, and
  ``Requirements = START && WithinResourceLimits`` as a startd publishes it;
* static slots are Unclaimed and Idle again (the claim's attributes dropped).

The jobs the pool was running are not in the file, so every machine starts idle: the
simulation asks what this pool would do with the scenario's workload. ``count`` copies
each machine (hosts ``<startd>-<n>``); with ``count = 1`` the hosts keep their names.
Expressions stay as written: a ``START`` that reads ``CurrentTime`` against a glidein's
``GLIDEIN_ToDie`` wants ``[simulation] start`` near when the ads were taken.
"""

from __future__ import annotations

from ..classad import ClassAd, ClassAdSyntaxError, parse_ads
from ..config import Config
from ..errors import InputError
from .machines import MachineSpec
from .startd_policy import driven, read_activity, table_policy
from .table import Table

__all__ = ["FILE_KEYS", "machines_from_file"]

FILE_KEYS = ("file", "count", "activity", "activity_repeat")
_RESOURCES = ("Cpus", "Memory", "Disk", "GPUs")
_CLAIM = (
    "RemoteUser",
    "RemoteOwner",
    "RemoteHost",
    "RemoteScheddName",
    "JobId",
    "GlobalJobId",
    "JobStart",
    "JobUniverse",
    "TotalJobRunTime",
    "AccountingGroup",
    "ConcurrencyLimits",
    "ClientMachine",
    "PublicClaimId",
    "CurrentRank",
    "PreemptingUser",
    "PreemptingRank",
    "PreemptingAccountingGroup",
    "RemoteUserPrio",
)


def machines_from_file(table: Table, knobs: Config) -> list[MachineSpec]:
    """The machines of a ``[[machines]]`` table that names a file, one spec per startd."""
    table.allow(FILE_KEYS)
    path = table.path("file")
    count = table.integer("count", 1, minimum=1)
    text = table.read(path, "the machine ads")
    try:
        ads = [ad for ad in parse_ads(text, name=str(path)) if _type(ad) == "machine"]
    except (ClassAdSyntaxError, InputError) as err:
        raise table.fail("file")(str(err).splitlines()[0]) from None
    if not ads:
        raise table.fail("file")(f'{path}: no slot ads (MyType = "Machine") in the file')
    activity = read_activity(table)
    specs = []
    for startd, slots in _by_startd(ads, table).items():
        template = tuple(sorted(_machine(slots), key=_slot_id))
        policy = table_policy(knobs, template[0])
        name = startd.replace("{", "{{").replace("}", "}}")
        pattern = name if count == 1 else f"{name}-{{n}}"
        runs = driven(policy, template, activity)
        label = f"{table.name} ({startd})"
        specs.append(MachineSpec(count, template, pattern, label, policy, activity, runs))
    return specs


def _type(ad: ClassAd) -> str:
    kind = ad.eval("MyType") if "MyType" in ad else "Machine"
    return kind.lower() if isinstance(kind, str) else ""


def _by_startd(ads: list[ClassAd], table: Table) -> dict[str, list[ClassAd]]:
    found: dict[str, list[ClassAd]] = {}
    for ad in ads:
        name = ad.eval("Name") if "Name" in ad else None
        if not isinstance(name, str) or "@" not in name:
            raise table.fail("file")(f"a slot ad without a Name such as slot1@host: {name!r}")
        found.setdefault(name.partition("@")[2], []).append(ad)
    return found


def _machine(slots: list[ClassAd]) -> list[ClassAd]:
    """One startd's slots folded back into the machine: see the module's docstring."""
    kinds = ("PartitionableSlot", "DynamicSlot")
    static = [s.copy() for s in slots if not any(_is(s, kind) for kind in kinds)]
    parents = {_slot_id(s): s.copy() for s in slots if _is(s, "PartitionableSlot")}
    for dynamic in (s for s in slots if _is(s, "DynamicSlot")):
        parent = dynamic.eval("ParentSlotId")
        parent = parent if type(parent) is int else 1
        if parent not in parents:
            parents[parent] = _parent_of(dynamic, parent)
    for slot in static:
        _idle(slot)
    for slot in parents.values():
        _whole(slot)
    return static + list(parents.values())


def _parent_of(dynamic: ClassAd, number: int) -> ClassAd:
    """The partitionable slot a dynamic slot was carved from, as its machine's whole."""
    ad = dynamic.copy()
    host = ad.eval("Name").partition("@")[2]
    for name in ("DynamicSlot", "ParentSlotId", "Requirements"):
        ad.pop(name, None)
    ad.update({"Name": f"slot{number}@{host}", "SlotID": number, "PartitionableSlot": True})
    for resource in _RESOURCES:
        total = ad.lookup(f"Total{resource}") if f"Total{resource}" in ad else None
        if total is not None:
            ad.insert_expr(f"TotalSlot{resource}", total)
    return ad


def _whole(pslot: ClassAd) -> None:
    """A partitionable slot with nothing carved from it."""
    _idle(pslot)
    for resource in _RESOURCES:
        if f"TotalSlot{resource}" in pslot:
            pslot.insert_expr(resource, pslot.lookup(f"TotalSlot{resource}"))
    for name in list(pslot):
        if name.lower().startswith("child"):
            del pslot[name]
    pslot.update({"NumDynamicSlots": 0, "SlotType": "Partitionable"})


def _idle(slot: ClassAd) -> None:
    for name in _CLAIM:
        slot.pop(name, None)
    slot.update({"State": "Unclaimed", "Activity": "Idle"})


def _is(ad: ClassAd, name: str) -> bool:
    return name in ad and ad.eval(name) is True


def _slot_id(ad: ClassAd) -> int:
    number = ad.eval("SlotID") if "SlotID" in ad else None
    return number if type(number) is int else 1
