"""The startd policy on simulated machines (sim/startd_policy.py, sim/startds.py).

Dedicated machines skip the state machine; ``startd = "always"`` runs it on every machine
and must give the same files. A policy that can act (PREEMPT, SUSPEND with owner
activity, MaxJobRetirementTime) changes what happens to jobs, at the times HTCondor's
startd would act: evaluation passes every POLLING_INTERVAL (5 s) while a slot is claimed,
every UPDATE_INTERVAL (300 s) otherwise."""

import dataclasses
import json
import os
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairpool.classad import ClassAd
from fairpool.config import parse_config_text
from fairpool.errors import ScenarioError
from fairpool.sim.outputs import write_outputs
from fairpool.sim.runner import simulate
from fairpool.sim.scenario import load_scenario, parse_scenario
from fairpool.sim.startd_policy import driven, table_policy
from fairpool.sim.summary import summarize

PSLOT = """
Cpus = 4
Memory = 8192
Disk = 100000000
Arch = "X86_64"
OpSys = "LINUX"
HasFileTransfer = true
PartitionableSlot = true
"""

CONFIGS = {
    "preemption": "PREEMPTION_REQUIREMENTS = True\nDEFAULT_PRIO_FACTOR = 1\n"
    "PRIORITY_HALFLIFE = 3600",
    "groups": "GROUP_NAMES = group_a, group_b\nGROUP_QUOTA_DYNAMIC_group_a = 0.6\n"
    "GROUP_QUOTA_DYNAMIC_group_b = 0.4\nGROUP_ACCEPT_SURPLUS = true",
}
DESKTOP = """
START = KeyboardIdle > 15 * 60
SUSPEND = KeyboardIdle < 60
CONTINUE = KeyboardIdle > 5 * 60
PREEMPT = (Activity == "Suspended") && (CurrentTime - EnteredCurrentActivity) > 10 * 60
WANT_SUSPEND = True
"""


def _mixed(helpers, config: str) -> str:
    text = '[simulation]\nduration = "6h"\nseed = 5\nsample_interval = "15m"\n'
    text += f'[config]\ntext = """{config}"""\n'
    text += helpers.machines(6) + helpers.machines(2, PSLOT, "big{n}")
    exponential = '{ distribution = "exponential", mean = "25m" }'
    text += helpers.jobs("ann", exponential, "keep_idle = 12", "accounting_group = group_a\n")
    text += helpers.jobs(
        "bob", '"40m"', 'at = "1h"\nrate = "12/h"\ncount = 30', "request_cpus = 2\n"
    )
    text += helpers.jobs(
        "cat", exponential, 'at = "2h"\nkeep_idle = 8', "accounting_group = group_b\n"
    )
    text += '[[events]]\nat = "3h"\naction = "remove_machines"\ncount = 3\n'
    text += '[[events]]\nat = "4h"\naction = "add_machines"\ncount = 2\nname = "new{n}"\n'
    text += f'ad = """{PSLOT}"""\n'
    return text


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_running_every_startd_gives_the_dedicated_results(
    write_scenario, helpers, tmp_path, config
):
    scenario = load_scenario(write_scenario(_mixed(helpers, CONFIGS[config])))
    assert not any(spec.driven for spec in scenario.machines)
    always = dataclasses.replace(
        scenario, simulation=dataclasses.replace(scenario.simulation, startd="always")
    )
    machines = {}
    for name, variant in (("dedicated", scenario), ("always", always)):
        run = simulate(variant)
        summary = summarize(run)
        machines[name] = summary["pool"]["startd"].pop("machines")
        write_outputs(tmp_path / name, run.recorder, summary)
    assert machines == {"dedicated": 0, "always": 7}  # 8 at the start, 3 gone, 2 added
    for file in ("summary.json", "timeseries.csv", "jobs.csv"):
        assert (tmp_path / "dedicated" / file).read_bytes() == (
            tmp_path / "always" / file
        ).read_bytes(), file
    pool = json.loads((tmp_path / "always" / "summary.json").read_text())["pool"]
    assert pool["jobs"]["completed"] > 50
    assert pool["startd"]["policy_evictions"] == 0
    if config == "preemption":
        assert pool["preemptions"] > 0  # preempting claims went through the startds


def _owner(write_scenario, lines: str) -> None:
    """owner.csv beside the scenario: a timeline of keyboard use, after its header."""
    write_scenario("time,event,value\n" + lines, "owner.csv")


def _desks(helpers, count: int) -> str:
    """A [[machines]] table of one-core desktops whose owner follows owner.csv."""
    return helpers.machines(count).replace(
        'name = "node{n:03d}"\n', 'name = "d{n}"\nactivity = "owner.csv"\n'
    )


def _one_machine(config: str, jobs: str, duration: str = "12h", extra: str = "") -> str:
    text = f'[simulation]\nduration = "{duration}"\nseed = 1\n'
    text += f'[config]\ntext = """{config}"""\n'
    text += f'[[machines]]\nname = "desk"\n{extra}ad = """\nCpus = 1\nMemory = 2048\n'
    text += 'Disk = 100000000\nArch = "X86_64"\nOpSys = "LINUX"\nHasFileTransfer = true\n"""\n'
    return text + jobs


def _records(run):
    return {job: record for job, record in run.recorder.jobs.items()}


def test_preempt_evicts_each_run_at_the_first_pass_past_its_limit(write_scenario, helpers):
    config = "PREEMPT = (CurrentTime - JobStart) > 1200\nWANT_SUSPEND = False"
    jobs = helpers.jobs("ann", '"30m"', "count = 1") + helpers.jobs("ann", '"15m"', "count = 1")
    text = _one_machine(config, jobs, "6h").replace('name = "desk"', 'count = 2\nname = "d{n}"')
    run = simulate(load_scenario(write_scenario(text)))
    long, short = _records(run).values()
    assert long.end is None and long.start == 0.0
    # polling every 5 s while claimed: the pass at 1205 s is the first with age > 1200;
    # the job starts again at the next cycle (every 60 s): one run every 1260 s
    assert long.preemptions == 21600 // 1260
    assert long.bad_seconds == pytest.approx(1205.0 * long.preemptions)
    assert long.good_seconds == pytest.approx(21600 - 1260 * long.preemptions)
    assert short.end == pytest.approx(900.0) and short.preemptions == 0
    assert run.startds.evictions == long.preemptions


def _office(write_scenario, helpers, activity: str, runtime: str = '"4h"'):
    _owner(write_scenario, activity)
    jobs = helpers.jobs("ann", runtime, "count = 1")
    extra = 'activity = "owner.csv"\n'
    return simulate(load_scenario(write_scenario(_one_machine(DESKTOP, jobs, extra=extra))))


def test_a_touch_of_the_keyboard_suspends_and_the_job_ends_later(write_scenario, helpers):
    run = _office(write_scenario, helpers, "02:00,keyboard,touch\n")
    (job,) = run.recorder.jobs.values()
    # suspended at the pass at 02:00, continued at the first pass with KeyboardIdle > 300
    assert job.preemptions == 0
    assert job.end == pytest.approx(4 * 3600 + 305)
    assert job.good_seconds == pytest.approx(4 * 3600)
    assert run.recorder.suspensions == 1
    assert run.recorder.suspended_seconds == pytest.approx(305)


def test_an_owner_who_stays_has_the_job_evicted_and_restarted_later(write_scenario, helpers):
    run = _office(write_scenario, helpers, "02:00,keyboard,busy\n03:00,keyboard,idle\n")
    (job,) = run.recorder.jobs.values()
    assert job.preemptions == 1
    assert run.startds.evictions == 1
    # suspended at 02:00, evicted at the first pass more than 600 s later
    assert job.bad_seconds == pytest.approx(7200)
    assert run.recorder.suspended_seconds == pytest.approx(605)
    # START needs KeyboardIdle > 900 in the slot's ad, published every 300 s while
    # Unclaimed: first true at the pass at 03:20, which comes before that second's cycle
    assert job.end - 4 * 3600 == 3 * 3600 + 1200


def test_owner_activity_repeats(write_scenario, helpers, tmp_path):
    run = _office(write_scenario, helpers, "00:30,keyboard,touch\n", runtime='"20h"')
    # activity_repeat is not set: one touch only
    assert run.recorder.suspensions == 1
    text = (tmp_path / "scenario.toml").read_text()
    text = text.replace(
        'activity = "owner.csv"\n', 'activity = "owner.csv"\nactivity_repeat = "6h"\n'
    )
    again = simulate(load_scenario(write_scenario(text)))
    assert again.recorder.suspensions == 2  # 00:30 and 06:30 of a 12 h run


def _retiring(write_scenario, helpers, retirement: str, runtime: str):
    config = f'PREEMPTION_REQUIREMENTS = TARGET.Owner == "bob"\n{retirement}'
    text = '[simulation]\nduration = "5h"\nseed = 1\n'
    text += f'[config]\ntext = """{config}"""\n' + helpers.machines(2)
    text += helpers.jobs("ann", runtime, "count = 2")
    text += helpers.jobs("bob", '"1h"', 'at = "1h"\ncount = 2')
    run = simulate(load_scenario(write_scenario(text)))
    records = list(run.recorder.jobs.values())
    return records[:2], records[2:]


def test_retirement_holds_off_priority_preemption(write_scenario, helpers):
    ann, bob = _retiring(write_scenario, helpers, "", '"3h"')
    assert [b.start for b in bob] == [3600.0, 3600.0]  # preempted at once
    assert [a.bad_seconds for a in ann] == [3600.0, 3600.0]
    ann, bob = _retiring(write_scenario, helpers, "MaxJobRetirementTime = 7200", '"3h"')
    # the negotiator leaves a job in its retirement alone (no early preemption); the
    # startd publishes RetirementTimeRemaining = 0 at its pass at 7200, after that
    # cycle, so the next cycle preempts, and with no retirement left the job vacates
    assert [a.preemptions for a in ann] == [1, 1]
    assert [a.bad_seconds for a in ann] == [7260.0, 7260.0]
    assert [b.start for b in bob] == [7260.0, 7260.0]


def test_early_preemption_waits_for_the_retiring_job(write_scenario, helpers):
    early = "NEGOTIATOR_CONSIDER_EARLY_PREEMPTION = True\nMaxJobRetirementTime = 7200"
    ann, bob = _retiring(write_scenario, helpers, early, '"3h"')
    # preempting claims at 3600; the running jobs retire until what is left of the 7200 s
    # is no more than MachineMaxVacateTime (600 s), so that vacating ends in time; they
    # vacate at once in the simulator, and the waiting claims start bob's jobs then
    assert [a.bad_seconds for a in ann] == [6600.0, 6600.0]
    assert [b.start for b in bob] == [6600.0, 6600.0]


def test_a_job_that_ends_while_retiring_is_not_preempted(write_scenario, helpers):
    early = "NEGOTIATOR_CONSIDER_EARLY_PREEMPTION = True\nMaxJobRetirementTime = 7200"
    ann, bob = _retiring(write_scenario, helpers, early, '"90m"')
    assert [a.preemptions for a in ann] == [0, 0]
    assert [a.end for a in ann] == [5400.0, 5400.0]
    assert [b.start for b in bob] == [5400.0, 5400.0]  # the waiting claims take over


def test_removing_a_driven_machine_gives_its_job_back(write_scenario, helpers):
    config = "PREEMPT = (CurrentTime - JobStart) > 36000"
    jobs = helpers.jobs("ann", '"2h"', "count = 1")
    events = '[[events]]\nat = "30m"\naction = "remove_machines"\n'
    run = simulate(load_scenario(write_scenario(_one_machine(config, jobs, "3h") + events)))
    (job,) = run.recorder.jobs.values()
    assert job.preemptions == 1 and job.end is None
    assert run.pool.slot_by_name == {} and run.startds.machines == {}
    assert run.pool.queue.idle  # idle again, with nowhere to run


@pytest.mark.parametrize(
    ("knobs", "ad", "expected"),
    [
        ("", "", False),
        ("PREEMPT = (CurrentTime - JobStart) > 60", "", True),
        ("SUSPEND = False\nPREEMPT = False\nKILL = False", "", False),
        ("START = KeyboardIdle > 900", "", True),
        ("START = ClockMin > 600", "", True),
        ("START = time() > 0", "", True),
        ('START = TARGET.Owner == "ann"', "", False),
        ("MaxJobRetirementTime = 0", "", False),
        ("MaxJobRetirementTime = 3600", "", True),
        ("", "PREEMPT = TotalJobRunTime > 60", True),
        ("", 'START = TARGET.Owner != "bob"', False),
    ],
)
def test_which_policies_need_the_startd(knobs, ad, expected):
    slot = ClassAd(f"[Cpus = 1; {ad}]" if ad else "[Cpus = 1]")
    policy = table_policy(parse_config_text(knobs, "test"), slot if ad else None)
    assert driven(policy, (slot,), None) is expected


def test_owner_activity_always_needs_the_startd():
    policy = table_policy(parse_config_text("", "test"), None)
    assert driven(policy, (ClassAd("[Cpus = 1]"),), object()) is True


@pytest.mark.parametrize(
    ("extra", "files", "expected"),
    [
        ('activity = "none.csv"\n', {}, "activity: no such file"),
        (
            'activity = "bad.csv"\n',
            {"bad.csv": "time,event,value\n01:00,claim,\n"},
            "protocol event",
        ),
        ('activity = "bad.csv"\n', {"bad.csv": "when,what\n"}, "header"),
        ('activity_repeat = "1d"\n', {}, "activity_repeat needs activity"),
        (
            'activity = "ok.csv"\nactivity_repeat = "-1h"\n',
            {"ok.csv": "time,event,value\n"},
            "activity_repeat",
        ),
    ],
)
def test_bad_owner_activity_is_named(write_scenario, helpers, extra, files, expected):
    for name, text in files.items():
        write_scenario(text, name)
    jobs = helpers.jobs("ann", '"1h"', "count = 1")
    with pytest.raises(ScenarioError) as caught:
        load_scenario(write_scenario(_one_machine("", jobs, extra=extra)))
    assert expected in str(caught.value)
    assert "[[machines]] 1" in str(caught.value)


def test_bad_startd_setting_is_named(write_scenario, helpers):
    text = _one_machine("", helpers.jobs("ann", '"1h"')).replace(
        "seed = 1", 'seed = 1\nstartd = "sometimes"'
    )
    with pytest.raises(ScenarioError, match=r"\[simulation\], startd: expected"):
        load_scenario(write_scenario(text))


def test_consumption_policy_machines_cannot_run_a_policy(write_scenario, helpers):
    ad = PSLOT + 'MachineResources = "Cpus Memory"\nConsumptionCpus = TARGET.RequestCpus\n'
    text = '[simulation]\nduration = "1h"\n[config]\ntext = "PREEMPT = TotalJobRunTime > 9"\n'
    text += helpers.machines(1, ad) + helpers.jobs("ann", '"1h"')
    with pytest.raises(ScenarioError, match="consumption policy is not simulated"):
        load_scenario(write_scenario(text))


def test_driven_runs_are_the_same_across_processes(write_scenario, helpers, tmp_path):
    _owner(write_scenario, "01:00,keyboard,busy\n01:30,keyboard,idle\n")
    text = '[simulation]\nduration = "4h"\nseed = 2\n'
    text += f'[config]\ntext = """{DESKTOP}PREEMPTION_REQUIREMENTS = True"""\n'
    text += _desks(helpers, 3)
    text += helpers.machines(2, PSLOT, "big{n}")
    text += helpers.jobs("ann", '{ distribution = "exponential", mean = "40m" }', "keep_idle = 6")
    text += helpers.jobs("bob", '"30m"', 'at = "1h"\nkeep_idle = 3', "request_cpus = 2\n")
    path = write_scenario(text)
    outputs = []
    for seed in ("3", "4242"):
        out = tmp_path / f"out{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        command = [sys.executable, "-m", "fairpool.cli", "simulate", str(path), "--out", str(out)]
        subprocess.run([*command, "--quiet"], check=True, env=env, capture_output=True)
        outputs.append({f: (out / f).read_bytes() for f in ("jobs.csv", "summary.json")})
    assert outputs[0] == outputs[1]
    summary = json.loads(outputs[0]["summary.json"])
    assert summary["pool"]["startd"]["machines"] == 5
    assert summary["pool"]["startd"]["suspensions"] > 0


def test_shortcuts_change_nothing_on_driven_machines(write_scenario, helpers, tmp_path):
    _owner(write_scenario, "02:00,keyboard,busy\n03:30,keyboard,idle\n")
    text = '[simulation]\nduration = "8h"\nseed = 4\n'
    text += f'[config]\ntext = """{DESKTOP}"""\n'
    text += _desks(helpers, 4)
    text += helpers.machines(2)
    text += helpers.jobs("ann", '{ distribution = "exponential", mean = "50m" }', "keep_idle = 4")
    scenario = load_scenario(write_scenario(text))
    plain = dataclasses.replace(
        scenario, simulation=dataclasses.replace(scenario.simulation, shortcuts=False)
    )
    rejections = {}
    for name, variant in (("fast", scenario), ("plain", plain)):
        run = simulate(variant)
        summary = summarize(run)
        summary["pool"].pop("cycles_negotiated")
        rejections[name] = Counter(summary["pool"].pop("rejections"))  # negotiated cycles'
        for entry in summary["submitters"].values():
            entry.pop("rejections")
        write_outputs(tmp_path / name, run.recorder, summary)
    assert rejections["fast"] <= rejections["plain"]  # skipped cycles make none
    for file in ("summary.json", "timeseries.csv", "jobs.csv"):
        assert (tmp_path / "fast" / file).read_bytes() == (tmp_path / "plain" / file).read_bytes()
    pool = json.loads((tmp_path / "fast" / "summary.json").read_text())["pool"]
    assert pool["startd"]["suspensions"] > 0 and pool["startd"]["policy_evictions"] > 0


SCENARIOS = st.fixed_dictionaries(
    {
        "static": st.integers(1, 5),
        "pslots": st.integers(0, 2),
        "pslot_cpus": st.integers(2, 4),
        "users": st.lists(
            st.tuples(st.integers(1, 6), st.integers(1, 2), st.sampled_from([0, 1, 2])),
            min_size=1,
            max_size=3,
        ),
        "config": st.sampled_from([*sorted(CONFIGS), "default"]),
        "interval": st.sampled_from([60, 120, 300]),
        "removal": st.one_of(st.none(), st.integers(1, 3)),
        "seed": st.integers(0, 1000),
        "reuse": st.booleans(),
    }
)


def _random_scenario(helpers, draw: dict) -> str:
    config = CONFIGS.get(draw["config"], "DEFAULT_PRIO_FACTOR = 1")
    text = f'[simulation]\nduration = "3h"\nseed = {draw["seed"]}\n'
    text += f"claim_reuse = {str(draw['reuse']).lower()}\n"
    text += f'negotiator_interval = {draw["interval"]}\nsample_interval = "30m"\n'
    text += f'[config]\ntext = """{config}"""\n' + helpers.machines(draw["static"])
    if draw["pslots"]:
        pslot = PSLOT.replace("Cpus = 4", f"Cpus = {draw['pslot_cpus']}")
        text += helpers.machines(draw["pslots"], pslot, "big{n}")
    groups = ("accounting_group = group_a\n", "accounting_group = group_b\n", "")
    for number, (idle, cpus, group) in enumerate(draw["users"]):
        runtime = '{ distribution = "uniform", low = "5m", high = "50m" }'
        submit = f"request_cpus = {cpus}\n{groups[group]}"
        text += helpers.jobs(f"u{number}", runtime, f'at = "{number}h"\nkeep_idle = {idle}', submit)
    if draw["removal"]:
        text += f'[[events]]\nat = "90m"\naction = "remove_machines"\ncount = {draw["removal"]}\n'
    return text


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(draw=SCENARIOS)
def test_random_dedicated_pools_agree_with_their_startds(helpers, draw):
    scenario = parse_scenario(_random_scenario(helpers, draw))
    always = dataclasses.replace(
        scenario, simulation=dataclasses.replace(scenario.simulation, startd="always")
    )
    runs = [simulate(scenario), simulate(always)]
    records = [
        [
            (r.id, r.start, r.end, r.preemptions, r.good_seconds, r.bad_seconds)
            for r in run.recorder.jobs.values()
        ]
        for run in runs
    ]
    assert records[0] == records[1]
    assert runs[0].recorder.samples == runs[1].recorder.samples
    assert runs[0].recorder.group_samples == runs[1].recorder.group_samples
    machines = draw["static"] + draw["pslots"]
    left = machines - min(draw["removal"] or 0, machines)
    assert (len(runs[0].startds.machines), len(runs[1].startds.machines)) == (0, left)


@pytest.mark.parametrize("startd", ["auto", "always"])
@pytest.mark.parametrize(("reuse", "starts"), [(False, [0, 660, 1320]), (True, [0, 650, 1320])])
def test_claim_reuse_runs_the_next_job_until_the_worklife_is_over(
    write_scenario, helpers, startd, reuse, starts
):
    text = (
        f'[simulation]\nduration = "1h"\nstartd = "{startd}"\nclaim_reuse = {str(reuse).lower()}\n'
    )
    text += '[config]\ntext = "CLAIM_WORKLIFE = 1200"\n' + helpers.machines(1)
    text += helpers.jobs("ann", "650", "count = 3")
    run = simulate(load_scenario(write_scenario(text)))
    # reused at 650 (the claim is 650 s old); at 1300 it is 1300 s old, past the
    # worklife: the slot goes back to the negotiator, whose next cycle is at 1320
    assert [r.start for r in run.recorder.jobs.values()] == starts
    assert run.pool.reused == (1 if reuse else 0)


def test_a_reused_claim_stays_with_its_submitter(write_scenario, helpers):
    text = '[simulation]\nduration = "1h"\nclaim_reuse = true\n' + helpers.machines(1)
    text += helpers.jobs("ann", "600", "count = 1") + helpers.jobs("bob", "600", "count = 1")
    text += helpers.jobs("ann", "600", 'at = "5m"\ncount = 1')
    run = simulate(load_scenario(write_scenario(text)))
    ann, bob, ann_again = run.recorder.jobs.values()
    # bob waits from 0, but ann's claim goes to ann's next job at 600 (MODERN worklife 1200)
    assert (ann.start, ann_again.start, bob.start) == (0.0, 600.0, 1200.0)


def test_machines_added_later_keep_the_activity_clock_of_the_start(write_scenario, helpers):
    _owner(write_scenario, "04:00,keyboard,busy\n")
    text = '[simulation]\nduration = "6h"\nseed = 1\n'
    text += f'[config]\ntext = """{DESKTOP}"""\n' + helpers.machines(1)
    text += helpers.jobs("ann", '"10h"', "count = 1") + helpers.jobs("bob", '"3h"', 'at = "3h"')
    text += '[[events]]\nat = "3h"\naction = "add_machines"\nname = "desk"\n'
    text += f'activity = "owner.csv"\nad = """{helpers.ad}"""\n'
    run = simulate(load_scenario(write_scenario(text)))
    ann, bob = run.recorder.jobs.values()
    # bob starts on the new desk at 3 h; its owner comes at 04:00 of the run, not 3 h
    # after the desk joined: suspended at 4 h, evicted 605 s later
    assert (bob.start, bob.preemptions, bob.bad_seconds) == (10800.0, 1, 3600.0)
    assert run.recorder.suspended_seconds == pytest.approx(605)
    assert ann.preemptions == 0
