"""Carrying out what the transition table decides: rules, changes, enter and leave actions.

``Engine`` holds the slots and applies ``transitions.py``: it finds the first rule whose
guards hold (``guards.py``), applies its effects and takes its transition. A change
follows HTCondor's ``ResState::change`` (startd.md §1.2-§1.3): the leave action, the new
pair and timestamps, the enter action, and only then the ad's ``State``/``Activity`` (the
stale-ad rule; if the enter action itself changed the pair, the nested change publishes).
``startd.py`` adds time, timers and protocol events on top.
"""

from __future__ import annotations

from ..classad import ClassAd, Expr
from .claim import Claim
from .events import Action, Change
from .expressions import PolicyError, Truth, evaluate
from .guards import Context, Drain, Why, check, rank_of
from .partition import release
from .policy import StartdPolicy
from .retirement import max_vacate_time
from .slot import Kind, Slot
from .states import Activity, State
from .transitions import (
    EVENT_RULES,
    PASS_RULES,
    TRANSITIONS,
    Effect,
    Guard,
    Rule,
    Trigger,
)

__all__ = ["Engine"]

_MAX_CHAIN = 8
STANDARD = 1


class Engine:
    """The slots of one startd and the machinery that changes their states."""

    def __init__(self, policy: StartdPolicy) -> None:
        self.policy = policy
        self.now = 0
        self.slots: dict[str, Slot] = {}
        self.changes: list[Change] = []
        self.actions: list[Action] = []
        self.draining: Drain | None = None
        self.polling = False
        self.refusal = ""
        self.badput = 0.0
        self._depth = 0

    # ---- evaluating rules -------------------------------------------------------------

    def context(self, slot: Slot, request: ClassAd | None = None) -> Context:
        return Context(self.policy, slot, self.now, self.draining, self.slots.values(), request)

    def apply(
        self,
        slot: Slot,
        rules: tuple[Rule, ...],
        cause: str,
        request: ClassAd | None = None,
        periodic: bool = True,
    ) -> bool:
        """Run ``rules`` in order: effects of each that holds, until one changes the pair.
        The guards' context is made once, and again only after effects (which may change
        what the guards look at)."""
        ctx = None
        for rule in rules:
            if rule.periodic and not periodic:
                continue
            if ctx is None:
                ctx = self.context(slot, request)
            held, why = True, None
            for guard in rule.guards:
                held, reason = check(guard, ctx)
                why = reason or why
                if not held:
                    break
            if not held:
                continue
            if rule.effects:
                ctx = None
                for effect in rule.effects:
                    self.effect(slot, effect, request, why)
            if rule.transition is not None:
                named = rule.named
                text = f"{cause}: {named}" if named else cause
                self.take(slot, rule.transition, text, why, rule.activity)
                return True
        return False

    def evaluate(self, slot: Slot, periodic: bool) -> bool:
        """One slot's share of an evaluation pass (or an immediate re-evaluation)."""
        rules = PASS_RULES[self.policy.profile.order].get(slot.pair, ())
        return self.apply(slot, rules, "policy", periodic=periodic)

    def event(
        self,
        slot: Slot,
        trigger: Trigger,
        request: ClassAd | None = None,
        cause: str | None = None,
    ) -> bool:
        """Apply the table's rules for ``trigger`` (ignored where the table has none)."""
        rules = EVENT_RULES[self.policy.profile.order][trigger].get(slot.pair)
        if rules is None:
            self.refusal = f"{trigger} ignored in {slot.pair[0]}/{slot.pair[1]}"
            return False
        return self.apply(slot, rules, cause or str(trigger), request)

    def effect(self, slot: Slot, effect: Effect, request: ClassAd | None, why: Why) -> None:
        claim = slot.claim
        if effect is Effect.MARK_PREEMPTED and claim is not None:
            claim.preempt_was_true = True
            claim.may_unretire = False
        elif effect is Effect.CHECKPOINT and claim is not None:
            claim.last_checkpoint = self.now
            slot.publish_job()
            self.act(slot, "checkpoint", why[1] if why else "")
        elif effect is Effect.REFUSE:
            self.refusal = f"refused: {why[0]} is not TRUE" if why else "refused"
        elif effect is Effect.TAKE_PREEMPTOR:
            assert request is not None
            slot.preemptor = Claim(request, rank_of(self.context(slot), request), self.now)
            slot.timers.pop("preempting match", None)
        elif effect is Effect.HOLD_MATCH:
            slot.ad["Requirements"] = False
            slot.timers["preempting match"] = self.now + self.policy.match_timeout
        elif effect is Effect.DROP_PREEMPTOR:
            slot.preemptor = None
        elif effect is Effect.RETIRE_FOR_GOOD and claim is not None:
            claim.may_unretire = False
        elif effect is Effect.EVALUATE:
            self.evaluate(slot, periodic=False)
        elif effect is Effect.ACCEPT:
            assert request is not None
            rank = rank_of(self.context(slot), request)
            slot.claim = Claim(request, rank, self.now, self.draining is not None)
        elif effect is Effect.BEGIN_JOB and claim is not None:
            self.begin_job(slot, claim, request or claim.request)
        elif effect is Effect.STOP_DRAINING:
            self.stop_draining()
        if effect in (Effect.RETIRE, Effect.RETIRE_FOR_GOOD) and claim is not None:
            claim.evicted_by_draining = self.draining is not None

    def begin_job(self, slot: Slot, claim: Claim, job: ClassAd) -> None:
        """Activation: JobStart, the standard universe's first checkpoint time, the rank."""
        claim.job = job
        claim.job_start = self.now
        claim.activations += 1
        claim.running_since = self.now
        claim.last_checkpoint = self.now if job.get("JobUniverse") == STANDARD else None
        claim.rank = rank_of(self.context(slot), job)
        slot.publish_claim(self.policy.profile.unclaimed_current_rank)

    def stop_draining(self) -> None:
        """Overridden by ``Startd``, which keeps the drain bookkeeping."""
        self.draining = None

    # ---- changes ------------------------------------------------------------------------

    def take(
        self, slot: Slot, number: str, cause: str, why: Why = None, activity: Activity | None = None
    ) -> None:
        """Take numbered transition ``number`` (the activity chosen as HTCondor does)."""
        targets = TRANSITIONS[number].targets
        state = next(iter(targets))[0]
        if len(targets) == 1:
            activity = next(iter(targets))[1]
        elif activity is None:
            activity = self.preempting_activity(slot)
        expression = f"{why[0]} = {why[1]}" if why else None
        self.change(slot, number, state, activity, cause, expression)

    def preempting_activity(self, slot: Slot) -> Activity:
        """Vacating, unless PREEMPT drove the eviction and WANT_VACATE is FALSE (§3)."""
        claim = slot.claim
        if claim is None or claim.job is None or not claim.preempt_was_true:
            return Activity.VACATING
        truth, used = evaluate(slot.ad, "WANT_VACATE", claim.job, self.now, claim.vanilla)
        if truth is Truth.OTHER:
            raise PolicyError(f"{used} is not a boolean on {slot.name}")
        return Activity.VACATING if truth is Truth.TRUE else Activity.KILLING

    def change(
        self,
        slot: Slot,
        number: str,
        state: State,
        activity: Activity,
        cause: str,
        expression: str | None = None,
    ) -> None:
        source = slot.pair
        self.changes.append(
            Change(self.now, slot.name, number, source, (state, activity), cause, expression)
        )
        self._leave(slot, state)
        slot.leave_pair(self.now)
        if state is not slot.state:
            slot.entered_state = self.now
        slot.state, slot.activity = state, activity
        slot.entered_activity = self.now
        slot.changes_made += 1
        mark = slot.changes_made
        stale = self.policy.profile.stale_ad_in_enter_action
        if not stale:
            slot.publish_state()
        self._enter(slot, source)
        if slot.changes_made != mark:
            return
        if stale:  # else published already, and the enter action changed none of it
            slot.publish_state()
        slot.publish_times(self.now)
        chains = self.policy.profile.chains and self._depth < _MAX_CHAIN
        if chains and activity in (Activity.IDLE, Activity.RETIRING):
            self._depth += 1
            try:
                self.evaluate(slot, periodic=False)
            finally:
                self._depth -= 1

    def _leave(self, slot: Slot, state: State) -> None:
        claim = slot.claim
        if slot.activity is Activity.SUSPENDED and claim is not None:
            self.act(slot, "continue")
            claim.unsuspend(self.now)
            if state is State.CLAIMED:
                claim.running_since = self.now
        if slot.state is State.PREEMPTING and state is not State.PREEMPTING:
            slot.timers.clear()
            slot.publish_job()

    def _enter(self, slot: Slot, source: tuple[State, Activity]) -> None:
        state, activity = slot.pair
        new_state = state is not source[0]
        if state is State.OWNER:
            self._enter_owner(slot)
        elif state is State.UNCLAIMED:
            self.publish_requirements(slot)
            if slot.kind is Kind.DYNAMIC:
                self.take(slot, "delete", "an unclaimed dynamic slot goes away")
            elif self.draining is not None:
                self.take(slot, "M37", "the machine is draining")
        elif state is State.MATCHED:
            slot.ad["Requirements"] = False
            slot.timers["match"] = self.now + self.policy.match_timeout
        elif state is State.CLAIMED:
            if source[0] is State.PREEMPTING:
                slot.claim, slot.preemptor = slot.preemptor, None
            self._enter_claimed(slot, activity, new_state)
        elif state is State.PREEMPTING:
            self._enter_preempting(slot, activity, new_state)
        elif state is State.DRAINED:
            self.publish_requirements(slot)
        elif state is State.DELETE:
            self._delete(slot)

    def _enter_owner(self, slot: Slot) -> None:
        slot.claim = None
        slot.preemptor = None
        slot.timers.clear()
        slot.publish_claim(self.policy.profile.unclaimed_current_rank)
        held, why = check_is_owner(self, slot)
        if not held:
            self.take(slot, "1", "entering Owner: not IsOwner", why)
        else:
            self.publish_requirements(slot)

    def _enter_claimed(self, slot: Slot, activity: Activity, new_state: bool) -> None:
        claim = slot.claim
        assert claim is not None
        # Polling covers every Claimed slot (startd.md §2.1; ST-12 needs a pass at 200).
        self.polling = True
        if new_state:
            slot.timers.clear()
            self.publish_requirements(slot)
            slot.publish_claim(self.policy.profile.unclaimed_current_rank)
        if activity is Activity.SUSPENDED:
            claim.suspend(self.now)
            self.act(slot, "suspend")

    def _enter_preempting(self, slot: Slot, activity: Activity, new_state: bool) -> None:
        claim = slot.claim
        if new_state:
            slot.ad["Requirements"] = False
            if claim is not None:
                claim.pause(self.now)
        if claim is None or claim.job is None:
            self.event(slot, Trigger.STARTER_EXIT, cause="no starter to wait for")
            return
        if activity is Activity.KILLING:
            self.act(slot, "hard kill")
            slot.timers["sigkill"] = self.now + self.policy.killing_timeout
        elif new_state:
            self.act(slot, "soft kill")
            if self.policy.profile.soft_kill_timeout:
                slot.timers["softkill"] = self.now + max_vacate_time(slot, self.now)

    def _delete(self, slot: Slot) -> None:
        slot.alive = False
        parent = self.slots.get(slot.parent or "")
        if parent is not None:
            release(parent.ad, slot.ad)
        del self.slots[slot.name]

    # ---- the ad -------------------------------------------------------------------------

    def publish_requirements(self, slot: Slot) -> None:
        """Requirements as startd.md §5 has it for the slot's state and the drain."""
        if self.draining is None:
            slot.publish_requirements(self.policy.expressions.get("START"), True)
            return
        start = self.draining.start
        slot.publish_requirements(start if isinstance(start, Expr) else None, True)

    def act(self, slot: Slot, kind: str, detail: str = "") -> None:
        self.actions.append(Action(self.now, slot.name, kind, detail))


def check_is_owner(engine: Engine, slot: Slot) -> tuple[bool, Why]:
    """IsOwner as the Owner enter action sees it (the ad may still show the old state)."""
    return check(Guard.IS_OWNER, engine.context(slot))
