"""From configuration knobs to the negotiator's and the accountant's parameters.

``Knobs`` is any case-insensitive view of an HTCondor configuration with macros expanded
(``knobs.get("PRIORITY_HALFLIFE")`` gives the text or None) and, for error messages,
where each knob was set. Booleans and numbers are read as HTCondor reads them, as ClassAd
expressions (``True``, ``1``, ``$(X) * 60``). A knob whose text is not what it must be is a
``ConfigError`` naming the knob and the file and line that set it.

Group and limit knobs (docs/negotiator.md lists them): errors stop the configuration from
loading — a negative static quota, a dynamic quota outside [0, 1], a concurrency-limit knob
whose name no job could use (``3D_LIMIT``, ``a.b.c_LIMIT``), a value that is not a number.
Warnings are reported and the knob is ignored, as HTCondor ignores it — a quota or surplus
knob for a group missing from ``GROUP_NAMES``, a group whose parent is not configured, a
group with both a static and a dynamic quota (the static one wins).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..accounting.accountant import AccountantPolicy
from ..classad import Expr
from ..config.knob_values import knob_error, knob_expr
from ..errors import ConfigError
from .concurrency import LimitConfig, valid_limit_name
from .groups import GroupConfig
from .params import DEFAULTS, NegotiatorParams

__all__ = [
    "Knobs",
    "Warn",
    "accountant_policy",
    "group_config",
    "limit_config",
    "negotiator_params",
]

Warn = Callable[[ConfigError], None]


class Knobs(Protocol):
    def get(self, name: str) -> str | None: ...

    def where(self, name: str) -> tuple[str | None, int | None]: ...

    def names(self) -> list[str]: ...


def _value(knobs: Knobs, name: str, kind: str) -> object:
    expr = knob_expr(knobs, name)
    if expr is None:
        return None
    value = expr.eval(now=0)
    if kind == "bool":
        if type(value) is bool:
            return value
        if type(value) in (int, float):
            return value != 0
        raise knob_error(knobs, name, "True or False")
    if type(value) in (int, float) and type(value) is not bool:
        return value
    raise knob_error(knobs, name, "a number")


def _bool(knobs: Knobs, name: str, default: bool) -> bool:
    value = _value(knobs, name, "bool")
    return default if value is None else bool(value)


def _float(knobs: Knobs, name: str, default: float, minimum: float | None = None) -> float:
    value = _value(knobs, name, "number")
    if value is None:
        return default
    if minimum is not None and value < minimum:  # type: ignore[operator]
        raise knob_error(knobs, name, f"a number of at least {minimum}")
    return float(value)  # type: ignore[arg-type]


def _names(knobs: Knobs, name: str) -> tuple[str, ...] | None:
    text = knobs.get(name)
    if text is None:
        return None
    return tuple(n for n in text.replace(",", " ").split() if n)


def _expr_or_default(knobs: Knobs, name: str, default: Expr | None) -> Expr | None:
    """A knob that is unset keeps its default; set to nothing, it is unset (None)."""
    if knobs.get(name) is None:
        return default
    return knob_expr(knobs, name)


def negotiator_params(knobs: Knobs, warn: Warn = lambda problem: None) -> NegotiatorParams:
    """The negotiator's parameters from the configuration (defaults: spec §0.2)."""
    d = DEFAULTS
    domain = knobs.get("ACCOUNTING_DOMAIN") or knobs.get("UID_DOMAIN") or d.accounting_domain
    return NegotiatorParams(
        accounting_domain=domain.strip(),
        consider_preemption=_bool(knobs, "NEGOTIATOR_CONSIDER_PREEMPTION", d.consider_preemption),
        consider_early_preemption=_bool(
            knobs, "NEGOTIATOR_CONSIDER_EARLY_PREEMPTION", d.consider_early_preemption
        ),
        preemption_requirements=_expr_or_default(
            knobs, "PREEMPTION_REQUIREMENTS", d.preemption_requirements
        ),
        preemption_rank=_expr_or_default(knobs, "PREEMPTION_RANK", d.preemption_rank),
        preemption_requirements_stable=_bool(knobs, "PREEMPTION_REQUIREMENTS_STABLE", True),
        preemption_rank_stable=_bool(knobs, "PREEMPTION_RANK_STABLE", True),
        pre_job_rank=_expr_or_default(knobs, "NEGOTIATOR_PRE_JOB_RANK", d.pre_job_rank),
        post_job_rank=_expr_or_default(knobs, "NEGOTIATOR_POST_JOB_RANK", d.post_job_rank),
        preempt_on_better_priority_only=_bool(
            knobs, "NEGOTIATOR_PREEMPT_ON_BETTER_PRIORITY_ONLY", d.preempt_on_better_priority_only
        ),
        use_slot_weights=_bool(knobs, "NEGOTIATOR_USE_SLOT_WEIGHTS", d.use_slot_weights),
        slot_weight=knob_expr(knobs, "SLOT_WEIGHT") or d.slot_weight,
        force_slot_weight=_bool(knobs, "FORCE_NEGOTIATOR_SLOT_WEIGHT", d.force_slot_weight),
        slot_constraint=knob_expr(knobs, "NEGOTIATOR_SLOT_CONSTRAINT"),
        submitter_constraint=knob_expr(knobs, "NEGOTIATOR_SUBMITTER_CONSTRAINT"),
        job_constraint=knob_expr(knobs, "NEGOTIATOR_JOB_CONSTRAINT"),
        slot_poolsize_constraint=knob_expr(knobs, "NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT")
        or knob_expr(knobs, "GROUP_DYNAMIC_MACH_CONSTRAINT"),
        ignore_user_priorities=_bool(knobs, "NEGOTIATOR_IGNORE_USER_PRIORITIES", False),
        discount_suspended_resources=_bool(knobs, "NEGOTIATOR_DISCOUNT_SUSPENDED_RESOURCES", False),
        floor_is_additional=_bool(knobs, "NEGOTIATOR_FLOOR_IS_ADDITIONAL", d.floor_is_additional),
        cross_slot_prios=_bool(knobs, "NEGOTIATOR_CROSS_SLOT_PRIOS", d.cross_slot_prios),
        negotiate_all_jobs_in_cluster=_bool(knobs, "NEGOTIATE_ALL_JOBS_IN_CLUSTER", False),
        significant_attributes=_names(knobs, "SIGNIFICANT_ATTRIBUTES"),
        add_significant_attributes=_names(knobs, "ADD_SIGNIFICANT_ATTRIBUTES") or (),
        remove_significant_attributes=_names(knobs, "REMOVE_SIGNIFICANT_ATTRIBUTES")
        or d.remove_significant_attributes,
        name=(knobs.get("NEGOTIATOR_NAME") or "").strip(),
        match_evaluator=_match_evaluator(knobs),
        concurrency=limit_config(knobs),
        groups=group_config(knobs, warn),
    )


def _match_evaluator(knobs: Knobs) -> str:
    """``NEGOTIATOR_MATCH_EVALUATOR``: vector (default) or scalar; both decide alike."""
    text = (knobs.get("NEGOTIATOR_MATCH_EVALUATOR") or "vector").strip().lower()
    if text not in ("vector", "scalar"):
        raise knob_error(knobs, "NEGOTIATOR_MATCH_EVALUATOR", "vector or scalar")
    return text


_GROUP_PREFIXES = (
    "GROUP_QUOTA_DYNAMIC_",
    "GROUP_QUOTA_",
    "GROUP_ACCEPT_SURPLUS_",
    "GROUP_AUTOREGROUP_",
    "GROUP_PRIO_FACTOR_",
)


# Knobs that share a per-group prefix but configure the whole negotiator.
_GLOBAL_GROUP_KNOBS = {"GROUP_QUOTA_MAX_ALLOCATION_ROUNDS", "GROUP_QUOTA_ROUND_ROBIN_RATE"}


def _group_knobs(knobs: Knobs) -> dict[str, dict[str, str]]:
    """Per-group knobs by prefix: ``{"GROUP_QUOTA_": {"group_physics": knob name}}``."""
    found: dict[str, dict[str, str]] = {p: {} for p in _GROUP_PREFIXES}
    for name in knobs.names():
        upper = name.upper()
        if upper in _GLOBAL_GROUP_KNOBS:
            continue
        for prefix in _GROUP_PREFIXES:  # longest first: DYNAMIC before QUOTA
            if upper.startswith(prefix) and len(name) > len(prefix):
                found[prefix][name[len(prefix) :].lower()] = name
                break
    return found


def group_config(knobs: Knobs, warn: Warn = lambda problem: None) -> GroupConfig:
    """``GROUP_NAMES`` and every per-group knob, checked."""
    names = tuple(n.lower() for n in (_names(knobs, "GROUP_NAMES") or ()))
    per_group = _group_knobs(knobs)
    configured = set(names)
    for prefix, by_group in per_group.items():
        for group, knob in by_group.items():
            if group not in configured and prefix != "GROUP_PRIO_FACTOR_":
                warn(_problem(knobs, knob, f"{group!r} is not in GROUP_NAMES; ignored"))
    for name in names:
        parent = name.rpartition(".")[0]
        if parent and parent not in configured:
            warn(
                _problem(knobs, "GROUP_NAMES", f"group {name!r} has no parent {parent!r}; ignored")
            )
    static, dynamic = {}, {}
    for group, knob in per_group["GROUP_QUOTA_"].items():
        value = _float(knobs, knob, 0.0)
        if value < 0:
            raise knob_error(knobs, knob, "a quota of 0 or more")
        static[group] = value
    for group, knob in per_group["GROUP_QUOTA_DYNAMIC_"].items():
        value = _float(knobs, knob, 0.0)
        if not 0 <= value <= 1:
            raise knob_error(knobs, knob, "a fraction of the parent's quota, from 0 to 1")
        if group in static:
            warn(_problem(knobs, knob, f"{group!r} also has a static quota, which wins"))
        dynamic[group] = value
    d = GroupConfig()
    return GroupConfig(
        names=names,
        static_quota=static,
        dynamic_quota=dynamic,
        accept_surplus={
            g: _bool(knobs, k, False) for g, k in per_group["GROUP_ACCEPT_SURPLUS_"].items()
        },
        default_accept_surplus=_bool(knobs, "GROUP_ACCEPT_SURPLUS", d.default_accept_surplus),
        autoregroup={g: _bool(knobs, k, False) for g, k in per_group["GROUP_AUTOREGROUP_"].items()},
        default_autoregroup=_bool(knobs, "GROUP_AUTOREGROUP", d.default_autoregroup),
        allow_oversubscription=_bool(
            knobs, "NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION", d.allow_oversubscription
        ),
        sort_expr=knob_expr(knobs, "GROUP_SORT_EXPR") or d.sort_expr,
        max_allocation_rounds=int(
            _float(
                knobs,
                "GROUP_QUOTA_MAX_ALLOCATION_ROUNDS",
                _float(knobs, "HFS_MAX_ALLOCATION_ROUNDS", d.max_allocation_rounds),
                1,
            )
        ),
        round_robin_rate=_float(
            knobs,
            "GROUP_QUOTA_ROUND_ROBIN_RATE",
            _float(knobs, "HFS_ROUND_ROBIN_RATE", d.round_robin_rate),
            0,
        ),
        use_weighted_demand=_bool(knobs, "NEGOTIATOR_USE_WEIGHTED_DEMAND", True),
        strict_enforce_quota=_bool(knobs, "NEGOTIATOR_STRICT_ENFORCE_QUOTA", True),
    )


def limit_config(knobs: Knobs) -> LimitConfig:
    """Concurrency-limit capacities: ``<NAME>_LIMIT`` and the defaults."""
    explicit, set_defaults = {}, {}
    for name in knobs.names():
        upper = name.upper()
        if upper.startswith("CONCURRENCY_LIMIT_DEFAULT_"):
            group = name[len("CONCURRENCY_LIMIT_DEFAULT_") :]
            if not valid_limit_name(group) or "." in group:
                raise knob_error(knobs, name, "a limit-set name of letters, digits and underscores")
            set_defaults[group.lower()] = _float(knobs, name, 0.0, 0.0)
        elif upper.endswith("_LIMIT") and upper != "CONCURRENCY_LIMIT_DEFAULT":
            limit = name[: -len("_LIMIT")]
            if not valid_limit_name(limit):
                raise knob_error(
                    knobs,
                    name,
                    "a limit name of letters, digits and underscores, "
                    "not starting with a digit, with at most one period",
                )
            value = _limit_value(knobs, name)
            if value is not None:
                explicit[limit.lower()] = value
    default = _value(knobs, "CONCURRENCY_LIMIT_DEFAULT", "number")
    return LimitConfig(explicit, None if default is None else float(default), set_defaults)


def _limit_value(knobs: Knobs, name: str) -> float | None:
    """A ``*_LIMIT`` knob's number; other ``*_LIMIT`` knobs are not concurrency limits."""
    try:
        value = _value(knobs, name, "number")
    except ConfigError:
        return None
    return None if value is None else float(value)  # type: ignore[arg-type]


def _problem(knobs: Knobs, name: str, message: str) -> ConfigError:
    source, line = knobs.where(name)
    return ConfigError(f"{name}: {message}", source, line, name)


def accountant_policy(knobs: Knobs) -> AccountantPolicy:
    """The accountant's knobs; ``GROUP_PRIO_FACTOR_<g>`` for every group that sets one."""
    d = AccountantPolicy()
    group_factors = {}
    for name in knobs.names():
        if name.upper().startswith("GROUP_PRIO_FACTOR_"):
            group_factors[name[len("GROUP_PRIO_FACTOR_") :].lower()] = _float(knobs, name, 0.0, 0.0)
    local = knobs.get("ACCOUNTANT_LOCAL_DOMAIN")
    return AccountantPolicy(
        halflife=_float(knobs, "PRIORITY_HALFLIFE", d.halflife, 0.00001),
        default_factor=_float(knobs, "DEFAULT_PRIO_FACTOR", d.default_factor, 1.0),
        nice_user_factor=_float(knobs, "NICE_USER_PRIO_FACTOR", d.nice_user_factor, 1.0),
        remote_factor=_float(knobs, "REMOTE_PRIO_FACTOR", d.remote_factor, 1.0),
        local_domain=local.strip() if local and local.strip() else None,
        group_factors=group_factors,
        nice_user_prefix=(knobs.get("NICE_USER_ACCOUNTING_GROUP_NAME") or "nice-user").strip(),
    )
