"""``fairpool simulate --sweep SWEEP.toml --out DIR``: every point of a configuration grid
simulated (sim/sweep.py), on a local process pool (``--workers``, default one per core)
or, with ``--scheduler ADDRESS``, on a Dask cluster (dask.distributed, the ``sweep``
extra). Writes DIR/sweep.csv (one row per point: its knobs and figures), DIR/sweep.json,
each point's summary.json under DIR/points/<n>/, and one plot per figure."""

from __future__ import annotations

import csv
import json
import os
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import click

from ..sim.outputs import write_summary
from ..sim.plots import sweep_plot
from ..sim.sweep import Sweep, figure_of, run_point, run_sweep, table
from .errors import fail
from .outputs import result_directory

__all__ = ["sweep_command"]


def sweep_command(
    sweep: Sweep, out: Path, no_plots: bool, scheduler: str | None, workers: int | None
) -> None:
    if scheduler is None:
        summaries = _local(sweep, workers or os.cpu_count() or 1)
    else:
        summaries = _dask(sweep, scheduler)
    rows = table(sweep, summaries)
    with result_directory(out) as work:
        with (work / "sweep.csv").open("w", newline="", encoding="utf-8") as handle:
            csv.writer(handle, lineterminator="\n").writerows(rows)
        points = []
        for point, summary in zip(sweep.points(), summaries, strict=True):
            folder = work / "points" / str(point.number)
            folder.mkdir(parents=True)
            write_summary(folder / "summary.json", summary)
            figures = {f: figure_of(summary, f) for f in sweep.figures}
            points.append({"point": point.number, "knobs": dict(point.knobs), "figures": figures})
        document = {"sweep": sweep.source, "scenario": str(sweep.scenario), "points": points}
        (work / "sweep.json").write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
        if not no_plots:
            for number, figure in enumerate(sweep.figures, 1):
                sweep_plot(work / f"sweep_{number}.png", sweep, rows, figure)
    for row in rows:
        click.echo("  ".join(_cell(value) for value in row))
    click.echo(f"{sweep.source}: {len(summaries)} points -> {out}")


def _local(sweep: Sweep, workers: int) -> list[dict[str, Any]]:
    with ProcessPoolExecutor(max_workers=workers) as pool:

        def gather(futures: list[Future]) -> list[dict[str, Any]]:
            return [future.result() for future in futures]

        return run_sweep(sweep, lambda s, c: pool.submit(run_point, s, c), gather)


def _dask(sweep: Sweep, address: str) -> list[dict[str, Any]]:
    try:
        from distributed import Client
    except ImportError:
        fail("--scheduler needs dask.distributed: pip install 'fairpool[sweep]'")
    try:
        client = Client(address, timeout="20s")
    except (OSError, TimeoutError) as err:
        fail(f"--scheduler {address}: cannot reach the Dask scheduler ({err})")
    with client:

        def submit(scenario: str, config: str) -> Any:
            return client.submit(run_point, scenario, config, pure=False)

        return run_sweep(sweep, submit, client.gather)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)
