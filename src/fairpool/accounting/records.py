"""One accountant record (HTCondor's "customer"): a submitter or an accounting group.

Field names follow the attributes HTCondor's accountant stores (``Priority`` is the RUP,
``PriorityFactor`` the factor, ``WeightedResourcesUsed`` the usage in slot weight, ...), so
the record converts to and from HTCondor's accounting ads and log without a table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

__all__ = ["ATTRIBUTE_NAMES", "LEASE_ATTRIBUTE_NAMES", "MIN_PRIORITY", "Customer", "is_group_name"]

MIN_PRIORITY = 0.5  # every RUP starts here and never goes below it


def is_group_name(name: str) -> bool:
    """Group records are named without ``@`` (``group_physics``, ``<none>``)."""
    return "@" not in name


@dataclass
class Customer:
    """The accountant's record of one submitter or group."""

    name: str
    priority: float = MIN_PRIORITY  # RUP
    factor: float = 0.0  # 0 until first assigned (then "sticky")
    resources_used: int = 0
    weighted_resources_used: float = 0.0
    hier_weighted_resources_used: float = 0.0  # groups: the whole subtree
    accumulated_usage: float = 0.0  # slot-seconds
    weighted_accumulated_usage: float = 0.0  # weight-seconds
    begin_usage_time: int = 0
    last_usage_time: int = 0
    ceiling: int = -1  # -1: none
    floor: int = 0  # 0: none
    # condor_userprio -duration leases (HTCondor 25): when the lease ends (0: none) and
    # the value it replaced
    ceiling_lease_expiration: int = 0
    ceiling_pre_lease_value: int = -1
    floor_lease_expiration: int = 0
    floor_pre_lease_value: int = 0
    factor_lease_expiration: int = 0
    factor_pre_lease_value: float = 0.0

    @property
    def eup(self) -> float:
        """Effective user priority: RUP times factor."""
        return max(self.priority, MIN_PRIORITY) * self.factor

    @property
    def is_group(self) -> bool:
        return is_group_name(self.name)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


# record field -> HTCondor accounting attribute
ATTRIBUTE_NAMES = {
    "priority": "Priority",
    "factor": "PriorityFactor",
    "resources_used": "ResourcesUsed",
    "weighted_resources_used": "WeightedResourcesUsed",
    "hier_weighted_resources_used": "HierWeightedResourcesUsed",
    "accumulated_usage": "AccumulatedUsage",
    "weighted_accumulated_usage": "WeightedAccumulatedUsage",
    "begin_usage_time": "BeginUsageTime",
    "last_usage_time": "LastUsageTime",
    "ceiling": "Ceiling",
    "floor": "Floor",
}
# the lease attributes (spec negotiator.md §1.1)
LEASE_ATTRIBUTE_NAMES = {
    "ceiling_lease_expiration": "CeilingLeaseExpiration",
    "ceiling_pre_lease_value": "CeilingPreLeaseValue",
    "floor_lease_expiration": "FloorLeaseExpiration",
    "floor_pre_lease_value": "FloorPreLeaseValue",
    "factor_lease_expiration": "PriorityFactorLeaseExpiration",
    "factor_pre_lease_value": "PriorityFactorPreLeaseValue",
}
assert set(ATTRIBUTE_NAMES) | set(LEASE_ATTRIBUTE_NAMES) == {f.name for f in fields(Customer)} - {
    "name"
}
