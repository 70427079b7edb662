"""Samples of the pool taken right after the negotiation cycle at (or just after) each
``sample_interval``: per submitter, what it holds (slot weight), its idle jobs, RUP, EUP
and factor as the accountant has them after that cycle; per group, for its whole subtree,
its quota (from the last negotiated cycle) and the weight its submitters hold (the root
``<none>`` holds the pool); and the pool's cores."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .recorder import GroupSample, Sample

if TYPE_CHECKING:
    from .runner import Simulation

__all__ = ["take_sample"]


def take_sample(sim: Simulation, now: float) -> None:
    recorder = sim.recorder
    offset = now - recorder.start
    usage = sim.usage(now)
    view = sim.accountant.view()
    for name in sorted(sim.submitters):
        priority = view[name]
        held = usage.get(name)
        recorder.samples.append(
            Sample(
                time=offset,
                submitter=name,
                group=sim.submitters[name],
                running=held.weight if held else 0.0,
                idle=sim.idle_by_submitter[name],
                rup=priority.rup,
                eup=priority.eup,
                factor=priority.factor,
            )
        )
    by_group: dict[str, float] = {}
    for name, held in usage.items():
        group = sim.accountant.assign_group(name)
        if group is not None:
            by_group[group] = by_group.get(group, 0.0) + held.weight
    for group in sorted(sim.quotas):
        held = sum((w for g, w in by_group.items() if _within(g, group)), 0.0)
        recorder.group_samples.append(GroupSample(offset, group, sim.quotas[group], held))
    recorder.pool_samples.append((offset, sim.cores()))
    recorder.sample_rejections(now)


def _within(group: str, ancestor: str) -> bool:
    return ancestor == "<none>" or group == ancestor or group.startswith(f"{ancestor}.")
