"""The same scenario and seed give byte-identical outputs (numbers and plots), across
processes with different PYTHONHASHSEED (which catches iteration over sets of names)."""

import os
import subprocess
import sys


def _scenario(helpers) -> str:
    text = '[simulation]\nduration = "10h"\nnegotiator_interval = "5m"\nseed = 11\n'
    text += '[config]\ntext = "GROUP_NAMES = group_x\\nGROUP_QUOTA_DYNAMIC_group_x = 0.5"\n'
    text += helpers.machines(10)
    for number, owner in enumerate(("zed", "amy", "kim", "bo")):
        runtime = '{ distribution = "exponential", mean = "30m" }'
        group = "accounting_group = group_x\n" if number % 2 else ""
        text += helpers.jobs(owner, runtime, f'rate = "{4 + number}/h"', group)
    return text


def _run(path, out, hash_seed: str) -> None:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    command = [sys.executable, "-m", "fairpool.cli", "simulate", str(path), "--out", str(out)]
    subprocess.run([*command, "--quiet"], check=True, env=env, capture_output=True)


def test_two_processes_write_the_same_bytes(write_scenario, helpers, tmp_path):
    path = write_scenario(_scenario(helpers))
    _run(path, tmp_path / "one", "1")
    _run(path, tmp_path / "two", "987654")
    names = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert names == [
        "groups.png",
        "jobs.csv",
        "rejections.csv",
        "running.png",
        "rup.png",
        "summary.json",
        "timeseries.csv",
        "waits.png",
    ]
    for name in names:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    assert len((tmp_path / "one" / "jobs.csv").read_text().splitlines()) > 100


def test_another_seed_draws_other_jobs(write_scenario, helpers, tmp_path):
    first = write_scenario(_scenario(helpers), "first.toml")
    second = write_scenario(_scenario(helpers).replace("seed = 11", "seed = 12"), "second.toml")
    _run(first, tmp_path / "one", "0")
    _run(second, tmp_path / "two", "0")
    jobs = [(tmp_path / d / "jobs.csv").read_bytes() for d in ("one", "two")]
    assert jobs[0] != jobs[1]
