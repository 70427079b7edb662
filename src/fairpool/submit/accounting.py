"""Whom a job is charged to: nice_user, accounting groups and concurrency limits.

``accounting_group = g`` with ``accounting_group_user = u`` (default: the owner) gives
``AcctGroup = "g"``, ``AcctGroupUser = "u"`` and ``AccountingGroup = "g.u"``;
``accounting_group_user = u`` alone makes ``u`` the submitter (seed "Group Accounting":
``AcctGroupUser = "u"``, ``AccountingGroup = "u"``, no AcctGroup). With a group
map the owner's map entry decides (``GroupMap.assign``): the default group when the file
names none, a refusal when it names one the owner may not use. ``nice_user = true`` puts
the job in NICE_USER_ACCOUNTING_GROUP_NAME (``nice-user``), ahead of any group request, and
gives it no retirement time by default. ``concurrency_limits`` is stored as written,
lower-cased as condor_submit does (the seed's example keeps the case: ``XSW``; the knob
CONCURRENCY_LIMITS_LOWER_CASE = false selects that); ``concurrency_limits_expr`` is stored
as an expression; a job may give one of the two, not both.
"""

from __future__ import annotations

from ..classad import ClassAd
from ..errors import SubmitError
from .job import JobInput
from .knobs import knob

__all__ = ["add_accounting"]


def add_accounting(ad: ClassAd, job: JobInput) -> None:
    """NiceUser, AcctGroup, AcctGroupUser, AccountingGroup, ConcurrencyLimits(Expr)."""
    nice = job.flag("nice_user")
    ad["NiceUser"] = nice
    if nice and job.get("max_job_retirement_time") is None:
        ad["MaxJobRetirementTime"] = 0
    group = knob(job.config, "NICE_USER_ACCOUNTING_GROUP_NAME") if nice else _group(job)
    chosen_user = job.get("accounting_group_user")
    user = chosen_user or job.owner
    if group is not None:
        ad["AcctGroup"] = group
        ad["AcctGroupUser"] = user
        ad["AccountingGroup"] = f"{group}.{user}"
    elif chosen_user is not None:
        ad["AcctGroupUser"] = user
        ad["AccountingGroup"] = user
    _concurrency(ad, job)


def _group(job: JobInput) -> str | None:
    requested = job.get("accounting_group")
    if job.group_map is None:
        return requested
    try:
        return job.group_map.assign(job.owner, requested)
    except SubmitError as err:
        where = f"{err.source}:{err.line}" if err.line else str(err.source)
        raise job.error("accounting_group", f"{err.message} [{where}]") from err


def _concurrency(ad: ClassAd, job: JobInput) -> None:
    limits = job.get("concurrency_limits")
    expression = job.expr("concurrency_limits_expr")
    if limits is not None and expression is not None:
        later = max(
            ("concurrency_limits", "concurrency_limits_expr"),
            key=lambda c: job.scope.line_of(c, job.line),
        )
        raise job.error(
            later,
            "concurrency_limits and concurrency_limits_expr cannot both be given: "
            "expected one of them",
        )
    if limits is not None:
        lower = knob(job.config, "CONCURRENCY_LIMITS_LOWER_CASE").lower() in ("true", "1", "yes")
        ad["ConcurrencyLimits"] = limits.lower() if lower else limits
    if expression is not None:
        ad["ConcurrencyLimitsExpr"] = expression
