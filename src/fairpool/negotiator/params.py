"""Everything a negotiation cycle reads from the configuration, typed, with the defaults
of spec negotiator.md §0.2 and the decisions of spec/README.md.

The three places where fairpool follows the seed rather than HTCondor's code each have a
knob that selects HTCondor's behaviour (docs/compat.md):

* ``NEGOTIATOR_PREEMPT_ON_BETTER_PRIORITY_ONLY`` (default True): priority preemption also
  requires the candidate's EUP to be better than the running user's (the seed's rule);
* ``NEGOTIATOR_FLOOR_IS_ADDITIONAL`` (default False): the below-floor round tops a
  submitter up to its floor, not by its floor;
* ``NEGOTIATOR_CROSS_SLOT_PRIOS`` (default True): ``Slot<N>_RemoteUserPrio`` is defined,
  as the seed lists it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..classad import Expr
from .concurrency import LimitConfig
from .groups import GroupConfig

__all__ = ["DEFAULTS", "NegotiatorParams"]

PRE_JOB_RANK = (
    "(10000000 * My.Rank) + (1000000 * (RemoteOwner =?= UNDEFINED)) - (100000 * Cpus) - Memory"
)
POST_JOB_RANK = (
    "(RemoteOwner =?= UNDEFINED) * (ifthenElse(isUndefined(KFlops), 1000, Kflops)"
    " - SlotID - 1.0e10*(Offline=?=True))"
)
PREEMPTION_RANK = (
    "(RemoteUserPrio * 1000000) - ifThenElse(isUndefined(TotalJobRuntime), 0, TotalJobRuntime)"
)
REMOVE_SIGNIFICANT = ("CpusUsage", "DiskUsage", "GPUsUsage", "MemoryUsage", "ResidentSetSize")


@dataclass(frozen=True)
class NegotiatorParams:
    """The negotiator's configuration. Expressions are ``Expr``; None means unset."""

    accounting_domain: str = "localdomain"  # ACCOUNTING_DOMAIN, default $(UID_DOMAIN)
    consider_preemption: bool = True  # NEGOTIATOR_CONSIDER_PREEMPTION
    consider_early_preemption: bool = False  # NEGOTIATOR_CONSIDER_EARLY_PREEMPTION
    preemption_requirements: Expr | None = field(default_factory=lambda: Expr("false"))
    preemption_rank: Expr | None = field(default_factory=lambda: Expr(PREEMPTION_RANK))
    preemption_requirements_stable: bool = True
    preemption_rank_stable: bool = True
    pre_job_rank: Expr | None = field(default_factory=lambda: Expr(PRE_JOB_RANK))
    post_job_rank: Expr | None = field(default_factory=lambda: Expr(POST_JOB_RANK))
    preempt_on_better_priority_only: bool = True
    use_slot_weights: bool = True  # NEGOTIATOR_USE_SLOT_WEIGHTS
    slot_weight: Expr = field(default_factory=lambda: Expr("Cpus"))  # SLOT_WEIGHT
    force_slot_weight: bool = False  # FORCE_NEGOTIATOR_SLOT_WEIGHT
    slot_constraint: Expr | None = None  # NEGOTIATOR_SLOT_CONSTRAINT
    submitter_constraint: Expr | None = None  # NEGOTIATOR_SUBMITTER_CONSTRAINT
    job_constraint: Expr | None = None  # NEGOTIATOR_JOB_CONSTRAINT
    slot_poolsize_constraint: Expr | None = None  # NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT
    ignore_user_priorities: bool = False  # NEGOTIATOR_IGNORE_USER_PRIORITIES
    discount_suspended_resources: bool = False
    floor_is_additional: bool = False  # NEGOTIATOR_FLOOR_IS_ADDITIONAL
    cross_slot_prios: bool = True  # NEGOTIATOR_CROSS_SLOT_PRIOS
    negotiate_all_jobs_in_cluster: bool = False  # NEGOTIATE_ALL_JOBS_IN_CLUSTER
    significant_attributes: tuple[str, ...] | None = None  # SIGNIFICANT_ATTRIBUTES
    add_significant_attributes: tuple[str, ...] = ()  # ADD_SIGNIFICANT_ATTRIBUTES
    remove_significant_attributes: tuple[str, ...] = REMOVE_SIGNIFICANT
    name: str = ""  # NEGOTIATOR_NAME
    match_evaluator: str = "vector"  # NEGOTIATOR_MATCH_EVALUATOR: vector or scalar
    concurrency: LimitConfig = field(default_factory=LimitConfig)  # <NAME>_LIMIT and defaults
    groups: GroupConfig = field(default_factory=GroupConfig)  # GROUP_* (empty: no groups)

    def with_(self, **changes: Any) -> NegotiatorParams:
        """A copy with some knobs changed (tests and scenarios use it)."""
        return replace(self, **changes)


DEFAULTS = NegotiatorParams()
