"""One condor_defrag poll (defrag.md §D4): count, cancel, check the limits, drain the best.

``Defrag.poll(now, ads, transport)`` is pure apart from the ``transport`` it is given: the
slot ads are the collector's answer, and ``transport.drain`` / ``transport.cancel`` carry
the requests to the startds (``drain`` answers whether the startd accepted). Constraints
are built by joining texts exactly as condor_defrag does, so an unparenthesised
``DEFRAG_WHOLE_MACHINE_EXPR`` binds as it does there (D11-3).

Ties in ``DEFRAG_RANK`` (HTCondor: shuffle, then sort) are broken by slot name, so runs are
repeatable.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..classad import ClassAd, Expr
from ..classad.match import evaluate
from .config import SCHEDULES, DefragConfig
from .rate import quota
from .stats import DefragStats

__all__ = ["Defrag", "DrainRequest", "PollResult", "Transport", "machine_of"]

BASE = "PartitionableSlot && Offline=!=True"


def machine_of(ad: ClassAd) -> str:
    """The startd a slot belongs to: its Name after the first ``@`` (else the Name)."""
    name = ad.get("Name")
    name = name if isinstance(name, str) else ""
    return name.partition("@")[2] or name


@dataclass(frozen=True)
class DrainRequest:
    """What DRAIN_JOBS carries (defrag.md §D7)."""

    how: str
    how_fast: int
    reason: str
    resume_on_completion: bool
    check: Expr
    start: Expr


class Transport(Protocol):
    def drain(self, machine: str, slot: str, request: DrainRequest) -> bool: ...

    def cancel(self, machine: str) -> None: ...


@dataclass
class PollResult:
    """What one poll saw and did, and why it stopped (``reason``)."""

    quota: int
    draining: set[str]
    whole: set[str]
    cancelled: list[str] = field(default_factory=list)
    drained: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    reason: str = ""


def _holds(text: str, ad: ClassAd, now: int) -> bool:
    return evaluate(Expr(text), ad, now=now) is True


class Defrag:
    """condor_defrag's memory between polls, and its statistics."""

    def __init__(self, config: DefragConfig | None = None) -> None:
        self.config = config or DefragConfig()
        self.quota = quota(self.config.per_hour, self.config.interval)
        self.last_poll = 0
        self.stats = DefragStats(self.config.name, self.config.interval)
        mine = f'"Defrag {self.config.name}"'
        self.by_me = f"(DrainReason is undefined || DrainReason == {mine})"

    @property
    def reason(self) -> str:
        return f"Defrag {self.config.name}"

    def _machines(self, text: str, ads: Iterable[ClassAd], now: int) -> set[str]:
        return {machine_of(ad) for ad in ads if _holds(text, ad, now)}

    def _ranked(self, text: str, ads: Sequence[ClassAd], now: int) -> list[ClassAd]:
        chosen = [ad for ad in ads if _holds(text, ad, now)]
        rank = Expr(self.config.rank)
        holder = ClassAd()

        def key(ad: ClassAd) -> tuple[float, str]:
            value = evaluate(rank, holder, ad, now=now)
            score = float(value) if type(value) in (int, float, bool) else 0.0
            name = ad.get("Name")
            return (-score, name if isinstance(name, str) else "")

        return sorted(chosen, key=key)

    def poll(self, now: int, ads: Sequence[ClassAd], transport: Transport) -> PollResult:
        """One cycle at ``now`` over the collector's slot ads."""
        cfg = self.config
        prev, self.last_poll = self.last_poll, now
        count = self.quota.for_poll(now, prev, cfg.interval)
        draining = self._machines(f"{BASE} && Draining && {self.by_me}", ads, now)
        whole = self._machines(f"{cfg.whole} && {BASE} && {self.by_me}", ads, now)
        result = PollResult(count, draining, whole)
        self.stats.observe(now, draining, whole, ads)
        self._cancel(now, ads, transport, result)
        result.reason = self._early_out(count, draining, whole)
        if not result.reason:
            self._drain(now, ads, transport, result)
        return result

    def _cancel(self, now: int, ads: Sequence[ClassAd], transport: Transport, result) -> None:
        if not self.config.cancel:
            return
        text = f"{BASE} && Draining && {self.by_me} && ({self.config.cancel})"
        for ad in self._ranked(text, ads, now):
            machine = machine_of(ad)
            if machine not in result.cancelled:
                transport.cancel(machine)
                result.cancelled.append(machine)
                self.stats.cancelled(now, machine)

    def _early_out(self, count: int, draining: set[str], whole: set[str]) -> str:
        cfg = self.config
        if count <= 0:
            return "no machines to drain this cycle"
        if self.quota.rate <= 0:
            return f"DEFRAG_DRAINING_MACHINES_PER_HOUR={self.quota.rate:f}"
        if cfg.max_concurrent == 0 or cfg.max_whole == 0:
            return "a limit of 0"
        if 0 <= cfg.max_concurrent <= len(draining):
            return (
                f"DEFRAG_MAX_CONCURRENT_DRAINING={cfg.max_concurrent} and {len(draining)} draining"
            )
        if 0 <= cfg.max_whole <= len(whole):
            return f"DEFRAG_MAX_WHOLE_MACHINES={cfg.max_whole} and {len(whole)} whole"
        return ""

    def _drain(self, now: int, ads: Sequence[ClassAd], transport: Transport, result) -> None:
        extra = f" && ({self.config.requirements})" if self.config.requirements else ""
        done: set[str] = set()
        for ad in self._ranked(f"{BASE} && Draining =!= true{extra}", ads, now):
            machine = machine_of(ad)
            if machine in result.cancelled or machine in done or machine in result.whole:
                continue
            name = str(ad.get("Name"))
            accepted = transport.drain(machine, name, self.request_for(ad))
            self.stats.attempt(now, name, self.config.schedule, accepted)
            if not accepted:
                result.failed.append(machine)
                continue
            done.add(machine)
            result.drained.append(machine)
            if len(done) >= result.quota:
                break

    def request_for(self, ad: ClassAd) -> DrainRequest:
        """DRAIN_JOBS for ``ad``'s machine: its cost may not have grown much since."""
        kind = "Graceful" if self.config.schedule == "graceful" else "Quick"
        completion = _number(ad.get(f"ExpectedMachine{kind}DrainingCompletion"))
        badput = _number(ad.get(f"ExpectedMachine{kind}DrainingBadput"))
        check = Expr(
            f"ExpectedMachine{kind}DrainingCompletion <= {completion + 1200} && "
            f"ExpectedMachine{kind}DrainingBadput <= {int(1.25 * badput) + 1200}"
        )
        return DrainRequest(
            self.config.schedule,
            SCHEDULES[self.config.schedule],
            self.reason,
            True,
            check,
            Expr(self.config.start),
        )

    def state(self) -> dict[str, object]:
        """What DEFRAG_STATE_FILE keeps: the last poll (the hourly and daily quotas
        count from it) and the statistics' counters."""
        return {"last_poll": self.last_poll, "stats": self.stats.state()}

    def restore(self, state: dict[str, object]) -> None:
        last = state.get("last_poll")
        self.last_poll = last if type(last) is int else 0
        stats = state.get("stats")
        if isinstance(stats, dict):
            self.stats.restore(stats)

    def ad(self, now: int) -> ClassAd:
        """The Defrag ad condor_defrag publishes."""
        return self.stats.ad(now)


def _number(value: object) -> float:
    return float(value) if type(value) in (int, float) else 0.0
