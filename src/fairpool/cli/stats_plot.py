"""``fairpool stats --plot``: the answer of a pool history query as a chart (PNG)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from ..classad.timefmt import civil_from_secs

__all__ = ["draw"]


def draw(path: Path, title: str, headings: list[str], rows: list[tuple[float, list]]) -> None:
    """One line per figure over time; a slot's states as a step line over their names."""
    times = [t for t, _ in rows]
    start = times[0] if times else 0.0
    hours = [(t - start) / 3600 for t in times]
    figure, axes = plt.subplots(figsize=(8, 4))
    if rows and isinstance(rows[0][1][0], str):  # a slot: its State at each sample
        states = sorted({values[0] for _, values in rows})
        axes.step(hours, [states.index(values[0]) for _, values in rows], where="post")
        axes.set_yticks(range(len(states)), states)
    else:
        for column, heading in enumerate(headings):
            axes.plot(hours, [values[column] for _, values in rows], label=heading)
        axes.legend(loc="upper left", fontsize="small")
        axes.set_ylabel("count")
    year, month, day, hour, minute, *_ = civil_from_secs(int(start))
    axes.set_xlabel(f"hours since {year}-{month:02d}-{day:02d} {hour:02d}:{minute:02d} UTC")
    axes.set_title(title)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
