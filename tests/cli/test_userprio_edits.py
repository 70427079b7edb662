"""condor_userprio's edits as HTCondor 25 makes them (issue 14).

Sources: spec negotiator.md §1.7 and §8.1 (read from HTCondor's user_prio.cpp and
Accountant.cpp): every edit names a ``user@domain`` and, sent to the negotiator, sets the
attribute of that customer record, creating it when there is none; the tool refuses a
factor below 1 ("Priority factors must be greater than or equal to 1."), a floor below 0
and a ceiling below -1 ("floor must be greater than or equal to 0."), a negative
accumulated usage ("Usage must be greater than 0 seconds") and a negative time ("Time must
be greater than 0 seconds"), with exit status 1. ``-duration S`` turns -setfactor,
-setfloor and -setceiling into leases that end at the first cycle after S seconds, and
``-cancel{ceiling,floor,factor}lease`` ends one; HTCondor's test_ceiling_lease.py runs
that lifecycle (ceiling 10 -> 42, floor 5 -> 20, factor 2.0 -> 7.5)."""

import json

import pytest
from click.testing import CliRunner

from fairpool.cli.main import main
from fairpool.cli.userprio import userprio
from fairpool.store.accountant_store import AccountantStore

T = 1_750_000_000


@pytest.fixture
def state(tmp_path):
    """A state whose clock is at T, with no records."""
    store = AccountantStore(tmp_path)
    accountant = store.load()
    accountant.update_priorities(T)
    store.save(accountant)
    return str(tmp_path)


def run(state, *args):
    return CliRunner().invoke(userprio, ["--state", state, *args])


def record(state, name="ann@pool"):
    return AccountantStore(state).load().customers.get(name)


@pytest.mark.parametrize(
    "args, field, value, message",
    [
        (
            ("-setfactor", "ann@pool", "5"),
            "factor",
            5.0,
            "The priority factor of ann@pool was set to 5.000000",
        ),
        (
            ("-setprio", "ann@pool", "3.5"),
            "priority",
            3.5,
            "The priority of ann@pool was set to 3.500000",
        ),
        (("-setceiling", "ann@pool", "8"), "ceiling", 8, "The ceiling of ann@pool was set to 8"),
        (("-setfloor", "ann@pool", "2"), "floor", 2, "The floor of ann@pool was set to 2"),
        (
            ("-setaccum", "ann@pool", "7200"),
            "weighted_accumulated_usage",
            7200.0,
            "The Accumulated Usage of ann@pool was set to 7200.000000",
        ),
        (
            ("-setbegin", "ann@pool", "100"),
            "begin_usage_time",
            100,
            "The Begin Usage Time of ann@pool was set to 100",
        ),
        (
            ("-setlast", "ann@pool", "200"),
            "last_usage_time",
            200,
            "The Last Usage Time of ann@pool was set to 200",
        ),
    ],
)
def test_an_edit_creates_the_record(state, args, field, value, message):
    result = run(state, *args)
    assert result.exit_code == 0 and result.output == message + "\n"
    assert getattr(record(state), field) == value


@pytest.mark.parametrize(
    "args, message",
    [
        (("-setfactor", "ann@pool", "0.5"), "Priority factors must be greater than or equal to 1."),
        (("-setfactor", "ann@pool", "nan"), "-setfactor: expected a finite number, not 'nan'"),
        (("-setfactor", "ann@pool", "inf"), "-setfactor: expected a finite number, not 'inf'"),
        (("-setprio", "ann@pool", "-inf"), "-setprio: expected a finite number"),
        (("-setaccum", "ann@pool", "-1"), "Usage must be greater than 0 seconds"),
        (("-setaccum", "ann@pool", "NaN"), "-setaccum: expected a finite number"),
        (("-setfloor", "ann@pool", "-1"), "floor must be greater than or equal to 0."),
        (("-setceiling", "ann@pool", "-2"), "ceiling must be greater than or equal to -1."),
        (("-setbegin", "ann@pool", "-5"), "Time must be greater than 0 seconds"),
        (("-setlast", "ann@pool", "-5"), "Time must be greater than 0 seconds"),
        (("-setfactor", "ann@pool", "5", "-duration", "0"), "-duration requires a positive"),
    ],
)
def test_values_htcondor_refuses_are_refused(state, args, message):
    result = run(state, *args)
    assert result.exit_code == 1 and message in result.output
    assert record(state) is None  # nothing stored


@pytest.mark.parametrize(
    "option, cancel, field, seed, leased",
    [
        ("-setceiling", "-cancelceilinglease", "ceiling", "10", "42"),
        ("-setfloor", "-cancelfloorlease", "floor", "5", "20"),
        ("-setfactor", "-cancelfactorlease", "factor", "2.0", "7.5"),
    ],
)
def test_lease_lifecycle(state, option, cancel, field, seed, leased):
    kind = {"factor": "priority-factor"}.get(field, field)
    assert run(state, option, "ann@pool", seed).exit_code == 0
    first = run(state, option, "ann@pool", leased, "-duration", "600")
    shown = f"{float(leased):f}" if field == "factor" else leased
    assert first.output == f"Set {kind} lease on ann@pool to {shown} for 600 seconds\n"
    second = run(state, option, "ann@pool", "99", "-duration", "600")
    assert second.exit_code == 1
    assert f"{kind} lease for ann@pool is already in effect (expires at {T + 600})" in (
        second.output
    )
    assert getattr(record(state), field) == float(leased)
    assert run(state, cancel, "ann@pool").output == f"Cancelled {kind} lease for ann@pool\n"
    assert getattr(record(state), field) == float(seed)
    again = run(state, cancel, "ann@pool")
    assert again.exit_code == 1 and f"no {kind} lease in effect for ann@pool" in again.output


def test_a_lease_ends_at_the_first_cycle_after_its_duration(state):
    run(state, "-setceiling", "ann@pool", "10")
    run(state, "-setceiling", "ann@pool", "42", "-duration", "60")
    store = AccountantStore(state)
    accountant = store.load()
    accountant.update_priorities(T + 59)
    assert accountant.customers["ann@pool"].ceiling == 42
    accountant.update_priorities(T + 60)
    assert accountant.customers["ann@pool"].ceiling == 10
    store.save(accountant)
    assert record(state).ceiling_lease_expiration == 0


def test_a_dry_run_lists_its_submitters_and_a_second_run_goes_on(tmp_path):
    # condor_userprio's default listing shows who used the pool in the last 24 hours
    # (manual, condor_userprio); after one dry-run cycle that is whoever got slots, at
    # <now>. The slot ads were taken at T (LastHeardFrom), so each run would start at T: a
    # second run on the same state goes on one NEGOTIATOR_INTERVAL after the state's last
    # cycle instead of going back in time.
    slots = tmp_path / "slots.ads"
    slots.write_text(
        "".join(
            f'MyType = "Machine"\nName = "slot{n}@node"\nCpus = 1\nMemory = 2048\n'
            f'Disk = 10000000\nArch = "X86_64"\nOpSys = "LINUX"\nHasFileTransfer = true\n'
            f"Requirements = true\nLastHeardFrom = {T}\n\n"
            for n in (1, 2)
        )
    )
    submit = tmp_path / "job.sub"
    submit.write_text("executable = /bin/true\nqueue 3\n")
    state, out = tmp_path / "state", tmp_path / "out.json"
    args = ["negotiate", "--slots", str(slots), "--submit", str(submit), "--owner", "ann"]
    args += ["--state", str(state), "--json", str(out), "--quiet"]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    assert json.loads(out.read_text())["cycles"][0]["time"] == T
    listing = CliRunner().invoke(userprio, ["--state", str(state)]).output
    assert "ann@localdomain" in listing and "<now>" in listing
    assert CliRunner().invoke(main, args).exit_code == 0
    assert json.loads(out.read_text())["cycles"][0]["time"] == T + 60
