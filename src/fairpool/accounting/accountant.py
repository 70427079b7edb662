"""The accountant: real and effective user priorities, priority factors, usage, floors and
ceilings (seed "User Priorities and Negotiation"; spec negotiator.md §1).

RUP update (every cycle, before matching): with ``β = 0.5 ** (Δt / PRIORITY_HALFLIFE)``,
``RUP' = max(0.5, RUP·β + usage·(1-β))`` where usage is the weighted resources the customer
held since the last update (a group: its whole subtree). The formula holds over uneven
intervals because the βs multiply. ``EUP = RUP × factor``; a factor is chosen the first
time a name is seen (nice user, group factor, remote user or default) and then kept.

Usage is recomputed every cycle from the claimed slots the negotiator sees (``set_usage``),
then raised by the cycle's new matches, and charged over the interval to the next update.

The accountant is plain data and arithmetic: time comes in as ``now``; persistence is the
store's job (fairpool.store), which writes what ``changed`` and ``deleted`` name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from .records import MIN_PRIORITY, Customer, is_group_name

__all__ = ["LEASES", "Accountant", "AccountantPolicy", "Priority", "PriorityView", "Usage"]

MIN_PRIORITY_FACTOR = 1.0
ROOT_GROUP = "<none>"


@dataclass(frozen=True)
class AccountantPolicy:
    """The knobs the accountant reads (names and defaults as in HTCondor)."""

    halflife: float = 86400.0  # PRIORITY_HALFLIFE
    default_factor: float = 1000.0  # DEFAULT_PRIO_FACTOR
    nice_user_factor: float = 1e10  # NICE_USER_PRIO_FACTOR
    remote_factor: float = 1e7  # REMOTE_PRIO_FACTOR
    local_domain: str | None = None  # ACCOUNTANT_LOCAL_DOMAIN (unset: everyone is local)
    group_factors: Mapping[str, float] = field(default_factory=dict)  # GROUP_PRIO_FACTOR_<g>
    nice_user_prefix: str = "nice-user"


@dataclass(frozen=True)
class Usage:
    """What one customer holds right now: slots and their total weight."""

    count: int = 0
    weight: float = 0.0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.count + other.count, self.weight + other.weight)


@dataclass(frozen=True)
class Priority:
    """What the negotiator needs to know about one customer for a cycle."""

    rup: float
    factor: float
    floor: int = 0
    ceiling: int = -1

    @property
    def eup(self) -> float:
        return max(self.rup, MIN_PRIORITY) * self.factor


class PriorityView:
    """Read-only priorities for a cycle: names the accountant has not seen get the RUP and
    the factor their record will be created with, without creating it. The accountant
    does not change while a view is read (one cycle, one sample), and a cycle asks for
    the same names at every turn of the pie, so each name is worked out once."""

    def __init__(self, accountant: Accountant) -> None:
        self._accountant = accountant
        self._known: dict[str, Priority] = {}

    def __getitem__(self, name: str) -> Priority:
        found = self._known.get(name)
        if found is None:
            found = self._known[name] = self._priority(name)
        return found

    def _priority(self, name: str) -> Priority:
        record = self._accountant.customers.get(name)
        if record is None or record.factor < MIN_PRIORITY_FACTOR:
            factor = self._accountant._initial_factor(name)
            if record is None:
                return Priority(MIN_PRIORITY, factor)
            return Priority(record.priority, factor, record.floor, record.ceiling)
        return Priority(record.priority, record.factor, record.floor, record.ceiling)


class Accountant:
    """Customer records keyed by name, with HTCondor's update and admin operations."""

    def __init__(
        self,
        policy: AccountantPolicy | None = None,
        customers: Iterable[Customer] = (),
        last_update: float = 0.0,
        assign_group: Callable[[str], str | None] | None = None,
    ) -> None:
        self.policy = policy or AccountantPolicy()
        self.customers: dict[str, Customer] = {c.name: c for c in customers}
        self.last_update = last_update
        # submitter -> the group it is charged to (None when there are no groups)
        self.assign_group = assign_group or (lambda name: None)
        self.changed: set[str] = set()
        self.deleted: set[str] = set()

    # -- records --------------------------------------------------------------------
    def customer(self, name: str) -> Customer:
        """The record for ``name``, created with its sticky factor on first sight."""
        record = self.customers.get(name)
        if record is None:
            record = self.customers[name] = Customer(name)
            self.deleted.discard(name)
        if record.factor < MIN_PRIORITY_FACTOR:
            record.factor = self._initial_factor(name)
            self.changed.add(name)
        return record

    def _initial_factor(self, name: str) -> float:
        policy = self.policy
        if name.startswith(policy.nice_user_prefix):
            return policy.nice_user_factor
        group = name if is_group_name(name) else self.assign_group(name)
        group_factor = policy.group_factors.get(group.lower(), 0.0) if group else 0.0
        if group_factor:
            return max(group_factor, MIN_PRIORITY_FACTOR)
        if policy.local_domain and _domain(name) != policy.local_domain:
            return policy.remote_factor
        return policy.default_factor

    def eup(self, name: str) -> float:
        """Effective user priority (creates the record, as HTCondor's read does)."""
        return self.customer(name).eup

    def view(self) -> PriorityView:
        """Priorities for a negotiation cycle, without side effects."""
        return PriorityView(self)

    # -- the cycle's two accounting steps -------------------------------------------
    def update_priorities(self, now: float) -> None:
        """End the leases that ran out (HTCondor does so as each cycle starts), age every
        RUP to ``now`` and charge the usage held since the last update."""
        self.expire_leases(now)
        passed = now - self.last_update
        if self.last_update <= 0 or passed < 0:
            self.last_update = now
            return
        if passed == 0:
            return
        beta = 0.5 ** (passed / self.policy.halflife)
        for record in self.customers.values():
            _age(record, passed, beta, now)
            self.changed.add(record.name)
        self.last_update = now

    def set_usage(self, usage: Mapping[str, Usage], now: float | None = None) -> None:
        """Replace every customer's current usage with ``usage`` (submitters), adding it up
        into each submitter's group and, as subtree usage, into every ancestor group.
        With ``now``, whoever holds slots now has used them now (``LastUsageTime``): what
        the next update would record, so that condor_userprio lists the submitters of a
        single dry-run cycle as active."""
        totals: dict[str, Usage] = {}
        subtree: dict[str, float] = {}
        for name, held in usage.items():
            totals[name] = totals.get(name, Usage()) + held
            group = self.assign_group(name)
            if group is None:
                continue
            totals[group] = totals.get(group, Usage()) + held
            for ancestor in _group_and_ancestors(group):
                subtree[ancestor] = subtree.get(ancestor, 0.0) + held.weight
        for name in set(self.customers) | set(totals) | set(subtree):
            record = self.customer(name)
            held = totals.get(name, Usage())
            new = (held.count, held.weight, subtree.get(name, 0.0))
            old = (
                record.resources_used,
                record.weighted_resources_used,
                record.hier_weighted_resources_used,
            )
            if new != old:
                (
                    record.resources_used,
                    record.weighted_resources_used,
                    record.hier_weighted_resources_used,
                ) = new
                self.changed.add(name)
            if now is not None and held.count > 0 and record.last_usage_time < int(now):
                record.last_usage_time = int(now)
                self.changed.add(name)

    # -- condor_userprio's edits ----------------------------------------------------
    def set_factor(self, name: str, factor: float) -> None:
        self.customer(name).factor = max(factor, MIN_PRIORITY_FACTOR)
        self.changed.add(name)

    def set_priority(self, name: str, priority: float) -> None:
        """Set the RUP as given; values below 0.5 read as 0.5 (spec negotiator.md §1.7)."""
        self.customer(name).priority = priority
        self.changed.add(name)

    def set_ceiling(self, name: str, ceiling: int) -> None:
        if ceiling < -1:
            raise ValueError("a ceiling must be -1 (none) or more")
        self.customer(name).ceiling = ceiling
        self.changed.add(name)

    def set_floor(self, name: str, floor: int) -> None:
        if floor < 0:
            raise ValueError("a floor must be 0 (none) or more")
        self.customer(name).floor = floor
        self.changed.add(name)

    def reset_usage(self, name: str, now: float) -> None:
        """Forget accumulated usage; the RUP is left as it is."""
        record = self.customer(name)
        record.accumulated_usage = record.weighted_accumulated_usage = 0.0
        record.begin_usage_time = int(now)
        self.changed.add(name)

    def reset_all_usage(self, now: float) -> None:
        for name in list(self.customers):
            self.reset_usage(name, now)

    def delete(self, name: str) -> None:
        """Remove a record; it is created afresh if the name is seen again."""
        if self.customers.pop(name, None) is None:
            raise KeyError(name)
        self.changed.discard(name)
        self.deleted.add(name)

    def set_accumulated_usage(self, name: str, weighted_seconds: float) -> None:
        self.customer(name).weighted_accumulated_usage = weighted_seconds
        self.changed.add(name)

    def set_begin_usage(self, name: str, when: int) -> None:
        self.customer(name).begin_usage_time = when
        self.changed.add(name)

    def set_last_usage(self, name: str, when: int) -> None:
        self.customer(name).last_usage_time = when
        self.changed.add(name)

    # -- leases (condor_userprio -duration, HTCondor 25; spec negotiator.md §1.7) ---
    def set_lease(self, name: str, kind: str, value: float, duration: int, now: float) -> None:
        """Set ``kind`` (``ceiling``, ``floor``, ``priority-factor``) to ``value`` for
        ``duration`` seconds; ValueError while an earlier lease is in effect."""
        field, expires, before = LEASES[kind]
        record = self.customer(name)
        ends = getattr(record, expires)
        if ends > now:
            raise ValueError(f"{kind} lease for {name} is already in effect (expires at {ends})")
        setattr(record, before, getattr(record, field))
        setattr(record, expires, int(now) + duration)
        setattr(record, field, value)
        self.changed.add(name)

    def cancel_lease(self, name: str, kind: str) -> None:
        """Restore the value a lease replaced; ValueError when there is none."""
        expires = LEASES[kind][1]
        record = self.customers.get(name)
        if record is None or getattr(record, expires) == 0:
            raise ValueError(f"no {kind} lease in effect for {name}")
        self._end_lease(record, kind)

    def expire_leases(self, now: float) -> None:
        """Restore the values of the leases that ended by ``now``."""
        for record in self.customers.values():
            for kind, (_, expires, _) in LEASES.items():
                if 0 < getattr(record, expires) <= now:
                    self._end_lease(record, kind)

    def _end_lease(self, record: Customer, kind: str) -> None:
        field, expires, before = LEASES[kind]
        setattr(record, field, getattr(record, before))
        setattr(record, expires, 0)
        self.changed.add(record.name)


# lease kind (as condor_userprio names it) -> (value, expiration, pre-lease value) fields
LEASES = {
    "ceiling": ("ceiling", "ceiling_lease_expiration", "ceiling_pre_lease_value"),
    "floor": ("floor", "floor_lease_expiration", "floor_pre_lease_value"),
    "priority-factor": ("factor", "factor_lease_expiration", "factor_pre_lease_value"),
}


def _age(record: Customer, passed: float, beta: float, now: float) -> None:
    held = record.weighted_resources_used
    if record.hier_weighted_resources_used > 0:
        held = record.hier_weighted_resources_used
    priority = max(record.priority, MIN_PRIORITY)
    record.priority = max(priority * beta + held * (1.0 - beta), MIN_PRIORITY)
    record.accumulated_usage += record.resources_used * passed
    record.weighted_accumulated_usage += record.weighted_resources_used * passed
    if record.accumulated_usage > 0 and record.begin_usage_time == 0:
        record.begin_usage_time = int(now)
    if record.resources_used > 0:
        record.last_usage_time = int(now)


def _domain(name: str) -> str:
    return name.rpartition("@")[2]


def _group_and_ancestors(group: str) -> list[str]:
    """``a.b.c`` -> ``a.b.c``, ``a.b``, ``a``; the root stands alone."""
    if group == ROOT_GROUP:
        return [group]
    parts = group.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)]
