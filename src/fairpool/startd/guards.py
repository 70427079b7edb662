"""Answers to the questions the transition table asks (``transitions.Guard``).

Each guard is a small function of a ``Context``: the slot, the time, the machine's drain
request and, for claim and activation events, the request or job ad. It returns whether
the guard holds and, when a policy expression decided it, that expression's name and
text (``fairpool policy trace`` prints it). The evaluation context (local or with the job)
and the treatment of UNDEFINED follow spec startd.md §1.5 and §2.3.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..classad import ClassAd
from .claim import Claim
from .expressions import PolicyError, Truth, evaluate, number
from .policy import StartdPolicy
from .retirement import retirement_expired
from .slot import Kind, Slot
from .states import State
from .transitions import Guard

__all__ = ["Context", "Drain", "check", "local", "start_truth"]

Why = tuple[str, str] | None
STANDARD = 1


@dataclass
class Drain:
    """A drain request in force on the machine (startd.md §9)."""

    how: str
    reason: str
    resume: bool
    start: object
    request_id: str
    since: int


@dataclass
class Context:
    """What a guard may look at."""

    policy: StartdPolicy
    slot: Slot
    now: int
    drain: Drain | None
    slots: Iterable[Slot]
    request: ClassAd | None = None

    @property
    def all_drained(self) -> bool:
        """Every slot of the machine is in Drained (asked only in Drained/Retiring)."""
        return all(s.state is State.DRAINED for s in self.slots if s.alive)


def local(slot: Slot) -> bool:
    """Owner, Unclaimed, Matched and Drained evaluate with no job (startd.md §1.5)."""
    return slot.state in (State.OWNER, State.UNCLAIMED, State.MATCHED, State.DRAINED)


def _target(ctx: Context) -> ClassAd | None:
    if local(ctx.slot) or ctx.slot.claim is None:
        return None
    return ctx.slot.claim.ad


def _expr(ctx: Context, name: str, target: ClassAd | None, vanilla: bool) -> tuple[Truth, Why]:
    truth, used = evaluate(ctx.slot.ad, name, target, ctx.now, vanilla)
    return truth, (used, ctx.policy.text(used) or str(ctx.slot.ad.lookup(used) or ""))


def _with_job(name: str, want: Truth = Truth.TRUE) -> Callable[[Context], tuple[bool, Why]]:
    """A vanilla-aware expression with the job; not a boolean counts as FALSE (DIV-3)."""

    def guard(ctx: Context) -> tuple[bool, Why]:
        claim = ctx.slot.claim
        target = claim.ad if claim is not None else None
        vanilla = claim is not None and claim.vanilla
        truth, why = _expr(ctx, name, target, vanilla)
        if truth is Truth.OTHER:
            truth = Truth.FALSE
        return truth is want, why

    return guard


def is_owner(ctx: Context) -> tuple[bool, Why]:
    """IsOwner, locally or with the job; a non-boolean stops HTCondor's startd."""
    truth, why = _expr(ctx, "IsOwner", _target(ctx), False)
    if truth is Truth.OTHER:
        raise PolicyError(f"IsOwner is not a boolean on {ctx.slot.name}: {why[1] if why else ''}")
    return truth is Truth.TRUE, why


def start_truth(ctx: Context, target: ClassAd | None) -> tuple[Truth, Why]:
    """START (the one in force, the draining one while draining) against ``target``."""
    return _expr(ctx, "START", target, False)


def willing(ctx: Context) -> tuple[bool, Why]:
    """Requirements with the request: START (UNDEFINED refuses) and, for partitionable and
    dynamic slots, WithinResourceLimits (startd.md §4, §11)."""
    truth, why = start_truth(ctx, ctx.request)
    if truth is not Truth.TRUE:
        return False, why
    if ctx.slot.kind is not Kind.STATIC:
        fits, _ = evaluate(ctx.slot.ad, "WithinResourceLimits", ctx.request, ctx.now)
        return fits is Truth.TRUE, why
    return True, why


def rank_of(ctx: Context, ad: ClassAd) -> float:
    """RANK with ``ad`` (UNDEFINED or ERROR count as 0.0)."""
    value = number(ctx.slot.ad, "Rank", ad, ctx.now)
    return 0.0 if value is None else value


def _rank_not_worse(ctx: Context) -> tuple[bool, Why]:
    claim = ctx.slot.claim
    assert ctx.request is not None
    current = claim.rank if claim is not None else 0.0
    return rank_of(ctx, ctx.request) >= current, ("Rank", ctx.policy.text("Rank"))


def _preemptor_willing(ctx: Context) -> tuple[bool, Why]:
    """Only a defined FALSE refuses the waiting claim at the starter's exit."""
    pre = ctx.slot.preemptor
    if pre is None:
        return False, None
    truth, why = start_truth(ctx, pre.request)
    return truth is not Truth.FALSE, why


def _start_false(with_claim: bool) -> Callable[[Context], tuple[bool, Why]]:
    def guard(ctx: Context) -> tuple[bool, Why]:
        claim = ctx.slot.claim
        target = claim.ad if with_claim and claim is not None else None
        truth, why = start_truth(ctx, target)
        return truth is Truth.FALSE, why

    return guard


def _run_benchmarks(ctx: Context) -> tuple[bool, Why]:
    if "RunBenchmarks" not in ctx.slot.ad:
        return False, None
    truth, why = _expr(ctx, "RunBenchmarks", None, False)
    return truth is Truth.TRUE, why


def _periodic_checkpoint(ctx: Context) -> tuple[bool, Why]:
    """Only a standard-universe job checkpoints (6.6 ``ResState::eval``)."""
    claim = ctx.slot.claim
    if claim is None or claim.job is None or claim.job.get("JobUniverse") != STANDARD:
        return False, None
    truth, why = _expr(ctx, "PERIODIC_CHECKPOINT", claim.ad, False)
    return truth is Truth.TRUE, why


def _claim(ctx: Context) -> Claim:
    claim = ctx.slot.claim
    assert claim is not None, f"{ctx.slot.name} has no claim in {ctx.slot.pair}"
    return claim


def _in_retirement(ctx: Context) -> bool:
    return ctx.slot.preemptor is not None or not _claim(ctx).may_unretire or ctx.drain is not None


def _worklife_over(ctx: Context) -> bool:
    limit = ctx.policy.claim_worklife
    claim = _claim(ctx)
    return limit is not None and claim.activations > 0 and ctx.now - claim.started > limit


def _awaiting_activation(ctx: Context) -> bool:
    """A claim accepted under the draining START that has not run its job yet."""
    claim = _claim(ctx)
    return claim.accepted_while_draining and claim.activations == 0


def _plain(test: Callable[[Context], bool]) -> Callable[[Context], tuple[bool, Why]]:
    return lambda ctx: (test(ctx), None)


def _negate(guard: Callable[[Context], tuple[bool, Why]]) -> Callable[[Context], tuple[bool, Why]]:
    def negated(ctx: Context) -> tuple[bool, Why]:
        held, why = guard(ctx)
        return not held, why

    return negated


_GUARDS: dict[Guard, Callable[[Context], tuple[bool, Why]]] = {
    Guard.IS_OWNER: is_owner,
    Guard.NOT_IS_OWNER: _negate(is_owner),
    Guard.RUN_BENCHMARKS: _run_benchmarks,
    Guard.MATCHED_CHECKS_START: _plain(lambda ctx: ctx.policy.profile.matched_checks_start),
    Guard.START_LOCALLY_FALSE: _start_false(with_claim=False),
    Guard.START_WITH_CLAIM_FALSE: _start_false(with_claim=True),
    Guard.WANT_SUSPEND: _with_job("WANT_SUSPEND"),
    Guard.NOT_WANT_SUSPEND: _with_job("WANT_SUSPEND", Truth.FALSE),
    Guard.SUSPEND: _with_job("SUSPEND"),
    Guard.CONTINUE: _with_job("CONTINUE"),
    Guard.PREEMPT: _with_job("PREEMPT"),
    Guard.NEVER_PREEMPTED: _plain(lambda ctx: not _claim(ctx).preempt_was_true),
    Guard.KILL: _with_job("KILL"),
    Guard.PERIODIC_CHECKPOINT: _periodic_checkpoint,
    Guard.IN_RETIREMENT: _plain(_in_retirement),
    Guard.RETIREMENT_OVER: _plain(
        lambda ctx: retirement_expired(
            ctx.slot, ctx.now, ctx.drain is not None and ctx.drain.how == "quick"
        )
    ),
    Guard.MAY_UNRETIRE: _plain(lambda ctx: not _in_retirement(ctx)),
    Guard.PREEMPTOR: _plain(lambda ctx: ctx.slot.preemptor is not None),
    Guard.WORKLIFE_OVER: _plain(_worklife_over),
    Guard.DRAINING: _plain(lambda ctx: ctx.drain is not None),
    Guard.NOT_DRAINING: _plain(lambda ctx: ctx.drain is None),
    Guard.NOT_AWAITING_ACTIVATION: _plain(lambda ctx: not _awaiting_activation(ctx)),
    Guard.ALL_DRAINED: _plain(lambda ctx: ctx.all_drained),
    Guard.RESUME_ON_COMPLETION: _plain(lambda ctx: ctx.drain is not None and ctx.drain.resume),
    Guard.DYNAMIC: _plain(lambda ctx: ctx.slot.kind is Kind.DYNAMIC),
    Guard.WILLING: willing,
    Guard.RANK_NOT_WORSE: _rank_not_worse,
    Guard.PREEMPTOR_WILLING: _preemptor_willing,
}


def check(guard: Guard, ctx: Context) -> tuple[bool, Why]:
    """Whether ``guard`` holds, and the (name, text) of the expression that decided it."""
    return _GUARDS[guard](ctx)
