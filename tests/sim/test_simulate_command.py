"""``fairpool simulate``: the files a run writes, and --compare."""

import csv
import json

from click.testing import CliRunner

from fairpool.cli.main import main
from fairpool.sim.runner import simulate
from fairpool.sim.scenario import load_scenario


def _scenario(helpers, halflife: int) -> str:
    text = '[simulation]\nduration = "6h"\nnegotiator_interval = "5m"\n'
    text += f'[config]\ntext = "PRIORITY_HALFLIFE = {halflife}"\n' + helpers.machines(8)
    runtime = '{ distribution = "exponential", mean = "20m" }'
    text += helpers.jobs("ann", runtime, "keep_idle = 10")
    text += helpers.jobs("bob", runtime, 'at = "2h"\nkeep_idle = 10')
    return text


def test_simulate_writes_numbers_and_plots(write_scenario, helpers, tmp_path):
    path = write_scenario(_scenario(helpers, 86400))
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["simulate", str(path), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "cycles" in result.output and str(out) in result.output
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["submitters"]) == {"ann@localdomain", "bob@localdomain"}
    ann = summary["submitters"]["ann@localdomain"]
    assert ann["completed"] <= ann["started"] <= ann["submitted"]
    assert ann["wait_median"] <= ann["wait_p95"]
    assert 0 < summary["pool"]["utilisation"] <= 1
    rows = list(csv.DictReader((out / "timeseries.csv").open()))
    assert rows[0]["time"] == "0.0" and rows[0]["submitter"] == "ann@localdomain"
    jobs = list(csv.DictReader((out / "jobs.csv").open()))
    assert len(jobs) == summary["pool"]["jobs"]["submitted"]
    for name in ("rup.png", "running.png", "waits.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare_two_configurations(write_scenario, helpers, tmp_path):
    a = write_scenario(_scenario(helpers, 86400), "day.toml")
    b = write_scenario(_scenario(helpers, 600), "tenmin.toml")
    out = tmp_path / "cmp"
    args = ["simulate", "--compare", str(a), str(b), "--out", str(out), "--quiet"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    changes = json.loads((out / "compare.json").read_text())
    rup = changes["submitters"]["ann@localdomain"]["final_rup"]
    # a ten-minute half-life forgets usage faster: bob catches up, ann's RUP is lower
    assert rup["change"] == rup["b"] - rup["a"]
    assert (out / "day" / "summary.json").exists() and (out / "tenmin" / "jobs.csv").exists()
    assert (out / "compare_running.png").exists() and (out / "compare_rup.png").exists()


def test_compare_needs_two(write_scenario, helpers, tmp_path):
    path = write_scenario(_scenario(helpers, 86400))
    result = CliRunner().invoke(main, ["simulate", "--compare", str(path), "--out", str(tmp_path)])
    assert result.exit_code == 1 and "--compare with two" in result.output


def test_progress_bar_and_no_plots(write_scenario, helpers, tmp_path):
    path = write_scenario(_scenario(helpers, 86400))
    out = tmp_path / "out"
    seen = []
    simulate(load_scenario(path), seen.append)
    assert seen[0] == 0 and seen[-1] == 1 and seen == sorted(seen)
    result = CliRunner().invoke(main, ["simulate", str(path), "--out", str(out), "--no-plots"])
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in out.iterdir())
    assert names == ["jobs.csv", "rejections.csv", "summary.json", "timeseries.csv"]
