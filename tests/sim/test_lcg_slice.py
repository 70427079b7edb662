"""A slice of the LCG trace replayed end to end with its VOs as accounting groups: every
job completes and core-hours are conserved (each job's run time counted once).
benchmarks/lcg_replay.py replays the whole trace."""

from pathlib import Path

import pytest

from fairpool.sim.arrivals import trace_jobs
from fairpool.sim.runner import simulate
from fairpool.sim.scenario import load_scenario
from fairpool.sim.summary import summarize

LCG = Path(__file__).parent.parent / "data" / "traces" / "LCG.swf.gz"


def test_lcg_slice_conserves_core_hours(write_scenario, helpers):
    groups = ", ".join(f"group_vo{g}" for g in range(1, 29))
    text = '[simulation]\nduration = "4d"\nnegotiator_interval = "5m"\nsample_interval = "2h"\n'
    text += f'[config]\ntext = """\nGROUP_NAMES = {groups}\nGROUP_ACCEPT_SURPLUS = True\n'
    text += "".join(f"GROUP_QUOTA_DYNAMIC_group_vo{g} = 0.0357\n" for g in range(1, 29))
    text += '"""\n' + helpers.machines(60)
    text += f'[[traces]]\nfile = "{LCG}"\nformat = "swf"\ngroup = "group_vo{{gid}}"\n'
    text += "max_jobs = 400\n"
    scenario = load_scenario(write_scenario(text))
    run = simulate(scenario)
    trace = trace_jobs(scenario.traces[0])
    summary = summarize(run)
    jobs = summary["pool"]["jobs"]
    assert jobs["submitted"] == jobs["completed"] == 400
    recorded = sum(j.runtime * j.cpus for j in trace) / 3600
    assert jobs["core_hours"] == pytest.approx(recorded, rel=1e-12)
    assert summary["pool"]["badput_core_hours"] == 0
    # each VO is an accounting group: the trace's groups, charged as <group>.<user>
    vos = {f"group_vo{j.group.removeprefix('group_vo')}" for j in trace}
    assert vos <= set(summary["groups"]) and len(vos) > 1
    record = next(iter(run.recorder.jobs.values()))
    assert record.submitter.startswith(f"{record.group}.user")
    assert {g.group for g in run.recorder.group_samples} >= vos
