"""Configuration sweeps: every point of a grid simulated, the same figures whether the
points run on the local process pool or on a Dask cluster (a LocalCluster on 127.0.0.1,
started here)."""

import csv
import json

import pytest
from click.testing import CliRunner

from fairpool.cli.main import main
from fairpool.errors import ScenarioError
from fairpool.sim.sweep import load_sweep


def _files(helpers, write_scenario) -> str:
    text = '[simulation]\nduration = "4h"\nnegotiator_interval = "5m"\nseed = 3\n'
    text += '[config]\ntext = "DEFAULT_PRIO_FACTOR = 1"\n' + helpers.machines(3)
    text += helpers.jobs("ann", '"40m"', 'rate = "8/h"')
    text += helpers.jobs("bob", '"40m"', 'rate = "8/h"\nat = "2h"')
    write_scenario(text, "workload.toml")
    sweep = 'scenario = "workload.toml"\n'
    sweep += 'figures = ["pool/utilisation", "submitters/bob@localdomain/wait_mean", "no/such"]\n'
    sweep += (
        "[grid]\nPRIORITY_HALFLIFE = [600, 86400]\nNEGOTIATOR_CONSIDER_PREEMPTION = [true, false]\n"
    )
    return str(write_scenario(sweep, "sweep.toml"))


def _run(args: list[str]):
    result = CliRunner().invoke(main, ["simulate", "--sweep", *args])
    assert result.exit_code == 0, result.output
    return result


def test_a_sweep_gives_the_same_figures_on_local_processes_and_on_dask(
    write_scenario, helpers, tmp_path
):
    distributed = pytest.importorskip("distributed")
    path = _files(helpers, write_scenario)
    _run([path, "--out", str(tmp_path / "local"), "--workers", "2"])
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        _run([path, "--out", str(tmp_path / "dask"), "--scheduler", address, "--no-plots"])
    local, dask = tmp_path / "local", tmp_path / "dask"
    assert (local / "sweep.csv").read_bytes() == (dask / "sweep.csv").read_bytes()
    for point in range(1, 5):
        summary = f"points/{point}/summary.json"
        assert (local / summary).read_bytes() == (dask / summary).read_bytes()
    with (local / "sweep.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["PRIORITY_HALFLIFE"], r["NEGOTIATOR_CONSIDER_PREEMPTION"]) for r in rows] == [
        ("600", "True"),
        ("600", "False"),
        ("86400", "True"),
        ("86400", "False"),
    ]
    assert all(r["no/such"] == "" for r in rows)  # a figure a summary lacks is empty
    waits = [float(r["submitters/bob@localdomain/wait_mean"]) for r in rows]
    assert len(set(waits)) > 1  # the grid's knobs change what bob waits
    document = json.loads((local / "sweep.json").read_text())
    assert document["points"][1]["knobs"] == {
        "PRIORITY_HALFLIFE": 600,
        "NEGOTIATOR_CONSIDER_PREEMPTION": False,
    }
    assert sorted(p.name for p in local.glob("sweep_*.png")) == [
        "sweep_1.png",
        "sweep_2.png",
        "sweep_3.png",
    ]


@pytest.mark.parametrize(
    ("sweep", "error"),
    [
        (
            'scenario = "missing.toml"\nfigures = ["pool/utilisation"]\n[grid]\nA = [1]\n',
            "scenario",
        ),
        ('scenario = "workload.toml"\nfigures = []\n[grid]\nA = [1]\n', "figures"),
        ('scenario = "workload.toml"\nfigures = ["x"]\n[grid]\nA = 1\n', "grid, A"),
        ('scenario = "workload.toml"\nfigures = ["x"]\ngrids = 1\n', "unknown key 'grids'"),
        (
            'scenario = "workload.toml"\nfigures = ["x"]\n[grid]\nPRIORITY_HALFLIFE = ["soon"]\n',
            "grid point PRIORITY_HALFLIFE = soon",
        ),
    ],
)
def test_a_bad_sweep_is_one_error_before_anything_runs(write_scenario, helpers, sweep, error):
    _files(helpers, write_scenario)
    path = write_scenario(sweep, "bad.toml")
    with pytest.raises(ScenarioError, match=error):
        load_sweep(path)
    result = CliRunner().invoke(main, ["simulate", "--sweep", str(path), "--out", "x"])
    assert result.exit_code == 1 and "fairpool: error:" in result.output
