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


def test_htcondor_history_replays_with_its_groups(write_scenario, helpers, tmp_path):
    history = tmp_path / "history.ads"
    history.write_text(
        'Owner = "alice"\nQDate = 1000\nJobStartDate = 1100\nCompletionDate = 4700\n'
        'RequestCpus = 2\nAccountingGroup = "group_a.alice"\n\n'
        'Owner = "bob"\nQDate = 1600\nRemoteWallClockTime = 1800.0\n\n'
    )
    text = '[simulation]\nduration = "3h"\nnegotiator_interval = "60s"\n'
    two_cores = helpers.ad.replace("Cpus = 1", "Cpus = 2")
    text += (
        '[config]\ntext = "GROUP_NAMES = group_a\\nGROUP_ACCEPT_SURPLUS = true"\n'
        + helpers.machines(4, two_cores)
    )
    text += f'[[traces]]\nfile = "{history}"\nformat = "htcondor"\ntime_scale = 0.5\n'
    run = simulate(load_scenario(write_scenario(text)))
    records = {r.submitter: r for r in run.recorder.jobs.values()}
    assert set(records) == {"group_a.alice@localdomain", "bob@localdomain"}
    alice, bob = records["group_a.alice@localdomain"], records["bob@localdomain"]
    assert (alice.group, alice.cpus, bob.group) == ("group_a", 2.0, "<none>")
    # times halved: bob arrives 300 s after alice and runs 900 s; alice runs 1800 s
    assert bob.submit - alice.submit == 300
    assert alice.good_seconds == 1800 * 2 and bob.good_seconds == 900
