"""The negotiator's CEDAR commands: the accountant's records (GET_PRIORITY, and
GET_PRIORITY_ROLLUP for hierarchical groups), a submitter's slots (GET_RESLIST), and
condor_userprio's edits, each the negotiator core's ``edit_record`` (daemons/negotiator.py).

As observed with the wheel (spec/cedar.md): the priority answer is one ad of numbered
attributes (``Name1``, ``Priority1``, ... one set per record, with ``NumSubmittors``
and ``LastUpdate``) and, unlike every other ad, no MyType and TargetType after it; so
is GET_RESLIST's (``Name1``, ``StartTime1``...). An edit is the command, the user's
name and (but for reset and delete) a value, and RESET_ALL_USAGE the command alone;
none has an answer, so a refused edit (not ADMINISTRATOR, a bad name or value) is only
logged. The wheel has no call for SET_FLOOR.
"""

from __future__ import annotations

from typing import Any

from ..accounting.records import ATTRIBUTE_NAMES, Customer
from ..classad import ClassAd
from ..daemons.negotiator import Negotiator
from ..errors import FairpoolError
from . import commands
from .server import Exchange, Handler
from .wire import Reader, Writer

__all__ = ["negotiator_handlers", "priority_ad"]

# command -> (edit_record's edit, how its value travels)
_EDITS: dict[int, tuple[str, str | None]] = {
    commands.SET_PRIORITYFACTOR: ("factor", "double"),
    commands.SET_PRIORITY: ("priority", "double"),
    commands.SET_ACCUMUSAGE: ("usage", "double"),
    commands.SET_BEGINTIME: ("begin", "int"),
    commands.SET_LASTTIME: ("last", "int"),
    commands.SET_CEILING: ("ceiling", "int"),
    commands.RESET_USAGE: ("reset", None),
    commands.DELETE_USER: ("delete", None),
}
# what the wheel sends with no user: every record
_ALL = {commands.RESET_ALL_USAGE: "reset"}


def negotiator_handlers(negotiator: Negotiator) -> dict[int, Handler]:
    async def priorities(exchange: Exchange) -> None:
        rollup = exchange.command == commands.GET_PRIORITY_ROLLUP
        accountant = negotiator.accountant
        records = list(accountant.customers.values())
        ad = priority_ad(records, accountant.last_update, rollup)
        await exchange.send(Writer().ad(ad, trailer=False))

    async def edit(exchange: Exchange) -> None:
        message = await exchange.receive()
        kind, encoding = _EDITS[exchange.command]
        user = message.string("the user")
        value = _value(message, encoding)
        try:
            await negotiator.edit_record(exchange.caller, kind, user, value)
        except FairpoolError as err:
            negotiator.log.info("CEDAR edit refused: %s", err)

    async def resources(exchange: Exchange) -> None:
        user = (await exchange.receive()).string("the user")
        ad = ClassAd()
        for number, held in enumerate(await negotiator.resources_of(user), 1):
            for name, value in held.items():
                ad[f"{name}{number}"] = value
        await exchange.send(Writer().ad(ad, trailer=False))

    async def edit_all(exchange: Exchange) -> None:
        try:
            await negotiator.edit_all(exchange.caller, _ALL[exchange.command])
        except FairpoolError as err:
            negotiator.log.info("CEDAR edit refused: %s", err)

    handlers: dict[int, Handler] = dict.fromkeys(_EDITS, edit)
    handlers.update(dict.fromkeys(_ALL, edit_all))
    handlers[commands.GET_PRIORITY] = priorities
    handlers[commands.GET_PRIORITY_ROLLUP] = priorities
    handlers[commands.GET_RESLIST] = resources
    return handlers


def priority_ad(records: list[Customer], last_update: float, rollup: bool) -> ClassAd:
    """The accountant's records as one ad of numbered attributes. With ``rollup`` a
    group's resources in use are its whole subtree's."""
    ad = ClassAd({"LastUpdate": int(last_update), "NumSubmittors": len(records)})
    for number, record in enumerate(sorted(records, key=lambda r: r.name), 1):
        fields: dict[str, Any] = {"Name": record.name}
        for field, attribute in ATTRIBUTE_NAMES.items():
            if field != "hier_weighted_resources_used":
                fields[attribute] = getattr(record, field)
        if rollup and record.is_group:
            fields["WeightedResourcesUsed"] = record.hier_weighted_resources_used
        fields["IsAccountingGroup"] = record.is_group
        fields["AccountingGroup"] = record.name
        for attribute, value in fields.items():
            ad[f"{attribute}{number}"] = value
    return ad


def _value(message: Reader, encoding: str | None) -> float:
    if encoding == "double":
        return message.double("the value")
    if encoding == "int":
        return float(message.int("the value"))
    return 0.0
