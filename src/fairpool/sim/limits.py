"""How big a simulation may be, checked before it runs.

A scenario that asks for a billion jobs, a billion machines, a hundred million weeks or a
negotiator cycle every microsecond would run until killed (or until memory runs out). So
``load_scenario`` measures what a scenario asks for against ``Limits`` and refuses one
that is larger with an error naming the key and the option that raises the limit
(``fairpool simulate --max-jobs N``, ``--max-machines N``, ``--max-cycles N``). The
defaults are far above the pools and workloads fairpool is used for (the LCG trace's
year of 188,041 jobs on 5,000 machines runs within them) and far below what a run could
never finish (docs/limits.md).

Jobs count every job the scenario would submit: ``count`` submissions times the jobs each
queues, a ``rate`` source's expected number up to the end, and the trace jobs submitted
before the end. Cycles count negotiation cycles (``duration / negotiator_interval``) and
the repetitions of owner activity (``duration / activity_repeat``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ScenarioError

if TYPE_CHECKING:
    from .scenario import Scenario

__all__ = ["DEFAULT_LIMITS", "Limits", "check_limits"]


@dataclass(frozen=True)
class Limits:
    """The largest simulation ``load_scenario`` accepts."""

    jobs: int = 1_000_000
    machines: int = 100_000
    cycles: int = 1_000_000


DEFAULT_LIMITS = Limits()


def check_limits(scenario: Scenario, limits: Limits) -> None:
    """Raise ``ScenarioError`` if ``scenario`` asks for more than ``limits`` allow."""
    sim, source = scenario.simulation, scenario.source
    _check(
        sim.duration / sim.negotiator_interval,
        limits.cycles,
        "cycles",
        source,
        "[simulation], duration",
        f"duration {sim.duration:g} s / negotiator_interval {sim.negotiator_interval:g} s",
    )
    for spec in scenario.machines:
        activity = spec.activity
        if activity is not None and activity.repeat:
            _check(
                sim.duration / activity.repeat,
                limits.cycles,
                "cycles",
                source,
                f"{spec.label}, activity_repeat",
                "repetitions of the owner activity",
            )
    machines = sum(spec.count for spec in scenario.machines) + sum(
        event.machines.count for event in scenario.events if event.machines is not None
    )
    _check(machines, limits.machines, "machines", source, "[[machines]]", "machines in all")
    _check(_jobs(scenario), limits.jobs, "jobs", source, "[[jobs]]", "jobs submitted in all")


def _jobs(scenario: Scenario) -> float:
    duration = scenario.simulation.duration
    total = 0.0
    for spec in scenario.jobs:
        per_submission = len(spec.description.job_ads(owner=spec.owner, uid_domain="check"))
        if spec.count is not None:
            submissions = float(spec.count)
        elif spec.rate is not None:
            submissions = spec.rate * max(0.0, duration - spec.at)
        else:
            submissions = float(spec.keep_idle or 0)  # topped up as jobs finish
        total += per_submission * submissions
    total += sum(len(queue.ads) for queue in scenario.queues)
    for trace in scenario.traces:
        total += sum(1 for job in trace.jobs or () if trace.at + job.submit <= duration)
    return total


def _check(amount: float, limit: int, what: str, source: str, key: str, detail: str) -> None:
    if amount > limit:
        raise ScenarioError(
            f"{detail}: {amount:.3g} {what}, more than the limit of {limit:,} "
            f"(fairpool simulate --max-{what} N raises it)",
            source,
            key=key,
        )
