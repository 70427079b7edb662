"""The simulator's shortcuts (shortcuts.py) change how much work a run does, never its
results: the same scenario with ``shortcuts = false`` (the plain loop: every cycle
negotiated, usage read from every slot) gives the same files to the byte, but for the
rejection counts, which only negotiated cycles make (the skipped ones make none, and the
plain loop's as many or more)."""

import dataclasses
import json
from collections import Counter

import pytest

from fairpool.sim.outputs import write_outputs
from fairpool.sim.runner import simulate
from fairpool.sim.scenario import load_scenario
from fairpool.sim.summary import summarize

PSLOT = """
Cpus = 8
Memory = 16384
Disk = 100000000
Arch = "X86_64"
OpSys = "LINUX"
HasFileTransfer = true
PartitionableSlot = true
"""

CONFIG = {
    "default": "DEFAULT_PRIO_FACTOR = 1",
    "preemption": "PREEMPTION_REQUIREMENTS = True\nDEFAULT_PRIO_FACTOR = 1",
    "groups": "GROUP_NAMES = group_a, group_b\nGROUP_QUOTA_DYNAMIC_group_a = 0.6\n"
    "GROUP_QUOTA_DYNAMIC_group_b = 0.4\nGROUP_ACCEPT_SURPLUS = true",
}


def _scenario(helpers, config: str) -> str:
    text = '[simulation]\nduration = "16h"\nnegotiator_interval = "5m"\nseed = 7\n'
    text += f'sample_interval = "20m"\n[config]\ntext = """{CONFIG[config]}"""\n'
    text += helpers.machines(12) + helpers.machines(2, PSLOT, "big{n}")
    bursty = '{ distribution = "exponential", mean = "40m" }'
    text += helpers.jobs(
        "ann", bursty, 'rate = "20/h"\ncount = 150', "accounting_group = group_a\n"
    )
    text += helpers.jobs("bob", '"2h"', 'at = "3h"\ncount = 3', "request_cpus = 2\nqueue 9\n")
    text += helpers.jobs(
        "cat",
        '{ distribution = "lognormal", median = "20m", sigma = 1.0 }',
        'at = "6h"\nkeep_idle = 10\ncount = 60',
        "accounting_group = group_b\n",
    )
    text += '[[events]]\nat = "8h"\naction = "set_factor"\nsubmitter = "ann"\nvalue = 10\n'
    text += '[[events]]\nat = "9h"\naction = "remove_machines"\ncount = 4\n'
    text += '[[events]]\nat = "12h"\naction = "add_machines"\ncount = 3\nname = "new{n}"\n'
    text += f'ad = """{helpers.ad}"""\n'
    return text


@pytest.mark.parametrize("config", sorted(CONFIG))
def test_shortcuts_give_the_plain_loops_results(write_scenario, helpers, tmp_path, config):
    scenario = load_scenario(write_scenario(_scenario(helpers, config)))
    plain = dataclasses.replace(
        scenario, simulation=dataclasses.replace(scenario.simulation, shortcuts=False)
    )
    outputs, rejections = {}, {}
    for name, variant in (("fast", scenario), ("plain", plain)):
        run = simulate(variant)
        summary = summarize(run)
        outputs[name] = (run.recorder.cycles_run, summary["pool"].pop("cycles_negotiated"))
        # rejections come from negotiated cycles only: a skipped cycle records none
        rejections[name] = Counter(summary["pool"].pop("rejections"))
        for entry in summary["submitters"].values():
            entry.pop("rejections")
        write_outputs(tmp_path / name, run.recorder, summary)
    assert rejections["fast"] and rejections["fast"] <= rejections["plain"]
    fast, slow = tmp_path / "fast", tmp_path / "plain"
    for file in ("summary.json", "timeseries.csv", "jobs.csv"):
        assert (fast / file).read_bytes() == (slow / file).read_bytes(), file
    summary = json.loads((fast / "summary.json").read_text())
    assert summary["pool"]["jobs"]["completed"] > 100
    assert outputs["plain"][0] == summary["pool"]["cycles"]  # every cycle negotiated
    assert outputs["fast"][0] < outputs["plain"][0]  # and some skipped with shortcuts
