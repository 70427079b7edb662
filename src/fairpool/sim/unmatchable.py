"""Jobs of a scenario that no machine of it can ever run, found before the run starts.

A scenario whose jobs ask for what no machine has (more memory than any slot, an OpSys no
machine publishes, a START no job satisfies) would otherwise simulate for hours with
those jobs idle. Each ``[[jobs]]`` table's first submission is grouped into autoclusters
(jobs the slots' expressions cannot tell apart match alike), and one job of each is
matched both ways against the slots of every machine the scenario ever has (its
``[[machines]]`` tables and ``add_machines`` events; a partitionable slot as advertised,
whole). One machine per table is tried first; only a job no such machine takes is tried
against every slot, so the check costs a few matches per autocluster in the usual case.

For a job that matches no slot, the reason is the first clause of its Requirements no
slot satisfies (negotiator/conditions.py, the rows of ``condor_q -better-analyze``), or,
when each clause holds somewhere, that no slot satisfies them together, or that the
slots' own Requirements (START) turn it down.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..classad import ClassAd
from ..classad.match import requirements_met, symmetric_match
from ..classad.scope import NOT_CONST
from ..negotiator.autocluster import Signatures
from ..negotiator.conditions import steps
from ..negotiator.cycle import significant_of
from .machines import MachineSpec, machine_slots

if TYPE_CHECKING:
    from .runner import Simulation

__all__ = ["Unmatchable", "unmatchable"]


@dataclass(frozen=True)
class Unmatchable:
    """Jobs of one ``[[jobs]]`` table (one autocluster of its submission) that no slot
    of the scenario can run, and why."""

    source: str  # the table's label, e.g. "[[jobs]] 2"
    owner: str
    jobs: int  # jobs of one submission in this autocluster
    example: ClassAd = field(repr=False)
    reason: str

    def describe(self) -> str:
        jobs = f"{self.jobs} job(s) per submission"
        return f"{self.source} (owner {self.owner}): {jobs} {self.reason}"

    def as_dict(self) -> dict[str, object]:
        fields = ("source", "owner", "jobs", "reason")
        return {name: getattr(self, name) for name in fields}


def unmatchable(sim: Simulation) -> list[Unmatchable]:
    """Every autocluster of the scenario's ``[[jobs]]`` tables that no machine can run."""
    scenario = sim.scenario
    specs = list(scenario.machines)
    specs += [e.machines for e in scenario.events if e.machines is not None]
    if not specs or not (scenario.jobs or scenario.queues):
        return []
    now = scenario.simulation.start
    firsts = [slot for spec in specs for slot in _first_machine(spec)]
    params = sim.settings.params
    signatures = Signatures(significant_of(firsts, params, now))
    every: list[ClassAd] | None = None
    found = []
    sources = [(s.label, sim.factory.first_submission(s)) for s in scenario.jobs]
    sources += [(queue.label, list(queue.ads)) for queue in scenario.queues]
    for label, jobs in sources:
        for job, count in _autoclusters(jobs, signatures):
            if any(symmetric_match(job, slot, now=now) for slot in firsts):
                continue
            if every is None:
                every = [slot for spec in specs for slot in machine_slots(spec, 1)]
            if any(symmetric_match(job, slot, now=now) for slot in every):
                continue
            owner = job.eval("Owner") if "Owner" in job else None
            owner = owner if isinstance(owner, str) else "?"
            found.append(Unmatchable(label, owner, count, job, _reason(job, every, now)))
    return found


def _first_machine(spec: MachineSpec) -> list[ClassAd]:
    return machine_slots(dataclasses.replace(spec, count=1), 1)


def _autoclusters(jobs: Iterable[ClassAd], signatures: Signatures) -> list[tuple[ClassAd, int]]:
    """One job of each autocluster, with the number of jobs in it, in queue order.

    A submission's jobs share their expression objects and usually differ in ProcId
    alone, so they are first told apart by their expressions' identities and every
    literal but ProcId (cheap), and a signature is computed once per such kind; ProcId
    counts only where the job's expressions or the slots' read it."""
    kinds: dict[tuple, list[ClassAd]] = {}
    for job in jobs:
        key = tuple(
            (name, id(expr) if expr.const is NOT_CONST else (type(expr.const), expr.const))
            for name, expr in job._exprs.items()
            if name != "procid"
        )
        kinds.setdefault(key, []).append(job)
    first: dict[int, ClassAd] = {}
    counts: dict[int, int] = {}
    significant = {name.lower() for name in signatures.significant}
    for members in kinds.values():
        reach = {name.lower() for name in signatures.collector.reach(members[0])}
        alike = "procid" not in reach | significant
        for job in members[:1] if alike else members:
            cluster = signatures.autocluster(job)
            first.setdefault(cluster, job)
            counts[cluster] = counts.get(cluster, 0) + (len(members) if alike else 1)
    return [(job, counts[cluster]) for cluster, job in first.items()]


def _reason(job: ClassAd, slots: Sequence[ClassAd], now: float) -> str:
    if "Requirements" not in job:
        return "match no machine: they have no Requirements (such a job matches nothing)"
    rows = steps(job, slots, now)
    alone = [row for row in rows if row.number == 0 or row.number % 2 == 1]
    failing = next((row for row in alone if row.matched == 0), None)
    if failing is not None:
        return f"match no machine: no slot satisfies {failing.condition}"
    if not any(requirements_met(job, slot, now=now) for slot in slots):
        return "match no machine: each clause of their Requirements holds somewhere, never all"
    return "match no machine: the slots' own Requirements (START) reject them"
