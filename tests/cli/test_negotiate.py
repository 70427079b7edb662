"""``fairpool negotiate``: the report, the JSON, many cycles, crash safety and bad input."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from builders import jobs_of, make_slot, slots
from cycles import NOW
from fairpool.classad import write_old
from fairpool.cli.main import main
from fairpool.store.accountant_store import AccountantStore

COMMAND = [sys.executable, "-m", "fairpool.cli"]


def _write(path: Path, ads) -> str:
    path.write_text("".join(write_old(ad) + "\n" for ad in ads))
    return str(path)


@pytest.fixture
def pool(tmp_path):
    """20 one-core slots; alice and bob with 30 idle jobs each."""
    return {
        "slots": _write(tmp_path / "slots.ads", slots(20)),
        "jobs": _write(tmp_path / "jobs.ads", jobs_of("alice", 30, 1) + jobs_of("bob", 30, 2)),
        "state": str(tmp_path / "state"),
        "config": str(tmp_path / "negotiator.config"),
    }


def _run(pool, *extra):
    args = ["negotiate", "--slots", pool["slots"], "--jobs", pool["jobs"]]
    return CliRunner().invoke(main, [*args, "--state", pool["state"], *extra])


def _records(state: str) -> dict:
    """Every accountant record and the last update time, as the store holds them."""
    store = AccountantStore(state)
    accountant = store.load()
    records = {n: vars(c).copy() for n, c in accountant.customers.items()}
    store.engine.dispose()
    return {"last_update": accountant.last_update, "records": records}


def test_report_and_json_name_every_decision(pool, tmp_path):
    out = tmp_path / "out.json"
    Path(pool["config"]).write_text("UID_DOMAIN = example.org\n")
    result = _run(pool, "--config", pool["config"], "--start", str(NOW), "--json", str(out))
    assert result.exit_code == 0, result.output
    # equal new users split 20 slots 10/10 (limits 10 each); each then stops at the first
    # job over its limit, as the negotiator does, with one rejection naming the reason
    assert result.output.count("  Matched ") == 20
    assert "Rejected 1.10 alice@example.org: submitter limit exceeded" in result.output
    assert "Rejected 2.10 bob@example.org: submitter limit exceeded" in result.output
    assert "Matched 1.0 alice@example.org slot1@node0 (NoPreemption)" in result.output
    (cycle,) = json.loads(out.read_text())["cycles"]
    assert cycle["time"] == NOW
    assert {m["reason"] for m in cycle["matches"]} == {"NoPreemption"}
    assert {m["preempting"] for m in cycle["matches"]} == {None}
    assert sorted(cycle["submitters"]) == ["alice@example.org", "bob@example.org"]
    for figures in cycle["submitters"].values():
        assert set(figures) >= {"rup", "eup", "factor", "usage", "running"}
        assert figures["running"] == 10
    assert cycle["groups"] == {}


def test_cycles_keep_jobs_running_and_charge_usage(pool, tmp_path):
    out = tmp_path / "out.json"
    result = _run(pool, "--cycles", "3", "--interval", "600", "--start", str(NOW), "--json", out)
    assert result.exit_code == 0, result.output
    cycles = json.loads(out.read_text())["cycles"]
    assert [c["time"] for c in cycles] == [NOW, NOW + 600, NOW + 1200]
    assert len(cycles[0]["matches"]) == 20
    assert cycles[1]["matches"] == [] == cycles[2]["matches"]  # the pool stays full
    # each held 10 slots for 1200 s: the RUP rose from 0.5 towards 10
    state = _records(pool["state"])
    assert state["last_update"] == NOW + 1200
    for name in ("alice@localdomain", "bob@localdomain"):
        record = state["records"][name]
        assert 0.5 < record["priority"] < 10
        assert record["weighted_accumulated_usage"] == pytest.approx(10 * 1200)


def test_a_restart_resumes_from_the_saved_state(pool):
    first = _run(pool, "--cycles", "2", "--interval", "60", "--start", str(NOW))
    assert first.exit_code == 0
    after_first = _records(pool["state"])
    again = _run(pool, "--cycles", "1", "--start", str(NOW + 120))
    assert again.exit_code == 0
    after_second = _records(pool["state"])
    assert after_second["last_update"] == NOW + 120
    alice = "alice@localdomain"
    assert after_second["records"][alice]["priority"] > after_first["records"][alice]["priority"]


def test_sigkill_mid_run_leaves_the_state_of_the_last_completed_cycle(tmp_path):
    """Kill -9 a long run; the state on disk must equal that of an uninterrupted run of
    exactly as many cycles as the killed one completed (known from the saved clock)."""
    slot_file = _write(tmp_path / "slots.ads", slots(200))
    jobs = jobs_of("alice", 300, 1) + jobs_of("bob", 300, 2) + jobs_of("carol", 300, 3)
    job_file = _write(tmp_path / "jobs.ads", jobs)
    killed = str(tmp_path / "killed")
    base = ["negotiate", "--slots", slot_file, "--jobs", job_file, "--quiet"]
    times = ["--interval", "60", "--start", str(NOW)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    process = subprocess.Popen(
        [*COMMAND, *base, "--state", killed, "--cycles", "100000", *times],
        stdout=subprocess.PIPE,
        env=env,
    )
    seen = b""
    while seen.count(b"Cycle ") < 3:  # let a few cycles complete, then kill mid-cycle
        chunk = process.stdout.read1(4096)
        assert chunk, f"the run ended early: {seen!r}"
        seen += chunk
    time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    state = _records(killed)
    completed = round((state["last_update"] - NOW) / 60) + 1
    assert completed >= 3
    reference = str(tmp_path / "reference")
    result = CliRunner().invoke(
        main, [*base, "--state", reference, "--cycles", str(completed), *times]
    )
    assert result.exit_code == 0, result.output
    assert _records(reference) == state
    # and the killed state is usable: a restart runs the next cycle on top of it
    resumed = CliRunner().invoke(
        main, [*base, "--state", killed, "--cycles", "1", "--start", str(NOW + 60 * completed)]
    )
    assert resumed.exit_code == 0, resumed.output
    assert _records(killed)["last_update"] == NOW + 60 * completed


@pytest.mark.parametrize(
    "case, config, slots_text, expected",
    [
        (
            "malformed slot ad",
            "",
            'Name = "slot1@a"\nCpus = 1 +\nMemory = 2\n',
            "slots.ads:2:",
        ),
        (
            "invalid PREEMPTION_REQUIREMENTS",
            "PREEMPTION_REQUIREMENTS = RemoteUserPrio > (\n",
            None,
            "negotiator.config:1: PREEMPTION_REQUIREMENTS",
        ),
        (
            "negative quota",
            "GROUP_NAMES = a\nGROUP_QUOTA_a = -1\n",
            None,
            "negotiator.config:2: GROUP_QUOTA_a",
        ),
    ],
)
def test_bad_input_is_one_line_and_a_nonzero_exit_with_the_state_untouched(
    pool, case, config, slots_text, expected
):
    assert _run(pool, "--start", str(NOW)).exit_code == 0
    before = _records(pool["state"])
    Path(pool["config"]).write_text(config)
    if slots_text is not None:
        Path(pool["slots"]).write_text(slots_text)
    result = _run(pool, "--config", pool["config"], "--start", str(NOW + 60))
    assert result.exit_code != 0, case
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fairpool: error: "), result.output
    assert expected in lines[0], lines[0]
    assert _records(pool["state"]) == before


def test_missing_files_and_no_jobs_are_errors(pool, tmp_path):
    result = _run(pool, "--config", str(tmp_path / "nowhere.config"))
    assert result.exit_code != 0 and "nowhere.config" in result.output
    empty = _write(tmp_path / "empty.ads", [])
    result = CliRunner().invoke(
        main, ["negotiate", "--slots", pool["slots"], "--jobs", empty, "--state", pool["state"]]
    )
    assert result.exit_code != 0 and "no jobs" in result.output


def test_claimed_slots_in_the_input_are_charged_to_their_users(tmp_path):
    held = [make_slot(f"slot1@held{i}").claimed_by("carol@localdomain").build() for i in range(5)]
    pool = {
        "slots": _write(tmp_path / "slots.ads", held + slots(5)),
        "jobs": _write(tmp_path / "jobs.ads", jobs_of("alice", 10, 1)),
        "state": str(tmp_path / "state"),
    }
    out = tmp_path / "out.json"
    result = _run(pool, "--start", str(NOW), "--json", str(out))
    assert result.exit_code == 0, result.output
    (cycle,) = json.loads(out.read_text())["cycles"]
    assert len(cycle["matches"]) == 5
    assert cycle["usage"]["carol@localdomain"] == {"count": 5, "weight": 5.0}


def test_s1_rup_after_one_cycle_through_the_command(tmp_path):
    # A takes all 100 slots in cycle 1; cycle 2, 60 s later, ages A's RUP over the usage
    # held: beta = 0.5 ** (60 / 86400) = 0.999518763, RUP = 0.5 * beta + 100 * (1 - beta)
    # = 0.547883, EUP = 547.883 with the default factor 1000.
    pool = {
        "slots": _write(tmp_path / "slots.ads", slots(100)),
        "jobs": _write(tmp_path / "jobs.ads", jobs_of("A", 150, 1)),
        "state": str(tmp_path / "state"),
    }
    out = tmp_path / "out.json"
    result = _run(pool, "--cycles", "2", "--interval", "60", "--start", str(NOW), "--json", out)
    assert result.exit_code == 0, result.output
    first, second = json.loads(out.read_text())["cycles"]
    assert len(first["matches"]) == 100
    assert second["submitters"]["A@localdomain"]["rup"] == pytest.approx(0.547883, abs=1e-6)
    assert second["submitters"]["A@localdomain"]["eup"] == pytest.approx(547.883, abs=1e-3)


SEED_MAP = Path(__file__).parent.parent / "data" / "submit" / "groups" / "seed.map"


def test_the_configured_group_map_assigns_and_refuses(tmp_path):
    # use FEATURE : AssignAccountingGroup(seed.map): Alice's jobs go to group_physics
    # without asking; Bob asking for group_physics is refused (the map gives him
    # group_atlas), so nothing runs and nothing is saved.
    config = tmp_path / "negotiator.config"
    config.write_text(
        f"use FEATURE : AssignAccountingGroup({SEED_MAP})\n"
        "GROUP_NAMES = group_physics, group_atlas, group_students\n"
        "GROUP_QUOTA_group_physics = 10\nGROUP_ACCEPT_SURPLUS = True\n"
    )
    job = tmp_path / "job.sub"
    job.write_text("executable = run.sh\nqueue 3\n")
    asking = tmp_path / "asking.sub"
    asking.write_text("executable = run.sh\naccounting_group = group_physics\nqueue\n")
    # submit files' Requirements ask for file transfer, as condor_submit writes them
    machines = [
        make_slot(f"slot1@node{i}").set(HasFileTransfer=True, Disk=4_000_000).build()
        for i in range(10)
    ]
    slot_file = _write(tmp_path / "slots.ads", machines)
    out = tmp_path / "out.json"
    base = ["negotiate", "--config", str(config), "--slots", slot_file, "--start", str(NOW)]
    result = CliRunner().invoke(
        main, [*base, f"--submit=Alice={job}", "--state", str(tmp_path / "a"), "--json", out]
    )
    assert result.exit_code == 0, result.output
    (cycle,) = json.loads(out.read_text())["cycles"]
    assert {m["submitter"] for m in cycle["matches"]} == {"group_physics.Alice@localdomain"}
    refused = CliRunner().invoke(
        main, [*base, f"--submit=Bob={asking}", "--state", str(tmp_path / "b")]
    )
    assert refused.exit_code == 1
    assert "asking.sub:2:" in refused.output and "group_atlas" in refused.output
    assert not (tmp_path / "b").exists()


def test_cycles_are_negotiator_interval_apart(pool, tmp_path):
    # HTCondor's negotiator starts a cycle every NEGOTIATOR_INTERVAL seconds (manual,
    # "condor_negotiator Configuration File Entries"; spec negotiator.md §0 defaults);
    # the configuration's value spaces the dry run's cycles unless --interval is given.
    out = tmp_path / "out.json"
    Path(pool["config"]).write_text("NEGOTIATOR_INTERVAL = 20\n")
    common = ("--config", pool["config"], "--start", str(NOW), "--cycles", "3", "--quiet")
    result = _run(pool, *common, "--json", str(out))
    assert result.exit_code == 0, result.output
    assert [c["time"] for c in json.loads(out.read_text())["cycles"]] == [NOW, NOW + 20, NOW + 40]
    result = _run(pool, *common, "--interval", "7", "--json", str(out))
    assert [c["time"] for c in json.loads(out.read_text())["cycles"]][1] == NOW + 7
