"""``fairpool simulate``: what a configuration change will do to the users, answered by
running the negotiator, accountant and group quotas on a simulated clock.

``fairpool simulate SCENARIO --out DIR`` writes summary.json, timeseries.csv, jobs.csv
and the plots. ``fairpool simulate --compare A.toml B.toml --out DIR`` runs both, writes
each into DIR/A and DIR/B, and the differences into DIR/compare.json with side-by-side
plots. ``fairpool simulate SCENARIO --from-pool --out DIR`` first takes a snapshot of the
live pool (``--pool URL``, else the configured or personal pool) and starts from it: its
slots, queue, accountant and configuration, the scenario's ``[config]`` read after the
pool's (sim/snapshot.py); the snapshot is kept in DIR/snapshot, so that ``[snapshot]
directory = "DIR/snapshot"`` runs from it again. A scenario is read and checked whole before
anything runs (and so is ``--out``): a bad one is one error line naming the file and key,
and a non-zero exit. Results are written into a hidden directory beside DIR and renamed to
DIR when complete, so DIR is always a whole result (the new one, or the earlier one a killed
run leaves in place), never a mix.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import click
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from ..errors import ClassAdSyntaxError, InputError
from ..runtime.collection import leave_heap_at_exit
from ..sim.compare import difference, plot_comparison
from ..sim.limits import DEFAULT_LIMITS, Limits
from ..sim.outputs import write_outputs
from ..sim.plots import plot_all, scenario_marks
from ..sim.runner import Simulation
from ..sim.scenario import Scenario, load_scenario
from ..sim.summary import summarize
from ..sim.sweep import load_sweep
from .errors import fail
from .outputs import result_directory, writable_directory
from .sweep import sweep_command

__all__ = ["simulate"]


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("scenarios", nargs=-1, required=True, metavar="SCENARIO.toml...")
@click.option("--out", "out", required=True, metavar="DIR", help="Directory for the results.")
@click.option(
    "--compare", is_flag=True, help="Run two scenarios and write their differences side by side."
)
@click.option(
    "--sweep",
    is_flag=True,
    help="Run every point of the configuration grid SWEEP.toml gives (docs/simulate.md).",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="With --sweep: run the points on this Dask scheduler (tcp://host:8786).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    help="With --sweep: local processes running points (default: one per core).",
)
@click.option(
    "--from-pool",
    is_flag=True,
    help="Start from a snapshot of the live pool: its slots, queue, accountant and config.",
)
@click.option("--pool", metavar="URL", help="With --from-pool: the pool's collector.")
@click.option("--no-plots", is_flag=True, help="Write the numbers only (no PNG files).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option(
    "--max-jobs",
    type=click.IntRange(min=1),
    default=DEFAULT_LIMITS.jobs,
    show_default=True,
    help="Refuse a scenario that submits more jobs.",
)
@click.option(
    "--max-machines",
    type=click.IntRange(min=1),
    default=DEFAULT_LIMITS.machines,
    show_default=True,
    help="Refuse a scenario with more machines.",
)
@click.option(
    "--max-cycles",
    type=click.IntRange(min=1),
    default=DEFAULT_LIMITS.cycles,
    show_default=True,
    help="Refuse a scenario with more negotiation cycles (duration / negotiator_interval).",
)
def simulate(
    scenarios: tuple[str, ...],
    out: str,
    compare: bool,
    sweep: bool,
    scheduler: str | None,
    workers: int | None,
    from_pool: bool,
    pool: str | None,
    no_plots: bool,
    quiet: bool,
    max_jobs: int,
    max_machines: int,
    max_cycles: int,
) -> None:
    """Simulate a pool over a workload and report what each user and group gets."""
    leave_heap_at_exit()  # a run's objects are many: the process's exit need not free them
    limits = Limits(jobs=max_jobs, machines=max_machines, cycles=max_cycles)
    if sweep or scheduler or workers:
        if not sweep or compare or len(scenarios) != 1:
            fail("give one SWEEP.toml with --sweep (--scheduler and --workers go with it)")
        writable_directory(out, "--out")
        try:
            grid = load_sweep(scenarios[0], limits)
        except (InputError, ClassAdSyntaxError) as err:
            fail(str(err).splitlines()[0])
        sweep_command(grid, Path(out), no_plots, scheduler, workers)
        return
    if compare != (len(scenarios) == 2) or len(scenarios) > 2:
        fail("give one SCENARIO, or --compare with two")
    if pool and not from_pool:
        fail("--pool goes with --from-pool")
    if from_pool and compare:
        fail("--from-pool runs one scenario (compare runs of a saved snapshot instead)")
    writable_directory(out, "--out")
    snapshot = None
    try:
        snapshot = _snapshot(pool, Path(out)) if from_pool else None
        loaded = [load_scenario(path, limits, snapshot=snapshot) for path in scenarios]
        runs = [_run(scenario, quiet) for scenario in loaded]
        target = Path(out)
        if not compare:
            with result_directory(target) as work:
                summary = _write(work, runs[0], no_plots)
                if snapshot is not None:
                    shutil.move(snapshot, work / "snapshot")
            _report(runs[0], summary, target)
            return
    except (InputError, ClassAdSyntaxError) as err:
        fail(str(err).splitlines()[0])
    finally:
        if snapshot is not None:
            shutil.rmtree(snapshot, ignore_errors=True)
    labels = (Path(scenarios[0]).stem, Path(scenarios[1]).stem)
    if labels[0] == labels[1]:
        labels = ("A", "B")
    with result_directory(target) as work:
        summaries = [
            _write(work / label, run, no_plots) for label, run in zip(labels, runs, strict=True)
        ]
        changes = difference(*summaries)
        (work / "compare.json").write_text(json.dumps(changes, indent=2, sort_keys=True) + "\n")
        if not no_plots:
            plot_comparison(work, runs[0], runs[1], labels)
    for label, run, summary in zip(labels, runs, summaries, strict=True):
        _report(run, summary, target / label)


def _snapshot(pool: str | None, out: Path) -> Path:
    """The live pool's snapshot, in a hidden directory beside ``out`` until the results
    are written (then ``out/snapshot``)."""
    target = out.absolute()
    for stale in target.parent.glob(f".{target.name}.snapshot-*"):
        shutil.rmtree(stale, ignore_errors=True)
    from ..sim.from_pool import take_snapshot  # the pool's client (httpx) only when asked

    here = Path(tempfile.mkdtemp(prefix=f".{target.name}.snapshot-", dir=target.parent))
    try:
        taken = take_snapshot(pool, here)
    except BaseException:
        shutil.rmtree(here, ignore_errors=True)
        raise
    click.echo(
        f"fairpool: snapshot of the pool: {taken['slots']:,} slot ads, {taken['jobs']:,} "
        f"queued jobs, {taken['records']:,} accountant records",
        err=True,
    )
    return here


def _run(scenario: Scenario, quiet: bool) -> Simulation:
    """Run a scenario; first say which jobs no machine can run (always: it is a warning
    about the scenario, not progress), then show progress with the commonest reason the
    negotiator gave since the last sample for turning requests down."""
    sim = Simulation(scenario)
    for found in sim.check():
        click.echo(f"fairpool: warning: {scenario.source}: {found.describe()}", err=True)
    if quiet:
        return sim.run()
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.percentage:>5.1f}%"),
        TimeElapsedColumn(),
        TextColumn("{task.fields[waiting]}"),
    )
    name = Path(scenario.source).name
    with Progress(*columns, transient=True, console=_stderr()) as progress:
        task = progress.add_task(name, total=1.0, waiting="")

        def update(done: float) -> None:
            idle = len(sim.pool.queue.idle)
            top = sim.recorder.waiting_for()
            waiting = f"{idle:,} idle" + (f"; mostly {top[0]} ({top[1]})" if top else "")
            progress.update(task, completed=done, waiting=waiting)

        sim.progress = update
        return sim.run()


def _stderr():
    from rich.console import Console

    return Console(stderr=True)


def _write(out: Path, run: Simulation, no_plots: bool) -> dict:
    summary = summarize(run)
    write_outputs(out, run.recorder, summary)
    if not no_plots:
        plot_all(out, run.recorder, Path(run.scenario.source).stem, scenario_marks(run.scenario))
    return summary


def _report(run: Simulation, summary: dict, out: Path) -> None:
    """The run's line on the terminal, from its summary (made once: a month's million jobs
    take seconds to summarize)."""
    pool = summary["pool"]
    jain = pool["jain_fairness_index"]
    click.echo(
        f"{run.scenario.source}: {pool['jobs']['submitted']} jobs, "
        f"{pool['jobs']['completed']} completed, utilisation {pool['utilisation']:.1%}, "
        f"{pool['preemptions']} preemptions, Jain index "
        f"{'n/a' if jain is None else f'{jain:.3f}'}, {pool['cycles']} cycles "
        f"({pool['cycles_negotiated']} negotiated) -> {out}"
    )
