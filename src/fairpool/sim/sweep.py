"""Configuration sweeps (``fairpool simulate --sweep SWEEP.toml``): one workload, a grid of
configuration values, every point simulated, and a table of chosen figures across it.

A sweep file names the scenario, the figures to tabulate (paths into summary.json, keys
joined by ``/`` since submitter and group names hold dots) and the grid (knob -> values)::

    scenario = "halflife_day.toml"
    figures = ["pool/utilisation", "submitters/late@localdomain/wait_mean"]

    [grid]
    PRIORITY_HALFLIFE = [3600, 21600, 86400]
    DEFAULT_PRIO_FACTOR = [1, 10]

Each point is the scenario with the point's knobs read after its ``[config]`` (so they
win), points in grid order (the first knob changing slowest). A point runs wherever the
caller's ``run`` sends it (a local process pool, or a Dask cluster: cli/sweep.py) as
``run_point(scenario path, knob text)``, which loads the scenario where it runs (so the
scenario and the files it names must be readable at the same path there) and returns
summary.json's content. A run is deterministic, so every point gives the same figures
whichever process or machine runs it.
"""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import FairpoolError, ScenarioError
from ..textfiles import read_text
from .limits import DEFAULT_LIMITS, Limits
from .runner import simulate
from .scenario import load_scenario
from .summary import summarize

__all__ = ["Point", "Sweep", "figure_of", "load_sweep", "run_point", "run_sweep", "table"]

_KEYS = ("scenario", "figures", "grid")


@dataclass(frozen=True)
class Point:
    """One grid point: its knobs, as (name, value) in grid order."""

    number: int
    knobs: tuple[tuple[str, Any], ...]

    def config(self) -> str:
        """The point's knobs as configuration lines."""
        return "".join(f"{name} = {_text(value)}\n" for name, value in self.knobs)

    def label(self) -> str:
        return ", ".join(f"{name} = {_text(value)}" for name, value in self.knobs)


@dataclass(frozen=True)
class Sweep:
    """A sweep file, read and checked (its scenario loaded once with every point)."""

    source: str
    scenario: Path
    figures: tuple[str, ...]
    grid: tuple[tuple[str, tuple[Any, ...]], ...]

    def points(self) -> list[Point]:
        names = [name for name, _ in self.grid]
        values = itertools.product(*(v for _, v in self.grid))
        return [Point(n, tuple(zip(names, v, strict=True))) for n, v in enumerate(values, 1)]


def load_sweep(path: str | Path, limits: Limits = DEFAULT_LIMITS) -> Sweep:
    """The sweep in ``path``; each point's scenario is loaded once here, so that a bad
    scenario, knob or value is one error before any point runs."""
    path = Path(path)
    source = str(path)
    try:
        data = tomllib.loads(read_text(path, ScenarioError, "the sweep"))
    except tomllib.TOMLDecodeError as err:
        raise ScenarioError(f"not TOML: {err}", source) from None
    unknown = sorted(set(data) - set(_KEYS))
    if unknown:
        raise ScenarioError(f"unknown key {unknown[0]!r}; expected {', '.join(_KEYS)}", source)
    scenario = data.get("scenario")
    if not isinstance(scenario, str) or not (path.parent / scenario).is_file():
        raise ScenarioError(f"scenario: expected a scenario file, not {scenario!r}", source)
    figures = data.get("figures")
    if not isinstance(figures, list) or not figures or not all(isinstance(f, str) for f in figures):
        raise ScenarioError('figures: expected a list such as ["pool/utilisation"]', source)
    grid = data.get("grid")
    if not isinstance(grid, dict) or not grid:
        raise ScenarioError("grid: expected a table of knob = [values]", source)
    for name, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ScenarioError(f"grid, {name}: expected a list of values", source)
        if not all(isinstance(v, str | int | float | bool) for v in values):
            raise ScenarioError(f"grid, {name}: expected numbers, strings or booleans", source)
    sweep = Sweep(
        source,
        (path.parent / scenario).resolve(),
        tuple(figures),
        tuple((name, tuple(values)) for name, values in grid.items()),
    )
    for point in sweep.points():
        try:
            load_scenario(sweep.scenario, limits, point.config())
        except FairpoolError as err:  # the scenario's own errors, and a knob's value
            raise ScenarioError(f"grid point {point.label()}: {err}", source) from None
    return sweep


def run_point(scenario: str, config: str) -> dict[str, Any]:
    """One point, run where it is sent: summary.json's content."""
    return summarize(simulate(load_scenario(scenario, more_config=config)))


def figure_of(summary: dict[str, Any], path: str) -> Any:
    """The figure at ``path`` (keys joined by ``/``) in a summary; None where absent."""
    value: Any = summary
    for key in path.split("/"):
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def run_sweep(
    sweep: Sweep, submit: Callable[[str, str], Any], gather: Callable[[list[Any]], list[dict]]
) -> list[dict[str, Any]]:
    """Every point's summary, in grid order: ``submit(scenario, config)`` sends a point to
    be run and ``gather`` waits for all of them."""
    futures = [submit(str(sweep.scenario), point.config()) for point in sweep.points()]
    return gather(futures)


def table(sweep: Sweep, summaries: Sequence[dict[str, Any]]) -> list[list[Any]]:
    """Rows of sweep.csv: the point, its knobs' values, its figures."""
    header = ["point", *(name for name, _ in sweep.grid), *sweep.figures]
    rows: list[list[Any]] = [header]
    for point, summary in zip(sweep.points(), summaries, strict=True):
        figures = [figure_of(summary, f) for f in sweep.figures]
        rows.append([point.number, *(v for _, v in point.knobs), *figures])
    return rows


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "True" if value else "False"
    return str(value)
