"""Every command that reads a file, fed random and mutated real files: it succeeds or fails
with ``fairpool: error: ...`` and exit code 1, never a traceback, never past a deadline.

The real inputs are the repository's test data (HTCondor's own ads, configurations, submit
files, a startd timeline) and small files of each kind; a mutation inserts, deletes,
duplicates or replaces a stretch of bytes, truncates, or splices in a hostile shape of
issue 15 (deep nesting, a huge integer, bytes that are not UTF-8). Commands run in-process
(click's runner) with small size limits where a command has them, so that one example
stays within seconds.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deadline import deadline
from fairpool.cli.main import main

DATA = Path(__file__).parent.parent / "data"
SCALE = max(1, settings.default.max_examples // 100)  # the ci profile runs four times more


def _settings(examples: int) -> settings:
    return settings(
        max_examples=examples * SCALE,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
    )


SCENARIO = b"""[simulation]
duration = "2h"
[[machines]]
count = 2
ad = "Cpus = 1\\nMemory = 1024"
[[jobs]]
owner = "u"
count = 3
submit = "executable = x\\nrequest_memory = 100\\nqueue"
runtime = "30m"
"""
TIMELINE = b"time,event,value\n00:00,claim,\n00:01,activate,\n00:30,keyboard,busy\n00:40,exit,\n"
LOG = b"""107 1 CreationTimestamp 100
101 Accountant. * *
103 Accountant. LastUpdateTime 100
101 Customer.u@localdomain * *
103 Customer.u@localdomain Priority 0.500000
103 Customer.u@localdomain PriorityFactor 1000.000000
103 Customer.u@localdomain ResourcesUsed 1
103 Customer.u@localdomain LastUsageTime 100
"""

HOSTILE = [
    b"(" * 400,
    b"{" * 400,
    b"-" * 400,
    b"9" * 5000,
    b"\xff\xfe\x00",
    b"$(" * 200,
    b"\n" + b"a" * 200_000,
    b"queue 1e999\n",
    b"\r\n\r\n",
    b"[" * 300,
]

# command: (the file it reads, its real content, the command line with {f} for that file)
COMMANDS = {
    "classad eval": (
        (DATA / "ads/htcondor-tests/small1slot.machine.ads").read_bytes(),
        "classad eval Requirements Cpus -my {f}",
    ),
    "classad match": (
        (DATA / "ads/htcondor-tests/test.old.job.ad").read_bytes(),
        "classad match {f} {data}/ads/htcondor-tests/basic4slot.machine.ads",
    ),
    "config_val": (
        (DATA / "configs/htcondor-tests/hgq_autoregroup.config").read_bytes(),
        "config_val --config {f} -dump",
    ),
    "submit": ((DATA / "submit/31_macros.sub").read_bytes(), "submit {f} --owner u --dry-run -l"),
    "submit --map": (
        (DATA / "submit/groups/choices.map").read_bytes(),
        "submit {data}/submit/01_minimal.sub --owner u --dry-run --map {f}",
    ),
    "negotiate --slots": (
        (DATA / "ads/htcondor-tests/basic4slot.machine.ads").read_bytes(),
        "negotiate --slots {f} --jobs {data}/ads/htcondor-tests/test.old.job.ad"
        " --state {tmp}/state --json {tmp}/out.json --quiet",
    ),
    "negotiate --config": (
        (DATA / "configs/htcondor-tests/hgq_negfail.config").read_bytes(),
        "negotiate --config {f} --submit {data}/configs/htcondor-tests/"
        "hgq_negfail.sub --state {tmp}/state --quiet",
    ),
    "policy trace": (TIMELINE, "policy trace --timeline {f} --until 01:00 --max-days 1"),
    "simulate": (
        SCENARIO,
        "simulate {f} --out {tmp}/out --no-plots --quiet --max-jobs 200"
        " --max-machines 20 --max-cycles 300",
    ),
    "userprio": (LOG, "userprio --state {tmp} -allusers"),
}
EXAMPLES = {"simulate": 6, "policy trace": 6, "negotiate --slots": 10, "negotiate --config": 10}


@st.composite
def mutated(draw, real: bytes) -> bytes:
    """``real`` with one to three mutations, or random bytes."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=300))
    data = real
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data)))
        end = draw(st.integers(at, min(len(data), at + 200)))
        kind = draw(st.sampled_from(["insert", "delete", "duplicate", "replace", "truncate"]))
        piece = draw(st.one_of(st.sampled_from(HOSTILE), st.binary(max_size=20)))
        if kind == "insert":
            data = data[:at] + piece + data[at:]
        elif kind == "delete":
            data = data[:at] + data[end:]
        elif kind == "duplicate":
            data = data[:end] + data[at:end] + data[end:]
        elif kind == "replace":
            data = data[:at] + piece + data[end:]
        else:
            data = data[:at]
    return data


def _check(name: str, content: bytes, tmp: Path) -> None:
    target = tmp / ("Accountantnew.log" if name == "userprio" else "input")
    target.write_bytes(content)
    args = COMMANDS[name][1].format(f=target, data=DATA, tmp=tmp).split()
    before = os.getcwd()
    os.chdir(tmp)
    try:
        with deadline(60, f"fairpool {name}"):
            result = CliRunner().invoke(main, args)
    finally:
        os.chdir(before)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"fairpool {name} raised on {content[:200]!r}") from result.exception
    if result.exit_code != 0:
        assert result.exit_code == 1, result.output[-300:]
        assert "fairpool: error: " in result.output, result.output[-300:]
        assert "Traceback" not in result.output


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_command_on_mutated_input_succeeds_or_fails_cleanly(name, tmp_path_factory):
    real = COMMANDS[name][0]

    @_settings(EXAMPLES.get(name, 20))
    @given(mutated(real))
    def run(content: bytes) -> None:
        _check(name, content, tmp_path_factory.mktemp("fuzz"))

    _check(name, real, tmp_path_factory.mktemp("real"))  # the real input itself works
    run()
