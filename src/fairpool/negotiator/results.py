"""What a negotiation cycle decides, as values: matches, rejections, and the statistics
HTCondor publishes in the negotiator ad as ``LastNegotiationCycle*``."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from ..accounting.accountant import Usage

__all__ = [
    "CycleResult",
    "CycleStats",
    "Match",
    "Rejection",
    "SubmitterSummary",
    "rejection_attributes",
]

NO_PREEMPTION, RANK, PRIORITY = "NoPreemption", "Rank", "Priority"


@dataclass(frozen=True)
class Match:
    """A job given a slot, why (``NoPreemption``, ``Rank`` or ``Priority``) and whom it
    preempts (the running submitter, or None); ``schedd``: the schedd the job's request
    came from, when the cycle was given schedds' requests."""

    job: str
    submitter: str
    slot: str
    reason: str
    preempting: str | None
    cost: float
    group: str | None = None
    schedd: str | None = None


@dataclass(frozen=True)
class Rejection:
    """A job left idle this cycle, with the reason the negotiator would tell its schedd."""

    job: str
    submitter: str
    reason: str
    schedd: str | None = None


@dataclass(frozen=True)
class SubmitterSummary:
    rup: float
    eup: float
    factor: float
    usage: float  # weighted, after this cycle's matches
    running: int  # slots held, after this cycle's matches
    # the first spin's pie share (a fraction) and the weight it allows (HTCondor's
    # SubmitterShare and SubmitterLimit); None where the submitter had no pie turn or
    # priorities are ignored
    share: float | None = None
    limit: float | None = None


@dataclass
class CycleStats:
    """HTCondor's per-cycle negotiator statistics (names without the common prefix)."""

    time: float = 0.0
    matches: int = 0
    rejections: int = 0
    num_idle_jobs: int = 0
    num_jobs_considered: int = 0
    active_submitter_count: int = 0
    num_schedulers: int = 0
    total_slots: int = 0
    trimmed_slots: int = 0
    candidate_slots: int = 0
    pie_spins: int = 0
    pies: int = 0
    submitters_share_limit: list[str] = field(default_factory=list)

    def to_ad_attributes(self) -> dict[str, Any]:
        """``LastNegotiationCycle<Name>0`` attributes, as the negotiator ad carries them."""
        out: dict[str, Any] = {}
        for key, value in asdict(self).items():
            if isinstance(value, list):
                value = ", ".join(value)
            out[f"LastNegotiationCycle{_AD_NAMES[key]}0"] = value
        return out

    @classmethod
    def from_ad_attributes(cls, attributes: dict[str, Any]) -> CycleStats:
        """The statistics back from their ``LastNegotiationCycle*0`` attributes."""
        stats = cls()
        for key, name in _AD_NAMES.items():
            value = attributes.get(f"LastNegotiationCycle{name}0")
            if value is None:
                continue
            if key == "submitters_share_limit":
                value = [v for v in value.split(", ") if v]
            setattr(stats, key, value)
        return stats


def rejection_attributes(rejections: list[Rejection]) -> dict[str, int]:
    """The cycle's rejections counted by reason, as negotiator-ad attributes
    ``LastNegotiationCycleRejections<Reason>0`` (the reason's words run together:
    "no match found" is ``...RejectionsNoMatchFound0``), for monitoring."""
    counts: dict[str, int] = {}
    for rejection in rejections:
        words = re.findall(r"[A-Za-z0-9]+", rejection.reason)
        reason = "".join(word[:1].upper() + word[1:].lower() for word in words) or "Other"
        name = f"LastNegotiationCycleRejections{reason}0"
        counts[name] = counts.get(name, 0) + 1
    return counts


def _fields(value: Match | Rejection) -> dict[str, Any]:
    """A match or rejection as JSON; ``schedd`` only where requests came from schedds.
    (Its fields are plain values: a copy of them, not ``asdict``'s deep copy, which took
    longer than the cycle's matching in a live pool's 10,000-match cycle.)"""
    fields = dict(vars(value))
    if fields["schedd"] is None:
        del fields["schedd"]
    return fields


_AD_NAMES = {
    "time": "Time",
    "matches": "Matches",
    "rejections": "Rejections",
    "num_idle_jobs": "NumIdleJobs",
    "num_jobs_considered": "NumJobsConsidered",
    "active_submitter_count": "ActiveSubmitterCount",
    "num_schedulers": "NumSchedulers",
    "total_slots": "TotalSlots",
    "trimmed_slots": "TrimmedSlots",
    "candidate_slots": "CandidateSlots",
    "pie_spins": "PieSpins",
    "pies": "Pies",
    "submitters_share_limit": "SubmittersShareLimit",
}


@dataclass
class CycleResult:
    """Everything one cycle decided; ``usage`` is each customer's usage after it."""

    time: float
    matches: list[Match] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    submitters: dict[str, SubmitterSummary] = field(default_factory=dict)
    groups: dict[str, dict[str, float]] = field(default_factory=dict)
    usage: dict[str, Usage] = field(default_factory=dict)
    stats: CycleStats = field(default_factory=CycleStats)

    def to_json(self) -> dict[str, Any]:
        """The shape ``fairpool negotiate --json`` writes for each cycle."""
        return {
            "time": self.time,
            "matches": [_fields(m) for m in self.matches],
            "rejections": [_fields(r) for r in self.rejections],
            "submitters": {n: asdict(s) for n, s in sorted(self.submitters.items())},
            "groups": {g: dict(v) for g, v in sorted(self.groups.items())},
            "usage": {n: asdict(u) for n, u in sorted(self.usage.items())},
            "stats": self.stats.to_ad_attributes(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CycleResult:
        """A cycle read back from what ``to_json`` wrote (tools that read dry-run output)."""
        return cls(
            time=data["time"],
            matches=[Match(**m) for m in data["matches"]],
            rejections=[Rejection(**r) for r in data["rejections"]],
            submitters={n: SubmitterSummary(**s) for n, s in data["submitters"].items()},
            groups={g: dict(v) for g, v in data["groups"].items()},
            usage={n: Usage(**u) for n, u in data.get("usage", {}).items()},
            stats=CycleStats.from_ad_attributes(data.get("stats", {})),
        )
