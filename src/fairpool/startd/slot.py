"""One slot's runtime record and the ad it publishes (spec startd.md §1.2-§1.4, §5).

The ad is what the policy expressions are evaluated in, so it is kept current the way the
startd keeps it: State, Activity and the Entered* times are published after a change's
enter action (the "stale ad" rule, startd.md §1.3), machine measurements at each pass,
claim attributes when a claim begins or a job starts, and Requirements per state (§5).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from ..classad import ClassAd, Expr
from ..classad.ad import to_python
from ..classad.scope import NOT_CONST
from .claim import Claim
from .states import Activity, State

__all__ = [
    "JOB_ATTRIBUTES",
    "JOB_ONLY",
    "WITHIN_RESOURCE_LIMITS",
    "Kind",
    "Slot",
    "limit_resources",
    "publish",
]

# startd.md §11: the resources a request must fit (custom resources: GPUs).
WITHIN_RESOURCE_LIMITS = Expr(
    "MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && "
    "TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk && "
    "(TARGET.RequestGPUs is undefined || TARGET.RequestGPUs <= 0 || MY.GPUs >= TARGET.RequestGPUs)"
)
_REQUIREMENTS = {False: Expr("START"), True: Expr("START && WithinResourceLimits")}
JOB_ATTRIBUTES = (
    "JobId",
    "JobStart",
    "LastPeriodicCheckpoint",
    "RetirementTimeRemaining",
    "TotalJobRunTime",
    "TotalJobSuspendTime",
)
CLAIM_ATTRIBUTES = (
    "TotalClaimRunTime",
    "TotalClaimSuspendTime",
    "RemoteUser",
    "RemoteOwner",
    "ClientMachine",
    "AccountingGroup",
    "AcceptedWhileDraining",
    *JOB_ATTRIBUTES,
)
# A slot ad must not define these: START and RANK name them for the job (startd.md §1.5).
JOB_ONLY = frozenset({"owner", "imagesize", "jobuniverse"})


def limit_resources(ad: ClassAd, custom: Sequence[str] = ()) -> None:
    """A partitionable slot's Requirements as the startd publishes it (startd.md §5, §11):
    START, and the resources a request must fit; a custom resource X adds
    ``(TARGET.RequestX is undefined || MY.X >= TARGET.RequestX)``."""
    limits = WITHIN_RESOURCE_LIMITS
    if custom:
        clauses = [
            f"(TARGET.Request{x} is undefined || MY.{x} >= TARGET.Request{x})" for x in custom
        ]
        limits = Expr(" && ".join([str(WITHIN_RESOURCE_LIMITS), *clauses]))
    ad["WithinResourceLimits"] = limits
    ad["Requirements"] = _REQUIREMENTS[True]


def publish(ad: ClassAd, values: Mapping[str, object]) -> None:
    """Set plain values in ``ad``, skipping those it already holds (a pass republishes the
    same measurements many times; rebuilding an unchanged attribute is the cost)."""
    for name, value in values.items():
        try:
            const = ad.lookup(name).const
        except KeyError:
            ad[name] = value
            continue
        if const is NOT_CONST or type(old := to_python(const)) is not type(value) or old != value:
            ad[name] = value


class Kind(StrEnum):
    STATIC = "Static"
    PARTITIONABLE = "Partitionable"
    DYNAMIC = "Dynamic"


@dataclass
class Slot:
    """A slot: its pair, timestamps, claims, timers and published ad."""

    name: str
    ad: ClassAd
    kind: Kind = Kind.STATIC
    parent: str | None = None
    state: State = State.OWNER
    activity: Activity = Activity.IDLE
    entered_state: int = 0
    entered_activity: int = 0
    claim: Claim | None = None
    preemptor: Claim | None = None
    cpu_busy_since: int | None = None
    timers: dict[str, int] = field(default_factory=dict)
    changes_made: int = 0
    alive: bool = True
    pair_times: dict[str, int] = field(default_factory=dict)  # TotalTime<State><Activity>
    sampled: tuple[int, object] | None = field(
        default=None, repr=False, compare=False
    )  # (t, inputs) last published in the ad (Startd._sample)

    @property
    def pair(self) -> tuple[State, Activity]:
        return (self.state, self.activity)

    @property
    def job_active(self) -> bool:
        return self.claim is not None and self.claim.job is not None

    @property
    def cpus(self) -> float:
        value = self.ad.get("Cpus")
        return float(value) if type(value) in (int, float) else 0.0

    def publish_state(self) -> None:
        """State, Activity and when they were entered."""
        self.ad.update(
            {
                "State": str(self.state),
                "Activity": str(self.activity),
                "EnteredCurrentState": self.entered_state,
                "EnteredCurrentActivity": self.entered_activity,
            }
        )

    def publish_claim(self, unclaimed_rank: float) -> None:
        """CurrentRank and who holds the slot (Claim::publish)."""
        claim = self.claim
        if claim is None:
            self.ad["CurrentRank"] = unclaimed_rank
            self.ad.discard(CLAIM_ATTRIBUTES)
            return
        self.ad["CurrentRank"] = claim.rank
        self.ad["AcceptedWhileDraining"] = claim.accepted_while_draining
        user = claim.user()
        if user is not None:
            self.ad.update({"RemoteUser": user, "RemoteOwner": user})
            client = claim.request.get("ClientMachine")
            self.ad["ClientMachine"] = client if isinstance(client, str) else user.partition("@")[2]
        group = claim.request.get("AccountingGroup")
        if isinstance(group, str):
            self.ad["AccountingGroup"] = group
        self.publish_job()

    def leave_pair(self, now: int) -> None:
        """Bank the time spent in the current state and activity (before a change)."""
        name = f"TotalTime{self.state}{self.activity}"
        self.pair_times[name] = self.pair_times.get(name, 0) + now - self.entered_activity

    def publish_times(self, now: int) -> None:
        """The claim's and the job's run and suspension totals (Claim.times) and the time
        spent in each state and activity pair (``TotalTimeClaimedBusy``..., each defined
        once above 0, manual "Machine ClassAd Attributes"), kept current at every pass and
        change so that policies can read them (``PREEMPT = TotalClaimRunTime > 20``)."""
        if self.claim is not None:
            publish(self.ad, self.claim.times(now))
        current = f"TotalTime{self.state}{self.activity}"
        totals = dict(self.pair_times)
        totals[current] = totals.get(current, 0) + now - self.entered_activity
        publish(self.ad, {name: value for name, value in totals.items() if value > 0})

    def publish_job(self) -> None:
        """JobId, JobStart and LastPeriodicCheckpoint, present only while a job runs."""
        claim = self.claim
        if claim is None or claim.job is None:
            self.ad.discard(JOB_ATTRIBUTES)
            return
        job_id = claim.job_id()
        if job_id is not None:
            self.ad["JobId"] = job_id
        self.ad["JobStart"] = claim.job_start
        if claim.last_checkpoint is not None:
            self.ad["LastPeriodicCheckpoint"] = claim.last_checkpoint

    def publish_requirements(self, start: Expr | None, normal: bool) -> None:
        """Requirements as §5 gives it: START (and the resource limits, for partitionable and
        dynamic slots) when ``normal``, else False. ``start`` is the START in force (the
        draining start expression while draining); None means the slot takes no job."""
        if start is not None:
            self.ad["START"] = start
        if not normal or start is None:
            self.ad["Requirements"] = False
            return
        self.ad["Requirements"] = _REQUIREMENTS[self.kind is not Kind.STATIC]
