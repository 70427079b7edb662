"""NegotiatorParams written back out as HTCondor configuration lines, so the scenario tests
that build parameters in Python can also run through ``fairpool negotiate --config``.
Reading the text back (negotiator/configure.py) must give the same parameters: a test
checks that round trip, so the two directions cannot drift apart."""

from __future__ import annotations

from fairpool.classad import Expr
from fairpool.negotiator.concurrency import LimitConfig
from fairpool.negotiator.groups import GroupConfig
from fairpool.negotiator.params import NegotiatorParams

_FLAGS = {
    "NEGOTIATOR_CONSIDER_PREEMPTION": "consider_preemption",
    "NEGOTIATOR_CONSIDER_EARLY_PREEMPTION": "consider_early_preemption",
    "PREEMPTION_REQUIREMENTS_STABLE": "preemption_requirements_stable",
    "PREEMPTION_RANK_STABLE": "preemption_rank_stable",
    "NEGOTIATOR_PREEMPT_ON_BETTER_PRIORITY_ONLY": "preempt_on_better_priority_only",
    "NEGOTIATOR_USE_SLOT_WEIGHTS": "use_slot_weights",
    "FORCE_NEGOTIATOR_SLOT_WEIGHT": "force_slot_weight",
    "NEGOTIATOR_IGNORE_USER_PRIORITIES": "ignore_user_priorities",
    "NEGOTIATOR_DISCOUNT_SUSPENDED_RESOURCES": "discount_suspended_resources",
    "NEGOTIATOR_FLOOR_IS_ADDITIONAL": "floor_is_additional",
    "NEGOTIATOR_CROSS_SLOT_PRIOS": "cross_slot_prios",
    "NEGOTIATE_ALL_JOBS_IN_CLUSTER": "negotiate_all_jobs_in_cluster",
}
_EXPRESSIONS = {
    "PREEMPTION_REQUIREMENTS": "preemption_requirements",
    "PREEMPTION_RANK": "preemption_rank",
    "NEGOTIATOR_PRE_JOB_RANK": "pre_job_rank",
    "NEGOTIATOR_POST_JOB_RANK": "post_job_rank",
    "SLOT_WEIGHT": "slot_weight",
    "NEGOTIATOR_SLOT_CONSTRAINT": "slot_constraint",
    "NEGOTIATOR_SUBMITTER_CONSTRAINT": "submitter_constraint",
    "NEGOTIATOR_JOB_CONSTRAINT": "job_constraint",
    "NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT": "slot_poolsize_constraint",
}


def knob_text(params: NegotiatorParams) -> str:
    """Configuration lines that set every knob behind ``params``."""
    lines = [f"UID_DOMAIN = {params.accounting_domain}"]
    if params.name:
        lines.append(f"NEGOTIATOR_NAME = {params.name}")
    lines.append(f"NEGOTIATOR_MATCH_EVALUATOR = {params.match_evaluator}")
    lines += [f"{knob} = {_bool(getattr(params, field))}" for knob, field in _FLAGS.items()]
    lines += [f"{knob} = {_expr(getattr(params, field))}" for knob, field in _EXPRESSIONS.items()]
    if params.significant_attributes is not None:
        lines.append(f"SIGNIFICANT_ATTRIBUTES = {', '.join(params.significant_attributes)}")
    lines.append(f"ADD_SIGNIFICANT_ATTRIBUTES = {', '.join(params.add_significant_attributes)}")
    lines.append(
        f"REMOVE_SIGNIFICANT_ATTRIBUTES = {', '.join(params.remove_significant_attributes)}"
    )
    return "\n".join(lines + _limits(params.concurrency) + _groups(params.groups)) + "\n"


def _limits(limits: LimitConfig) -> list[str]:
    lines = [f"{name.upper()}_LIMIT = {value!r}" for name, value in limits.explicit.items()]
    if limits.default is not None:
        lines.append(f"CONCURRENCY_LIMIT_DEFAULT = {limits.default!r}")
    lines += [
        f"CONCURRENCY_LIMIT_DEFAULT_{name.upper()} = {value!r}"
        for name, value in limits.set_defaults.items()
    ]
    return lines


def _groups(groups: GroupConfig) -> list[str]:
    lines = [
        f"GROUP_ACCEPT_SURPLUS = {_bool(groups.default_accept_surplus)}",
        f"GROUP_AUTOREGROUP = {_bool(groups.default_autoregroup)}",
        f"NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION = {_bool(groups.allow_oversubscription)}",
        f"GROUP_SORT_EXPR = {groups.sort_expr}",
        f"GROUP_QUOTA_MAX_ALLOCATION_ROUNDS = {groups.max_allocation_rounds}",
        f"GROUP_QUOTA_ROUND_ROBIN_RATE = {groups.round_robin_rate!r}",
        f"NEGOTIATOR_USE_WEIGHTED_DEMAND = {_bool(groups.use_weighted_demand)}",
        f"NEGOTIATOR_STRICT_ENFORCE_QUOTA = {_bool(groups.strict_enforce_quota)}",
    ]
    if not groups.names:
        return lines
    lines.append(f"GROUP_NAMES = {', '.join(groups.names)}")
    per_group = {
        "GROUP_QUOTA_": groups.static_quota,
        "GROUP_QUOTA_DYNAMIC_": groups.dynamic_quota,
        "GROUP_ACCEPT_SURPLUS_": groups.accept_surplus,
        "GROUP_AUTOREGROUP_": groups.autoregroup,
    }
    for prefix, values in per_group.items():
        for group, value in values.items():
            text = _bool(value) if isinstance(value, bool) else repr(value)
            lines.append(f"{prefix}{group} = {text}")
    return lines


def _bool(value: bool) -> str:
    return "True" if value else "False"


def _expr(value: Expr | None) -> str:
    return "" if value is None else str(value)
