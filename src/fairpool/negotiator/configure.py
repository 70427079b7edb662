"""From configuration knobs to the negotiator's and the accountant's parameters.

``Knobs`` is any case-insensitive view of an HTCondor configuration with macros expanded
(``knobs.get("PRIORITY_HALFLIFE")`` gives the text or None) and, for error messages,
where each knob was set. Booleans and numbers are read as HTCondor reads them, as ClassAd
expressions (``True``, ``1``, ``$(X) * 60``). A knob whose text is not what it must be is a
``ConfigError`` naming the knob and the file and line that set it.
"""

from __future__ import annotations

from typing import Protocol

from ..accounting.accountant import AccountantPolicy
from ..classad import ClassAdSyntaxError, Expr
from ..errors import ConfigError
from .params import DEFAULTS, NegotiatorParams

__all__ = ["Knobs", "accountant_policy", "negotiator_params"]


class Knobs(Protocol):
    def get(self, name: str) -> str | None: ...

    def where(self, name: str) -> tuple[str | None, int | None]: ...

    def names(self) -> list[str]: ...


def _fail(knobs: Knobs, name: str, expected: str) -> ConfigError:
    source, line = knobs.where(name)
    return ConfigError(f"{name} = {knobs.get(name)!r}: expected {expected}", source, line, name)


def _expr(knobs: Knobs, name: str) -> Expr | None:
    text = knobs.get(name)
    if text is None or not text.strip():
        return None
    try:
        return Expr(text)
    except ClassAdSyntaxError as err:
        raise _fail(knobs, name, f"a ClassAd expression ({err.message})") from None


def _value(knobs: Knobs, name: str, kind: str) -> object:
    expr = _expr(knobs, name)
    if expr is None:
        return None
    value = expr.eval(now=0)
    if kind == "bool":
        if type(value) is bool:
            return value
        if type(value) in (int, float):
            return value != 0
        raise _fail(knobs, name, "True or False")
    if type(value) in (int, float) and type(value) is not bool:
        return value
    raise _fail(knobs, name, "a number")


def _bool(knobs: Knobs, name: str, default: bool) -> bool:
    value = _value(knobs, name, "bool")
    return default if value is None else bool(value)


def _float(knobs: Knobs, name: str, default: float, minimum: float | None = None) -> float:
    value = _value(knobs, name, "number")
    if value is None:
        return default
    if minimum is not None and value < minimum:  # type: ignore[operator]
        raise _fail(knobs, name, f"a number of at least {minimum}")
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
    return _expr(knobs, name)


def negotiator_params(knobs: Knobs) -> NegotiatorParams:
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
        slot_weight=_expr(knobs, "SLOT_WEIGHT") or d.slot_weight,
        force_slot_weight=_bool(knobs, "FORCE_NEGOTIATOR_SLOT_WEIGHT", d.force_slot_weight),
        slot_constraint=_expr(knobs, "NEGOTIATOR_SLOT_CONSTRAINT"),
        submitter_constraint=_expr(knobs, "NEGOTIATOR_SUBMITTER_CONSTRAINT"),
        job_constraint=_expr(knobs, "NEGOTIATOR_JOB_CONSTRAINT"),
        slot_poolsize_constraint=_expr(knobs, "NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT")
        or _expr(knobs, "GROUP_DYNAMIC_MACH_CONSTRAINT"),
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
    )


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
