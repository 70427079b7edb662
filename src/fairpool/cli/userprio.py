"""``fairpool userprio``: condor_userprio, against the pool's negotiator or over a negotiator's
state directory (``--state DIR``).

Options and output follow condor_userprio (spec negotiator.md §8): with no option it lists
the submitters active in the last 24 hours in increasing EUP order; ``-allusers`` shows
everyone; ``-priority``, ``-usage``, ``-most`` and ``-all`` choose columns. One edit option
runs per call, in condor_userprio's precedence. "Now" is the time of the state's last
priority update (the negotiator's clock, which the simulator and dry runs set).

Against a live negotiator the same edits and listings run on a copy of its records, and an
edit sends back the records it changed; if another edit reached the negotiator first, the
records are read again and the edit made again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import click

from ..accounting.accountant import Accountant, AccountantPolicy
from ..accounting.records import Customer
from ..accounting.userprio_table import Row, render, usage_footer
from ..errors import InputError
from ..store.accountant_store import AccountantStore
from .errors import fail
from .remote import daemon, refusals

__all__ = ["userprio"]

_DEFAULT = ["Priority", "Factor", "ResUsed", "WtResUsed", "UseDeltaT", "Floor", "Ceiling"]
_LAYOUTS = {
    "priority": ["Priority", "RealPrio", "Factor"],
    "usage": ["ResUsed", "WtResUsed", "UseTime1", "UseTime2"],
    "most": _DEFAULT,
    "all": [
        "Priority",
        "RealPrio",
        "Factor",
        "ResUsed",
        "WtResUsed",
        "UseTime1",
        "UseTime2",
        "UseDeltaT",
        "Floor",
        "Ceiling",
    ],
}
_DAY = 86400
_QUOTA_COLUMNS = ["EffQuota", "CfgQuota", "Surplus", "TreeQuota", "Requested"]
_ATTEMPTS = 5  # edits made again when the negotiator's records changed meanwhile


def _pair(*names: str, metavar: str, help: str):
    return click.option(*names, nargs=2, type=(str, str), default=None, metavar=metavar, help=help)


def _one(*names: str, help: str):
    return click.option(*names, default=None, metavar="USER", help=help)


@click.command(context_settings={"help_option_names": ["-help", "--help", "-h"]})
@click.option(
    "--state",
    "state",
    default=None,
    metavar="DIR",
    help="A negotiator's state directory (default: the pool's running negotiator).",
)
@click.option("--pool", "-pool", "pool", default=None, metavar="URL", help="The pool's address.")
@click.option("-name", "--name", "name", default=None, metavar="NEGOTIATOR", help="The negotiator.")
@_pair("-setprio", metavar="USER PRIO", help="Set a submitter's real priority.")
@_pair("-setfactor", metavar="USER FACTOR", help="Set a submitter's priority factor (>= 1).")
@_pair("-setfloor", "-set-floor", metavar="USER N", help="Set a submitter's floor (0: none).")
@_pair("-setceiling", "-setceil", metavar="USER N", help="Set a submitter's ceiling (-1: none).")
@_pair("-setaccum", metavar="USER SECONDS", help="Set weighted accumulated usage.")
@_pair("-setbegin", metavar="USER TIME", help="Set the usage start time.")
@_pair("-setlast", metavar="USER TIME", help="Set the last usage time.")
@click.option(
    "-duration",
    default=None,
    metavar="SECONDS",
    help="With -setfactor/-setfloor/-setceiling: a lease that ends after SECONDS.",
)
@_one("-cancelceilinglease", help="End a ceiling lease, restoring the ceiling before it.")
@_one("-cancelfloorlease", help="End a floor lease, restoring the floor before it.")
@_one("-cancelfactorlease", help="End a priority-factor lease, restoring the factor.")
@_one("-resetusage", help="Reset a submitter's accumulated usage (not its priority).")
@_one("-delete", "-del", help="Delete a submitter's record.")
@click.option("-resetall", is_flag=True, help="Reset the accumulated usage of every submitter.")
@click.option("-allusers", is_flag=True, help="Show submitters that have not run for a day.")
@click.option("-priority", "layout", flag_value="priority", help="Priority columns only.")
@click.option("-usage", "layout", flag_value="usage", help="Usage columns only.")
@click.option("-most", "layout", flag_value="most", help="The default columns.")
@click.option("-all", "layout", flag_value="all", help="Every column.")
@click.option("-quotas", "layout", flag_value="quotas", help="Group quotas.")
@click.argument("users", nargs=-1)
def userprio(
    state: str | None,
    pool: str | None,
    name: str | None,
    layout: str | None,
    allusers: bool,
    users: Sequence[str],
    **edits: object,
) -> None:
    """Show or change submitters' priorities (HTCondor's condor_userprio)."""
    if state is None:
        _live(pool, name, layout, allusers, users, edits)
        return
    try:
        store = AccountantStore(state, create=False)
        accountant = store.load()
        message = _edit(accountant, edits, state)
        if message is not None:
            store.save(accountant)
            click.echo(message)
            return
        figures = store.group_figures() if layout == "quotas" else {}
    except InputError as err:
        fail(str(err))
    _show(accountant, figures, layout, allusers, users)


def _show(
    accountant: Accountant,
    figures: dict[str, dict[str, object]],
    layout: str | None,
    allusers: bool,
    users: Sequence[str],
) -> None:
    if layout == "quotas":
        click.echo(_quotas(accountant, figures), nl=False)
        return
    click.echo(_table(accountant, layout or "most", allusers, users), nl=False)


def _live(
    pool: str | None,
    name: str | None,
    layout: str | None,
    allusers: bool,
    users: Sequence[str],
    edits: dict[str, object],
) -> None:
    """The running negotiator's records: shown, or edited and the changes sent back."""
    from ..daemons.errors import Conflict

    with refusals():
        negotiator = daemon("Negotiator", name, pool)
        for _ in range(_ATTEMPTS):
            state = negotiator.get("/accountant")
            records = [Customer(**fields) for fields in state["customers"]]
            policy = AccountantPolicy(**state["policy"])  # the negotiator's own knobs
            accountant = Accountant(policy, records, state["last_update"])
            message = _edit(accountant, edits, "the negotiator")
            if message is None:
                _show(accountant, state["groups"], layout, allusers, users)
                return
            changed = [accountant.customers[n].as_dict() for n in sorted(accountant.changed)]
            body = {"version": state["version"], "changed": changed}
            try:
                negotiator.post("/accountant", {**body, "deleted": sorted(accountant.deleted)})
            except Conflict:
                continue
            click.echo(message)
            return
    fail("the negotiator's records kept changing: run the command again")


def _edit(accountant: Accountant, edits: dict[str, object], state: str) -> str | None:
    """Run the first edit asked for, in condor_userprio's precedence; its success message.

    As condor_userprio does (spec negotiator.md §1.7, §8.1; HTCondor 25's tool): an edit
    creates the record of a submitter that has none (administrators set factors before a
    user's first job); values the tool refuses are refused with its message; ``-duration``
    makes a factor, floor or ceiling a lease, and ``-cancel<kind>lease`` ends one."""
    duration = _duration(edits.get("duration"))
    now = accountant.last_update
    for key, kind, rule, action, message in _NUMERIC:
        pair = edits.get(key)
        if pair is None:
            continue
        user, text = pair  # type: ignore[misc]
        _full_name(user)
        value = _number(text, kind, key)
        refusal = rule(value)
        if refusal is not None:
            fail(refusal)
        lease = _LEASED.get(key)
        if duration is not None and lease is not None:
            _lease(accountant.set_lease, user, lease, value, duration, now)
            shown = f"{value:f}" if lease == "priority-factor" else f"{value:d}"
            return f"Set {lease} lease on {user} to {shown} for {duration} seconds"
        action(accountant, user, value)
        return message.format(u=user, v=value)
    for key, lease in (
        ("cancelceilinglease", "ceiling"),
        ("cancelfloorlease", "floor"),
        ("cancelfactorlease", "priority-factor"),
    ):
        user = edits.get(key)
        if user is not None:
            _full_name(str(user), f"-{key} requires a full submitter name (user@domain)")
            try:
                accountant.cancel_lease(str(user), lease)
            except ValueError as err:
                fail(f"negotiator rejected cancel: {err}")
            return f"Cancelled {lease} lease for {user}"
    if edits.get("resetusage") is not None:
        user = str(edits["resetusage"])
        _full_name(user)
        accountant.reset_usage(user, now)
        return f"The accumulated usage of {user} was reset"
    if edits.get("delete") is not None:
        user = str(edits["delete"])
        _full_name(user)
        if user in accountant.customers:
            accountant.delete(user)
        return f"The accountant record named {user} was deleted"
    if edits.get("resetall"):
        accountant.reset_all_usage(now)
        return "The accumulated usage was reset for all users"
    return None


def _at_least(minimum: float, message: str):
    return lambda value: message if value < minimum else None


# option, type, refusal (condor_userprio's message), accountant method, success message
_NUMERIC = (
    (
        "setprio",
        float,
        lambda value: None,
        Accountant.set_priority,
        "The priority of {u} was set to {v:f}",
    ),
    (
        "setfactor",
        float,
        _at_least(1, "Priority factors must be greater than or equal to 1."),
        Accountant.set_factor,
        "The priority factor of {u} was set to {v:f}",
    ),
    (
        "setfloor",
        int,
        _at_least(0, "floor must be greater than or equal to 0."),
        Accountant.set_floor,
        "The floor of {u} was set to {v}",
    ),
    (
        "setceiling",
        int,
        _at_least(-1, "ceiling must be greater than or equal to -1."),
        Accountant.set_ceiling,
        "The ceiling of {u} was set to {v}",
    ),
    (
        "setaccum",
        float,
        _at_least(0, "Usage must be greater than 0 seconds"),
        Accountant.set_accumulated_usage,
        "The Accumulated Usage of {u} was set to {v:f}",
    ),
    (
        "setbegin",
        int,
        _at_least(0, "Time must be greater than 0 seconds"),
        Accountant.set_begin_usage,
        "The Begin Usage Time of {u} was set to {v}",
    ),
    (
        "setlast",
        int,
        _at_least(0, "Time must be greater than 0 seconds"),
        Accountant.set_last_usage,
        "The Last Usage Time of {u} was set to {v}",
    ),
)
_LEASED = {"setfactor": "priority-factor", "setfloor": "floor", "setceiling": "ceiling"}


def _duration(text: object) -> int | None:
    if text is None:
        return None
    try:
        value = int(str(text))
    except ValueError:
        value = 0
    if value <= 0:
        fail("-duration requires a positive integer number of seconds")
    return value


def _lease(action: object, user: str, lease: str, value: float, duration: int, now: float):
    try:
        action(user, lease, value, duration, now)  # type: ignore[operator]
    except ValueError as err:
        fail(f"negotiator rejected {lease} lease: {err}")


def _number(text: str, kind: type, option: str) -> float:
    """The option's number: a whole number, or a finite real (NaN and infinities, which
    the negotiator cannot store, are refused)."""
    try:
        value = kind(text)
    except ValueError:
        fail(f"-{option}: expected a {'whole ' if kind is int else ''}number, not {text!r}")
    if not math.isfinite(value):
        fail(f"-{option}: expected a finite number, not {text!r}")
    return value


def _full_name(user: str, message: str | None = None) -> None:
    if "@" not in user:
        fail(message or f"{user!r}: expected a full user@domain submitter name")


def _table(accountant: Accountant, layout: str, allusers: bool, users: Sequence[str]) -> str:
    now = accountant.last_update
    records = [c for c in accountant.customers.values() if not c.is_group]
    if users:
        wanted = set(users)
        records = [c for c in records if c.name in wanted]
    elif not allusers:
        records = [c for c in records if _active(c, now)]
    if layout == "usage":
        records.sort(key=lambda c: (-c.weighted_accumulated_usage, c.name))
    else:
        records.sort(key=lambda c: (c.eup, c.name))
    rows = [Row(c) for c in records]
    return render(rows, _LAYOUTS[layout], now, now, len(rows), footer=usage_footer(rows, now, now))


def _quotas(accountant: Accountant, figures: dict[str, dict[str, object]]) -> str:
    """condor_userprio -quotas: one row per group, ``<none>`` first, then by name."""
    if not figures:
        fail("no group figures in this state (GROUP_NAMES is not set, or no cycle ran)")
    now = accountant.last_update
    rows = []
    for name in sorted(figures, key=lambda n: (n != "<none>", n)):
        f = figures[name]
        record = accountant.customers.get(name) or Customer(name)
        rows.append(
            Row(
                record,
                effective_quota=f["quota"],
                config_quota=f["config_quota"],
                subtree_quota=f["subtree_quota"],
                surplus=f["surplus"],
                requested=f["requested"],
            )
        )
    users = [c for c in accountant.customers.values() if not c.is_group and _active(c, now)]
    return render(
        rows,
        _QUOTA_COLUMNS,
        now,
        now,
        len(users),
        name_heading=("Group", "Name"),
        footer={"Surplus": "ByQuota"},
        hierarchical=True,
    )


def _active(record: Customer, now: float) -> bool:
    last = record.last_usage_time or -1
    return last >= now - _DAY
