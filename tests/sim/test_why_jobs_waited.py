"""Why jobs waited: the negotiator's rejection reasons counted per submitter and over time
(summary.json, rejections.csv), and jobs no machine can run named before the run, with
the first clause of their Requirements no slot satisfies."""

import csv
import json
import subprocess
import sys
from collections import Counter

from fairpool.sim.runner import Simulation
from fairpool.sim.scenario import load_scenario
from fairpool.sim.summary import summarize

JOBS = """
[[jobs]]
owner = "{owner}"
runtime = "{runtime}"
count = {count}
rate = "6/h"
submit = \"\"\"
executable = /bin/work
{extra}
queue {queue}
\"\"\"
"""


def _scenario(helpers) -> str:
    text = '[simulation]\nduration = "6h"\nnegotiator_interval = "5m"\nsample_interval = "1h"\n'
    text += helpers.machines(4)
    text += JOBS.format(owner="big", runtime="1h", count=1, extra="request_memory = 4096", queue=3)
    text += JOBS.format(
        owner="win", runtime="1h", count=1, extra='requirements = OpSys == "WINDOWS"', queue=2
    )
    text += JOBS.format(owner="ann", runtime="2h", count=20, extra="", queue=1)
    text += JOBS.format(owner="bob", runtime="2h", count=20, extra="", queue=1)
    return text


def test_jobs_no_machine_runs_are_named_with_the_clause(write_scenario, helpers):
    sim = Simulation(load_scenario(write_scenario(_scenario(helpers))))
    found = {u.owner: u for u in sim.check()}  # before anything runs
    assert sorted(found) == ["big", "win"]
    assert found["big"].jobs == 3
    assert found["big"].reason.endswith("no slot satisfies TARGET.Memory >= RequestMemory")
    assert found["win"].reason.endswith('no slot satisfies OpSys == "WINDOWS"')
    assert found["win"].source == "[[jobs]] 2"


def test_rejections_are_counted_per_submitter_and_over_time(write_scenario, helpers, tmp_path):
    path = write_scenario(_scenario(helpers))
    out = tmp_path / "out"
    command = [sys.executable, "-m", "fairpool.cli", "simulate", str(path), "--out", str(out)]
    done = subprocess.run([*command, "--quiet", "--no-plots"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 2 and "(owner big): 3 job(s)" in warnings[0]
    summary = json.loads((out / "summary.json").read_text())
    submitters = summary["submitters"]
    # the unmatchable jobs are turned down at every negotiated cycle; ann and bob compete
    # for 4 slots and wait for them
    cycles = summary["pool"]["cycles_negotiated"]
    assert submitters["big@localdomain"]["rejections"] == {"no match found": cycles}
    assert submitters["win@localdomain"]["rejections"] == {"no match found": cycles}
    assert sum(submitters["ann@localdomain"]["rejections"].values()) > 0
    assert [u["owner"] for u in summary["pool"]["unmatchable"]] == ["big", "win"]
    with (out / "rejections.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    over_time: Counter = Counter()
    for row in rows:
        over_time[(row["submitter"], row["reason"])] += int(row["count"])
    totals = Counter({(s, r): n for s, e in submitters.items() for r, n in e["rejections"].items()})
    assert over_time == totals  # the series adds up to the totals
    by_reason: Counter = Counter()
    for (_, reason), count in totals.items():
        by_reason[reason] += count
    assert summary["pool"]["rejections"] == dict(by_reason)  # the pool: every submitter's
    times = sorted({float(row["time"]) for row in rows})
    assert times[0] == 0.0 and len(times) >= 6  # one set of rows per hourly sample


def test_a_pool_where_every_job_can_run_says_nothing(write_scenario, helpers):
    text = '[simulation]\nduration = "1h"\n' + helpers.machines(2)
    text += helpers.jobs("ann", '"10m"', "count = 3")
    sim = Simulation(load_scenario(write_scenario(text)))
    assert sim.check() == []
    sim.run()
    assert summarize(sim)["pool"]["unmatchable"] == []
