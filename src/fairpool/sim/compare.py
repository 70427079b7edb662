"""Two runs side by side (``fairpool simulate --compare A.toml B.toml``): what changes
for each submitter, each group and the pool when the scenario (usually the configuration
over the same workload) changes.

compare.json holds, for every number of the two summaries that both have, A's value, B's
value and B minus A. The plots draw A solid and B dashed, one colour per submitter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .plots import Marks, line_plot, scenario_marks, series, top_submitters
from .runner import Simulation

__all__ = ["difference", "plot_comparison"]


def difference(a: Any, b: Any) -> Any:
    """``{"a": .., "b": .., "change": b - a}`` for numbers, recursively for tables; keys
    only one side has are listed with the other side as None."""
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: difference(a.get(k), b.get(k)) for k in sorted(set(a) | set(b))}
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b))
    if numbers:
        return {"a": a, "b": b, "change": b - a}
    return {"a": a, "b": b}


def plot_comparison(out: Path, a: Simulation, b: Simulation, labels: tuple[str, str]) -> list[Path]:
    """RUP and running slots per submitter, A solid and B dashed."""
    names = sorted(set(top_submitters(a.recorder)) | set(top_submitters(b.recorder)))
    both = [scenario_marks(sim.scenario) for sim in (a, b)]
    marks = Marks(
        tuple(sorted(set(both[0].events) | set(both[1].events))),
        tuple(sorted(set(both[0].spans) | set(both[1].spans))),
    )
    written = []
    for field, ylabel in (
        ("running", "Running (slot weight)"),
        ("rup", "Real user priority (RUP)"),
    ):
        merged, styles = {}, {}
        for label, sim, dash in zip(labels, (a, b), ("-", "--"), strict=True):
            for name, points in series(sim.recorder, field).items():
                if name in names:
                    merged[f"{name} ({label})"] = points
                    styles[f"{name} ({label})"] = f"C{names.index(name) % 10}{dash}"
        title = f"{labels[0]} (solid) vs {labels[1]} (dashed)"
        path = out / f"compare_{field}.png"
        written.append(line_plot(path, merged, ylabel, title, styles, marks))
    return written
