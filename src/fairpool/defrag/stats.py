"""The statistics condor_defrag publishes in its Defrag ad (defrag.md §D8).

Counts and peaks of draining and whole machines, drain successes and failures (lifetime
and over the last ten polls), the pool's draining cost averages, the arrival of newly
whole machines, and the last ten drain and cancel requests.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence

from ..classad import ClassAd

__all__ = ["DefragStats", "draining_cost"]

RECENT_POLLS = 10
RECENT_LIST = 10


def draining_cost(ads: Sequence[ClassAd]) -> tuple[float, float]:
    """(AvgDrainingBadput, AvgDrainingUnclaimed): per machine (one ``SlotID == 1`` ad),
    the cumulative cpu-seconds over its age, summed, over the pool's total cpus."""
    badput = unclaimed = cpus = 0.0
    for ad in ads:
        if ad.get("SlotID") != 1:
            continue
        b, u = ad.get("TotalMachineDrainingBadput"), ad.get("TotalMachineDrainingUnclaimedTime")
        if not (_is_number(b) or _is_number(u)):
            continue
        heard, started, total = (
            ad.get("LastHeardFrom"),
            ad.get("DaemonStartTime"),
            ad.get("TotalCpus"),
        )
        if not (_is_number(heard) and _is_number(started) and _is_number(total)):
            continue
        age = heard - started
        if age <= 0:
            continue
        badput += (b if _is_number(b) else 0) / age
        unclaimed += (u if _is_number(u) else 0) / age
        cpus += total
    if cpus <= 0:
        return 0.0, 0.0
    return badput / cpus, unclaimed / cpus


def _is_number(value: object) -> bool:
    return type(value) in (int, float)


class DefragStats:
    """What the Defrag ad reports."""

    def __init__(self, name: str, interval: int = 600) -> None:
        self.name = name
        self.interval = interval
        self.first_poll: int | None = None
        self.draining = self.whole = self.draining_peak = self.whole_peak = 0
        self.successes = self.failures = 0
        self.recent: deque[tuple[int, int]] = deque(maxlen=RECENT_POLLS)
        self.avg_badput = self.avg_unclaimed = 0.0
        self.arrivals = 0
        self.last_arrival: int | None = None
        self.weighted = self.weighted_sq = 0.0
        self.prev_whole: set[str] = set()
        self.prev_draining: set[str] = set()
        self.drains: deque[ClassAd] = deque(maxlen=RECENT_LIST)
        self.cancels: deque[ClassAd] = deque(maxlen=RECENT_LIST)

    def observe(
        self, now: int, draining: set[str], whole: set[str], ads: Sequence[ClassAd]
    ) -> None:
        """A poll's counts, arrivals and cost averages."""
        self.first_poll = now if self.first_poll is None else self.first_poll
        self.recent.append((0, 0))
        self.draining, self.whole = len(draining), len(whole)
        self.draining_peak = max(self.draining_peak, self.draining)
        self.whole_peak = max(self.whole_peak, self.whole)
        newly = len(whole - self.prev_whole) + len(self.prev_draining - draining)
        self.prev_whole, self.prev_draining = set(whole), set(draining)
        if newly:
            self._arrive(now, newly)
        self.avg_badput, self.avg_unclaimed = draining_cost(ads)

    def _arrive(self, now: int, newly: int) -> None:
        if self.last_arrival is not None:
            gap = now - self.last_arrival
            self.arrivals += newly
            self.weighted += newly * gap
            self.weighted_sq += newly * gap * gap
        self.last_arrival = now

    def attempt(self, now: int, slot: str, how: str, accepted: bool) -> None:
        good, bad = self.recent[-1] if self.recent else (0, 0)
        self.recent[-1] = (good + accepted, bad + (not accepted))
        self.successes += accepted
        self.failures += not accepted
        self.drains.appendleft(ClassAd({"when": now, "who": slot, "what": how}))

    def cancelled(self, now: int, machine: str) -> None:
        self.cancels.appendleft(ClassAd({"when": now, "who": machine}))

    def state(self) -> dict[str, object]:
        """The counters that outlive a restart (DEFRAG_STATE_FILE), as JSON values; the
        recent-poll window and the request lists start empty again."""
        return {
            "first_poll": self.first_poll,
            "draining_peak": self.draining_peak,
            "whole_peak": self.whole_peak,
            "successes": self.successes,
            "failures": self.failures,
            "arrivals": self.arrivals,
            "last_arrival": self.last_arrival,
            "weighted": self.weighted,
            "weighted_sq": self.weighted_sq,
            "prev_whole": sorted(self.prev_whole),
            "prev_draining": sorted(self.prev_draining),
        }

    def restore(self, state: dict[str, object]) -> None:
        """Counters saved by ``state``."""
        for name, value in state.items():
            if name in ("prev_whole", "prev_draining"):
                setattr(self, name, set(value))  # type: ignore[arg-type]
            elif hasattr(self, name):
                setattr(self, name, value)

    def ad(self, now: int) -> ClassAd:
        mean_gap = self.weighted / self.arrivals if self.arrivals else 0.0
        spread = self.weighted_sq / self.arrivals - mean_gap**2 if self.arrivals else 0.0
        lifetime = 0 if self.first_poll is None else now - self.first_poll
        return ClassAd(
            {
                "MyType": "Defrag",
                "Name": self.name,
                "MachinesDraining": self.draining,
                "MachinesDrainingPeak": self.draining_peak,
                "WholeMachines": self.whole,
                "WholeMachinesPeak": self.whole_peak,
                "DrainSuccesses": self.successes,
                "DrainFailures": self.failures,
                "RecentDrainSuccesses": sum(good for good, _ in self.recent),
                "RecentDrainFailures": sum(bad for _, bad in self.recent),
                "AvgDrainingBadput": self.avg_badput,
                "AvgDrainingUnclaimed": self.avg_unclaimed,
                "DrainedMachines": self.arrivals,
                "MeanDrainedArrival": self.arrivals / self.weighted if self.weighted else 0.0,
                "MeanDrainedArrivalSD": math.sqrt(max(0.0, spread)),
                "RecentDrainsList": list(self.drains),
                "RecentCancelsList": list(self.cancels),
                "LastUpdate": now,
                "StatsLifetime": lifetime,
                "RecentStatsLifetime": min(lifetime, RECENT_POLLS * self.interval),
            }
        )
