"""``[[events]]``: what an administrator (or a power cut) does at a given time.

Each event has ``at`` (offset from the start) and ``action``:

* ``set_factor``, ``set_ceiling``, ``set_floor``, ``set_priority`` with ``submitter``
  (``"alice"``; the accounting domain is added when no ``@`` is given) or ``group``, and
  ``value`` — what ``condor_userprio -setfactor`` (etc.) does;
* ``add_machines`` with the keys of ``[[machines]]`` (``count``, ``ad``, ``name``);
* ``remove_machines``: the machines (hosts) with a slot matching ``constraint`` (a ClassAd
  expression over slot ads; default: every machine), the last ``count`` of them if given.
  Jobs running there go back to idle and their work is lost (badput), as in a power cut;
* ``config`` with ``text`` or ``file``: the negotiator and accountant take the new
  configuration from the next cycle (factors already given stay, as HTCondor's do);
* ``remove_jobs`` with ``owner``: condor_rm of every job of that owner, and its
  ``[[jobs]]`` sources stop submitting.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..classad import ClassAdSyntaxError, Expr
from ..config import Config
from ..errors import ConfigError
from .machines import MachineSpec, parse_machines
from .table import Table

if TYPE_CHECKING:
    from .runner import Simulation

__all__ = ["EventSpec", "apply_event", "parse_event"]

_PRIORITY_ACTIONS = ("set_factor", "set_ceiling", "set_floor", "set_priority")
_ACTIONS = (*_PRIORITY_ACTIONS, "add_machines", "remove_machines", "config", "remove_jobs")


@dataclass(frozen=True)
class EventSpec:
    at: float
    action: str
    label: str
    name: str | None = None  # submitter or group (priority actions); owner (remove_jobs)
    is_group: bool = False
    value: float = 0.0
    machines: MachineSpec | None = None
    constraint: Expr | None = None
    count: int | None = None
    config: Any = None  # Settings, for "config"


def parse_event(table: Table, knobs: Config, earlier: Sequence[tuple[str, str]] = ()) -> EventSpec:
    """One ``[[events]]`` table; ``earlier``: configuration read before a config event's
    own (a snapshot's pool configuration)."""
    action = table.text("action")
    if action not in _ACTIONS:
        raise table.fail("action")(f"expected one of {', '.join(_ACTIONS)}, not {action!r}")
    at = table.duration("at")
    if action in _PRIORITY_ACTIONS:
        table.allow(("at", "action", "submitter", "group", "value"))
        if table.has("submitter") == table.has("group"):
            raise table.fail()(f"{action} needs either submitter or group")
        key = "submitter" if table.has("submitter") else "group"
        value = table.number("value")
        if action != "set_ceiling" and value < 0:
            raise table.fail("value")(f"expected 0 or more, not {value:g}")
        if action == "set_ceiling" and value < -1:
            raise table.fail("value")(f"expected -1 (no ceiling) or more, not {value:g}")
        return EventSpec(at, action, table.name, table.text(key), key == "group", value)
    if action == "add_machines":
        spec = parse_machines(table, knobs, f"e{at:g}-{{n}}", extra=("at", "action"))
        return EventSpec(at, action, table.name, machines=spec)
    if action == "remove_machines":
        table.allow(("at", "action", "constraint", "count"))
        return EventSpec(
            at,
            action,
            table.name,
            constraint=_constraint(table),
            count=table.integer("count", None, minimum=1),
        )
    if action == "remove_jobs":
        table.allow(("at", "action", "owner"))
        return EventSpec(at, action, table.name, name=table.text("owner"))
    table.allow(("at", "action", "text", "file"))
    from .scenario import settings  # scenario imports this module

    try:
        return EventSpec(
            at,
            action,
            table.name,
            config=settings(*table.text_or_file("configuration"), earlier),
        )
    except ConfigError as err:
        raise table.fail("text")(f"bad configuration: {err}") from None


def _constraint(table: Table) -> Expr | None:
    text = table.text("constraint", None)
    if text is None:
        return None
    try:
        return Expr(text)
    except ClassAdSyntaxError as err:
        raise table.fail("constraint")(f"not a ClassAd expression: {err.message}") from None


def apply_event(event: EventSpec, sim: Simulation) -> None:
    """Carry out one event at ``sim``'s current time."""
    if event.action in _PRIORITY_ACTIONS:
        name = event.name or ""
        if not event.is_group and "@" not in name:
            name = f"{name}@{sim.settings.params.accounting_domain}"
        accountant = sim.accountant
        if event.action == "set_factor":
            accountant.set_factor(name, event.value)
        elif event.action == "set_priority":
            accountant.set_priority(name, event.value)
        elif event.action == "set_ceiling":
            accountant.set_ceiling(name, int(event.value))
        else:
            accountant.set_floor(name, int(event.value))
    elif event.action == "add_machines":
        sim.add_machines(event.machines)  # type: ignore[arg-type]
    elif event.action == "remove_machines":
        sim.remove_machines(event.constraint, event.count)
    elif event.action == "remove_jobs":
        sim.remove_jobs(event.name or "")
    else:
        sim.reconfigure(event.config)
