"""Pictures of a run (PNG, matplotlib's Agg backend, no display needed):

* ``rup.png``: RUP over time per submitter (the seed's "User Priority" graphs);
* ``running.png``: slot weight held per submitter over time (the seed's "Fair Share");
* ``groups.png``: each group's usage against its quota (when there are groups);
* ``waits.png``: the distribution of waits (cumulative, per submitter).

With many submitters (a trace has hundreds) the ``TOP`` with the most core-hours are drawn
and the rest are summed as "others" where a sum means something (running slots).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .recorder import Recorder

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .events import EventSpec
    from .scenario import Scenario
    from .sweep import Sweep

__all__ = ["TOP", "Marks", "plot_all", "scenario_marks", "series", "sweep_plot"]

TOP = 8
Series = dict[str, tuple[list[float], list[float]]]


def series(recorder: Recorder, field: str, names: list[str] | None = None) -> Series:
    """``{submitter: (hours, values)}`` of one sampled field; other submitters summed into
    "others" when ``names`` is given."""
    out: dict[str, tuple[list[float], list[float]]] = {}
    others: dict[float, float] = defaultdict(float)
    for s in recorder.samples:
        value = getattr(s, field)
        if names is not None and s.submitter not in names:
            others[s.time / 3600] += value
            continue
        hours, values = out.setdefault(s.submitter, ([], []))
        hours.append(s.time / 3600)
        values.append(value)
    if others:
        out["others"] = (list(others), list(others.values()))
    return out


def top_submitters(recorder: Recorder, count: int = TOP) -> list[str]:
    used: dict[str, float] = defaultdict(float)
    for record in recorder.jobs.values():
        used[record.submitter] += record.good_seconds
    return sorted(used, key=lambda n: (-used[n], n))[:count]


@dataclass(frozen=True)
class Marks:
    """What happened in the scenario, drawn on every time plot: its ``[[events]]`` (hours,
    text) as labelled vertical lines, and the spans (hours) when machine owners are at
    the keyboard (``activity``, such as office hours) shaded."""

    events: tuple[tuple[float, str], ...] = ()
    spans: tuple[tuple[float, float], ...] = ()


def scenario_marks(scenario: Scenario) -> Marks:
    """The marks of a scenario: its events, and its machines' owner activity."""
    events = tuple((e.at / 3600, _event_text(e)) for e in sorted(scenario.events, key=_at))
    duration = scenario.simulation.duration
    spans: set[tuple[float, float]] = set()
    for spec in scenario.machines:
        activity = spec.activity
        if activity is None:
            continue
        shifts = range(0, int(duration) + 1, activity.repeat) if activity.repeat else [0]
        for shift in shifts:
            for begin, finish in activity.inputs.uses:
                if begin + shift < duration:
                    spans.add(((begin + shift) / 3600, min(finish + shift, duration) / 3600))
    return Marks(events, tuple(sorted(spans)))


def _at(event: EventSpec) -> float:
    return event.at


def _event_text(event: EventSpec) -> str:
    if event.name is not None and event.action != "remove_jobs":
        return f"{event.action} {event.name} = {event.value:g}"
    if event.name is not None:
        return f"{event.action} {event.name}"
    if event.count is not None:
        return f"{event.action} ({event.count})"
    return event.action


def plot_all(out: Path, recorder: Recorder, title: str = "", marks: Marks = Marks()) -> list[Path]:
    """Write the run's plots into ``out``; returns the files written."""
    top = top_submitters(recorder)
    written = [
        line_plot(
            out / "rup.png",
            {n: v for n, v in series(recorder, "rup").items() if n in top},
            "Real user priority (RUP)",
            title,
            marks=marks,
        ),
        line_plot(
            out / "running.png",
            series(recorder, "running", top),
            "Running (slot weight)",
            title,
            marks=marks,
        ),
        wait_plot(out / "waits.png", recorder, top, title),
    ]
    if recorder.group_samples:
        written.append(group_plot(out / "groups.png", recorder, title, marks))
    return written


def line_plot(
    path: Path,
    data: Series,
    ylabel: str,
    title: str,
    styles: dict[str, str] | None = None,
    marks: Marks = Marks(),
) -> Path:
    """One line per series; ``styles`` may give a series a format such as ``"C1--"``."""
    fig, ax = _figure()
    for number, (name, (hours, values)) in enumerate(sorted(data.items())):
        style = (styles or {}).get(name, f"C{number % 10}-")
        ax.plot(hours, values, style, label=name, linewidth=1.5)
    _mark(ax, marks)
    _finish(fig, ax, ylabel, title, bool(data))
    if not data:
        _empty(ax, "no samples")
    fig.savefig(path, dpi=100)
    return path


def group_plot(path: Path, recorder: Recorder, title: str, marks: Marks = Marks()) -> Path:
    """Each group's usage (a wide, light line) against its quota (a dotted step line in
    the same colour drawn over it, as quotas change in steps at negotiation cycles)."""
    usage: dict[str, tuple[list[float], list[float], list[float]]] = {}
    for g in recorder.group_samples:
        hours, used, quota = usage.setdefault(g.group, ([], [], []))
        hours.append(g.time / 3600)
        used.append(g.usage)
        quota.append(g.quota)
    busiest = sorted(usage, key=lambda n: (-sum(usage[n][1]), n))[:TOP]
    fig, ax = _figure()
    for number, name in enumerate(sorted(busiest)):
        hours, used, quota = usage[name]
        color = f"C{number % 10}"
        ax.plot(hours, used, "-", color=color, linewidth=4.0, alpha=0.45, label=f"{name} usage")
        ax.plot(  # on top: a usage that meets its quota does not hide it
            hours,
            quota,
            linestyle=(0, (1.5, 1.5)),
            color=color,
            linewidth=1.6,
            drawstyle="steps-post",
            zorder=3,
            label=f"{name} quota",
        )
    _mark(ax, marks)
    _finish(fig, ax, "Slot weight", title or "Group usage against quota", bool(busiest))
    fig.savefig(path, dpi=100)
    return path


def wait_plot(path: Path, recorder: Recorder, names: list[str], title: str) -> Path:
    waits: dict[str, list[float]] = defaultdict(list)
    for record in recorder.jobs.values():
        wait = record.wait()
        if wait is not None:
            waits[record.submitter if record.submitter in names else "others"].append(wait / 3600)
    fig, ax = _figure()
    for name in sorted(waits):
        values = sorted(waits[name])
        fractions = [(i + 1) / len(values) for i in range(len(values))]
        ax.step(values, fractions, where="post", label=name)
    _finish(fig, ax, "Fraction of started jobs", title or "Wait before first start", bool(waits))
    ax.set_xlabel("Wait (hours)")
    if not waits:
        _empty(ax, "no job started: no waits to show")
    fig.savefig(path, dpi=100)
    return path


def sweep_plot(path: Path, sweep: Sweep, rows: list[list[Any]], figure: str) -> Path:
    """One figure of a sweep (sim/sweep.py) against the grid's first knob, one line per
    combination of the other knobs' values."""
    header, body = rows[0], rows[1:]
    knobs = [name for name, _ in sweep.grid]
    column = header.index(figure)
    xs = [row[1] for row in body]
    numeric = all(type(x) in (int, float) for x in xs)
    places = {x: n for n, x in enumerate(dict.fromkeys(xs))}
    lines: dict[str, tuple[list[float], list[float]]] = {}
    for row in body:
        value = row[column]
        if type(value) not in (int, float):
            continue
        others = zip(knobs[1:], row[2 : len(knobs) + 1], strict=True)
        name = ", ".join(f"{k} = {v}" for k, v in others) or figure
        x = row[1] if numeric else places[row[1]]
        lines.setdefault(name, ([], []))[0].append(x)
        lines[name][1].append(value)
    fig, ax = _figure()
    for number, (name, (x, y)) in enumerate(lines.items()):
        ax.plot(x, y, "o-", color=f"C{number % 10}", label=name)
    if not numeric:
        ax.set_xticks(list(places.values()), [str(x) for x in places])
    _finish(fig, ax, figure, Path(sweep.source).name, len(lines) > 1)
    ax.set_xlabel(knobs[0])
    if not lines:
        _empty(ax, f"no numeric values of {figure}")
    fig.savefig(path, dpi=100)
    return path


def _empty(ax, text: str) -> None:
    """Say so on a plot that has nothing to show."""
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", color="0.4")


def _figure():
    """A figure and its axes, drawn by Agg (no display). matplotlib is imported here, when
    a plot is first drawn: a run with --no-plots never loads it (about 2 s)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 4.5))
    return fig, fig.add_subplot()


def _finish(fig: Figure, ax, ylabel: str, title: str, legend: bool) -> None:
    ax.set_xlabel("Time (hours)")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if legend:  # beside the axes, never over the data
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()


def _mark(ax, marks: Marks) -> None:
    """The scenario's events (labelled vertical lines) and owner activity (shaded)."""
    for number, (begin, end) in enumerate(marks.spans):
        label = "owner at the keyboard" if number == 0 else None
        ax.axvspan(begin, end, color="0.85", alpha=0.5, linewidth=0, label=label, zorder=0)
    for hours, text in marks.events:
        ax.axvline(hours, color="0.3", linestyle="-.", linewidth=1.0, zorder=1)
        ax.annotate(
            text,
            (hours, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(3, -3),
            textcoords="offset points",
            rotation=90,
            va="top",
            fontsize="x-small",
            color="0.3",
        )
