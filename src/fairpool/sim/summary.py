"""The numbers of a run (summary.json): per submitter and per group, and for the pool.

* **Groups** count over their whole subtree (the root ``<none>`` is the whole pool).
* **Waits** are first start minus submission, over the jobs that started; the p95 is the
  nearest-rank 95th percentile. Jobs never started are counted in ``submitted`` only.
* **Core-hours**: delivered core-hours (completed runs, and runs still going at the end for
  what they did); badput (preempted or removed runs) is reported separately.
* **Share against entitlement**: at every sample, a submitter's share is the weight it
  holds over the pool's cores; its entitlement is what the EUPs give it when the pool is
  shared out in inverse proportion to EUP among the submitters with jobs, none getting more
  than it asks for (the weight it holds plus one per idle job; what it cannot use goes to
  the others, as the pie spin does). Both are averaged over the samples. A group's
  entitlement is its quota over the pool's cores.
* **Jain's fairness index** of the submitters' share/entitlement ratios (those entitled to
  something): 1 when every submitter got the same fraction of its entitlement, 1/n at worst.
* **Utilisation**: delivered plus badput core-hours over the core-hours the pool offered.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .recorder import JobRecord, Recorder, Sample

if TYPE_CHECKING:
    from .runner import Simulation

__all__ = ["jain_index", "summarize", "water_fill"]


def summarize(sim: Simulation) -> dict[str, Any]:
    recorder = sim.recorder
    by_submitter: dict[str, list[JobRecord]] = defaultdict(list)
    by_group: dict[str, list[JobRecord]] = defaultdict(list)
    for record in recorder.jobs.values():
        by_submitter[record.submitter].append(record)
        for group in _subtrees(record.group):
            by_group[group].append(record)
    shares, entitled = _shares(recorder)
    view = sim.accountant.view()
    submitters = {}
    for name in sorted(by_submitter):
        priority = view[name]
        entry = _jobs(by_submitter[name])
        entry.update(
            group=sim.submitters.get(name, ""),
            final_rup=priority.rup,
            final_eup=priority.eup,
            factor=priority.factor,
            share=shares.get(name, 0.0),
            entitlement=entitled.get(name, 0.0),
            rejections=dict(sorted(recorder.rejections.get(name, {}).items())),
        )
        submitters[name] = entry
    groups = {name: _jobs(records) for name, records in sorted(by_group.items())}
    for name, entry in _group_shares(recorder).items():
        groups.setdefault(name, _jobs([])).update(entry)
    for name, entry in groups.items():
        if name in sim.accountant.customers:  # group records: RUP of the whole subtree
            entry.update(final_rup=view[name].rup, final_eup=view[name].eup)
    delivered = sum(r.good_seconds for r in recorder.jobs.values()) / 3600
    badput = sum(r.bad_seconds for r in recorder.jobs.values()) / 3600
    capacity = recorder.capacity_seconds / 3600
    ratios = [shares.get(n, 0.0) / e for n, e in sorted(entitled.items()) if e > 0]
    return {
        "scenario": sim.scenario.source,
        "seed": sim.scenario.simulation.seed,
        "duration_hours": sim.scenario.simulation.duration / 3600,
        "pool": {
            "jobs": _jobs(list(recorder.jobs.values())),
            "capacity_core_hours": capacity,
            "utilisation": (delivered + badput) / capacity if capacity else 0.0,
            "preemptions": sum(r.preemptions for r in recorder.jobs.values()),
            "badput_core_hours": badput,
            "jain_fairness_index": jain_index(ratios),
            "cycles": recorder.cycles,
            "cycles_negotiated": recorder.cycles_run,
            "claims_reused": sim.pool.reused,
            "rejections": _reasons(recorder),
            "unmatchable": [u.as_dict() for u in sim.check()],
            "startd": {
                "machines": len(sim.startds.machines),
                "policy_evictions": sim.startds.evictions,
                "suspensions": recorder.suspensions,
                "suspended_core_hours": recorder.suspended_seconds / 3600,
            },
        },
        "submitters": submitters,
        "groups": groups,
        **({"defrag": sim.defrag.summary()} if sim.defrag is not None else {}),
    }


def _subtrees(group: str) -> list[str]:
    """The groups whose subtree holds a job of ``group``: it, its ancestors and the root."""
    if not group or group == "<none>":
        return ["<none>"]
    parts = group.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)] + ["<none>"]


def _jobs(records: list[JobRecord]) -> dict[str, Any]:
    waits = sorted(w for r in records if (w := r.wait()) is not None)
    return {
        "submitted": len(records),
        "started": len(waits),
        "completed": sum(1 for r in records if r.end is not None and not r.removed),
        "core_hours": sum(r.good_seconds for r in records) / 3600,
        "badput_core_hours": sum(r.bad_seconds for r in records) / 3600,
        "preemptions": sum(r.preemptions for r in records),
        "wait_mean": sum(waits) / len(waits) if waits else None,
        "wait_median": _percentile(waits, 50),
        "wait_p95": _percentile(waits, 95),
    }


def _percentile(ordered: list[float], percent: float) -> float | None:
    """Nearest-rank percentile of sorted values."""
    if not ordered:
        return None
    rank = max(1, math.ceil(percent / 100 * len(ordered)))
    return ordered[rank - 1]


def _shares(recorder: Recorder) -> tuple[dict[str, float], dict[str, float]]:
    """Each submitter's mean share of the pool and mean entitlement, over the samples."""
    cores = dict(recorder.pool_samples)
    by_time: dict[float, list[Sample]] = defaultdict(list)
    for sample in recorder.samples:
        by_time[sample.time].append(sample)
    share: dict[str, float] = defaultdict(float)
    entitled: dict[str, float] = defaultdict(float)
    for time, samples in by_time.items():
        pool = cores.get(time, 0.0)
        if pool <= 0:
            continue
        demand = {s.submitter: (s.running + s.idle, s.eup) for s in samples}
        for name, amount in water_fill(pool, demand).items():
            entitled[name] += amount / pool / len(by_time)
        for s in samples:
            share[s.submitter] += s.running / pool / len(by_time)
    return dict(share), dict(entitled)


def water_fill(pool: float, demand: dict[str, tuple[float, float]]) -> dict[str, float]:
    """Share ``pool`` in inverse proportion to EUP, capping each at its demand
    (``demand[name] = (amount wanted, EUP)``) and sharing what is left among the rest."""
    left, out = pool, {name: 0.0 for name in demand}
    active = {n for n, (want, _) in demand.items() if want > 0}
    while active and left > 1e-12:
        weights = {n: 1.0 / demand[n][1] for n in active}
        total = math.fsum(weights.values())  # exact: a set's order changes with the hash seed
        capped = {n for n in active if demand[n][0] - out[n] <= left * weights[n] / total}
        if not capped:
            for n in sorted(active):
                out[n] += left * weights[n] / total
            break
        for n in sorted(capped):
            left -= demand[n][0] - out[n]
            out[n] = demand[n][0]
        active -= capped
    return out


def _group_shares(recorder: Recorder) -> dict[str, dict[str, float]]:
    cores = dict(recorder.pool_samples)
    times = {g.time for g in recorder.group_samples}
    out: dict[str, dict[str, float]] = defaultdict(lambda: {"share": 0.0, "entitlement": 0.0})
    for sample in recorder.group_samples:
        pool = cores.get(sample.time, 0.0)
        if pool > 0:
            out[sample.group]["share"] += sample.usage / pool / len(times)
            out[sample.group]["entitlement"] += sample.quota / pool / len(times)
    return dict(out)


def jain_index(values: Iterable[float]) -> float | None:
    """(Σx)² / (n·Σx²); None for no values."""
    xs = list(values)
    squares = sum(x * x for x in xs)
    if not xs or squares == 0:
        return None
    return sum(xs) ** 2 / (len(xs) * squares)


def _reasons(recorder: Recorder) -> dict[str, int]:
    """Rejections of every submitter, by reason."""
    total: dict[str, int] = defaultdict(int)
    for reasons in recorder.rejections.values():
        for reason, count in reasons.items():
            total[reason] += count
    return dict(sorted(total.items()))
