"""Issue 15's bad inputs, each as a new user would give it to a command: one clear error
line naming the file (and line) and a non-zero exit, or a clean answer, and never a
traceback, a hang or a state or output left behind.

Each case was a traceback, a hang or a silent wrong answer before; the commands run
in-process (click's runner), each under a deadline many times what it needs.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from deadline import deadline
from fairpool.cli.main import main

SLOT = 'Name = "slot1@a"\nMyType = "Machine"\nCpus = 1\nMemory = 1024\nStart = true\n'
JOB = 'MyType = "Job"\nClusterId = 1\nProcId = 0\nOwner = "u"\nRequestCpus = 1\n'
SCENARIO = """[simulation]
duration = "1h"
[[machines]]
count = 1
ad = "Cpus = 1\\nMemory = 1024"
[[jobs]]
owner = "u"
submit = "executable = x\\nqueue"
runtime = "10m"
"""
SWF_LINE = "1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"


def _inputs(d: Path) -> None:
    """Every bad input of the issue, in ``d``."""
    text = {
        "paren.ad": "A = " + "(" * 400 + "1" + ")" * 400 + "\n",
        "minus.ad": "A = " + "-" * 400 + "1\n",
        "list.ad": "A = " + "{" * 400 + "1" + "}" * 400 + "\n",
        "bigint.ad": "A = " + "9" * 5000 + "\n",
        "lparen.ad": "A = " + "(" * 1_000_000 + "\n",
        "regex.ad": 'A = regexp("^(a+)+$", "' + "a" * 40 + '!")\n',
        "strcat.ad": 'A0 = "ab"\n'
        + "".join(f"A{i} = strcat(A{i - 1}, A{i - 1})\n" for i in range(1, 41)),
        "sum.ad": "A0 = 1\n" + "".join(f"A{i} = A{i - 1} + A{i - 1}\n" for i in range(1, 41)),
        "slots.ad": SLOT,
        "deep_slots.ad": SLOT + "Requirements = " + "(" * 400 + "true" + ")" * 400 + "\n",
        "jobs.ad": JOB,
        "deep.sub": "executable = x\nrequirements = " + "(" * 400 + "1" + ")" * 400 + "\nqueue\n",
        "inf.sub": "executable = x\nqueue 1e999\n",
        "billion.sub": "executable = x\nqueue 1000000000\n",
        "huge.sub": "executable = x\nqueue 99999999999\n",
        "ok.sub": "executable = x\nqueue\n",
        "deep.config": "M0 = 1\n" + "".join(f"M{i} = $(M{i - 1})\n" for i in range(1, 10001)),
        "double.config": "M0 = ab\n"
        + "".join(f"M{i} = $(M{i - 1})$(M{i - 1})\n" for i in range(1, 41)),
        "bigfield.csv": 'time,event,value\n00:00,claim,"' + "a" * 200_000 + '"\n',
        "disorder.csv": "time,event,value\n10:00,claim,\n09:00,activate,\n",
        "negative.csv": "time,event,value\n-5,claim,\n",
        "ok.csv": "time,event,value\n00:00,claim,\n00:01,activate,\n",
        "long.csv": "time,event,value\n00:00,claim,\nd3650 00:00,activate,\n",
        "deep_timeline.csv": "time,event,value\n00:00,LoadAvg," + "(" * 400 + "1" + ")" * 400,
        "ok.toml": SCENARIO,
        "bigint.toml": SCENARIO.replace("count = 1", "count = " + "9" * 5000),
        "jobs.toml": SCENARIO.replace('runtime = "10m"', 'runtime = "10m"\ncount = 1000000000'),
        "machines.toml": SCENARIO.replace("count = 1", "count = 1000000000"),
        "weeks.toml": SCENARIO.replace('"1h"', '"100000000w"'),
        "e300.toml": SCENARIO.replace('"1h"', "1e300"),
        "microsecond.toml": SCENARIO + "",
        "trace.swf": "; UnixStartTime: 0\n" + SWF_LINE * 3 + "1 2 3\n",
        "trace.toml": SCENARIO + '[[traces]]\nfile = "trace.swf"\n',
        "bintrace.toml": SCENARIO + '[[traces]]\nfile = "bin.swf"\n',
        "binactivity.toml": SCENARIO.replace("count = 1\n", 'count = 1\nactivity = "bin.csv"\n'),
    }
    text["microsecond.toml"] = SCENARIO.replace(
        '"1h"\n', '"1h"\nnegotiator_interval = 0.000001\n', 1
    )
    for name, content in text.items():
        (d / name).write_text(content)
    binary = {
        "bin.toml": b'[simulation]\nduration = "1h"\xff\n',
        "bin.map": b"* u \xff\xfe\n",
        "bin.csv": b"time,event,value\n00:00,claim,\xff\n",
        "bin.swf": b"; UnixStartTime: 0\n" + SWF_LINE.encode() + b"\xff\xfe\n",
    }
    for name, content in binary.items():
        (d / name).write_bytes(content)
    (d / "foreign").mkdir()
    (d / "foreign" / "state.sqlite3").write_text("not a database at all")
    (d / "other").mkdir()
    sqlite3.connect(d / "other" / "state.sqlite3").execute("CREATE TABLE customers (x)").close()
    (d / "badlog").mkdir()
    (d / "badlog" / "Accountantnew.log").write_text(
        "107 1 CreationTimestamp 0\n101 Accountant. * *\n103 Accountant. LastUpdateTime banana\n"
    )
    (d / "statefile").write_text("a file, not a directory\n")
    (d / "mine").mkdir()
    (d / "mine" / "notes.txt").write_text("not a result\n")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("bad")
    _inputs(d)
    return d


def _run(d: Path, args: str, limit: float = 60) -> tuple[int, str]:
    """Run ``fairpool ARGS`` in ``d``; its exit code and output. A traceback fails."""
    before = os.getcwd()
    os.chdir(d)
    try:
        with deadline(limit, f"fairpool {args[:60]}"):
            result = CliRunner().invoke(main, args.split())
    finally:
        os.chdir(before)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"fairpool {args[:80]} raised") from result.exception
    return result.exit_code, result.output


# (command line, what the one error line must say)
ERRORS = [
    ("classad eval 1 -my paren.ad", "paren.ad:1:205: the expression nests more than 200 levels"),
    ("classad eval 1 -my minus.ad", "minus.ad:1:"),
    ("classad eval 1 -my list.ad", "list.ad:1:205: the expression nests more than 200"),
    ("classad eval 1 -my lparen.ad", "lparen.ad:1:205: the expression nests more than 200"),
    ("classad match jobs.ad deep_slots.ad", "deep_slots.ad:6:"),
    ("negotiate --slots deep_slots.ad --jobs jobs.ad --state s1", "deep_slots.ad:6:"),
    ("negotiate --slots slots.ad --submit deep.sub --state s2", "deep.sub:2: requirements"),
    ("negotiate --slots slots.ad --submit inf.sub --state s3", "inf.sub:2: queue count '1e999'"),
    ("negotiate --slots slots.ad --jobs jobs.ad --state s4 --json nodir/x.json", "no directory"),
    ("negotiate --slots slots.ad --jobs jobs.ad --state statefile", "statefile: is a file"),
    ("negotiate --slots slots.ad --jobs jobs.ad --state foreign", "foreign/state.sqlite3: not a"),
    ("negotiate --slots slots.ad --jobs jobs.ad --state other", "other/state.sqlite3: not a"),
    ("negotiate --slots slots.ad --jobs jobs.ad --state badlog", "Accountantnew.log:3: LastUp"),
    ("submit inf.sub --owner u --dry-run", "inf.sub:2: queue count '1e999' is not an integer"),
    ("submit billion.sub --owner u --dry-run", "billion.sub:2: more than 20000 jobs"),
    ("submit huge.sub --owner u --dry-run", "huge.sub:2: more than 20000 jobs"),
    ("submit deep.sub --owner u --dry-run", "deep.sub:2: requirements = (((("),
    ("submit ok.sub --owner u --dry-run --map bin.map", "bin.map:1: accounting-group map is"),
    ("config_val --config deep.config M10000", "deep.config:101: macros nest more than 100"),
    ("config_val --config double.config M40", "double.config:17: macro expansion larger"),
    ("policy trace --timeline bin.csv", "bin.csv:2: the timeline is not UTF-8 text"),
    ("policy trace --timeline bigfield.csv", "bigfield.csv:2: expected 'time,event[,value]'"),
    ("policy trace --timeline ok.csv --until banana", "--until 'banana': expected seconds"),
    ("policy trace --timeline disorder.csv", "disorder.csv:3: time 09:00 is before"),
    ("policy trace --timeline negative.csv", "negative.csv:2: bad time '-5'"),
    ("policy trace --timeline long.csv", "long.csv: the timeline runs to day 3651"),
    ("policy trace --timeline ok.csv --until 100000000", "more than --max-days 7"),
    ("policy trace --timeline deep_timeline.csv", "deep_timeline.csv:2: LoadAvg"),
    ("policy trace --timeline ok.csv --json nodir/x.json", "--json nodir/x.json: no directory"),
    ("userprio --state typo", "typo: no fairpool state here"),
    ("userprio --state foreign", "foreign/state.sqlite3: not a usable fairpool state"),
    ("userprio --state statefile", "statefile: is a file"),
    ("userprio --state badlog", "Accountantnew.log:3: LastUpdateTime: expected a number"),
    ("simulate bin.toml --out o --quiet", "bin.toml:2: the scenario is not UTF-8 text"),
    ("simulate bigint.toml --out o --quiet", "bigint.toml: not TOML: Exceeds the limit"),
    ("simulate jobs.toml --out o --quiet", "jobs.toml: [[jobs]]: jobs submitted in all: 1e+09"),
    ("simulate machines.toml --out o --quiet", "[[machines]]: machines in all: 1e+09 machines"),
    ("simulate weeks.toml --out o --quiet", "[simulation], duration: duration 6.048e+13 s"),
    ("simulate e300.toml --out o --quiet", "[simulation], duration: duration 1e+300 s"),
    ("simulate microsecond.toml --out o --quiet", "3.6e+09 cycles, more than the limit"),
    ("simulate trace.toml --out o --quiet", "trace.swf:5: expected 18 SWF fields, found 3"),
    ("simulate bintrace.toml --out o --quiet", "bin.swf:3: the trace is not UTF-8 text"),
    ("simulate binactivity.toml --out o --quiet", "bin.csv:2: the owner activity is not UTF-8"),
    ("simulate ok.toml --out statefile --quiet", "--out statefile: is a file"),
    ("simulate ok.toml --out mine --quiet", "--out mine: a directory that holds other files"),
]


@pytest.mark.parametrize("args, expected", ERRORS, ids=[a for a, _ in ERRORS])
def test_bad_input_is_one_error_line_and_a_nonzero_exit(inputs, args, expected):
    code, output = _run(inputs, args)
    first, *caret = output.strip().splitlines()
    assert code == 1, output[-500:]
    assert first.startswith("fairpool: error: "), output[-500:]
    assert expected in first, first
    # a ClassAd syntax error may show the place: the line and a caret under it
    assert len(caret) in (0, 2) and all(line.startswith("  ") for line in caret), output
    assert all(len(line) < 300 for line in (first, *caret))  # a 1 MB line is not echoed


def test_reading_commands_create_no_state(inputs):
    _run(inputs, "userprio --state typo")
    assert not (inputs / "typo").exists()


def test_a_failed_negotiate_writes_no_state_and_no_json(inputs):
    _run(inputs, "negotiate --slots slots.ad --jobs jobs.ad --state s4 --json nodir/x.json")
    assert not (inputs / "s4").exists()


@pytest.mark.parametrize(
    "args, value",
    [
        ("classad eval A -my regex.ad", "false"),  # RE2: linear time (PCRE gives up: ERROR)
        ("classad eval A40 -my strcat.ad", "error"),  # strings and work are bounded
        ("classad eval A40 -my sum.ad", "error"),
        ("classad eval A -my bigint.ad", "0"),  # does not fit in 64 bits: 0, as strtoll
    ],
)
def test_hostile_ads_evaluate_to_a_value_within_a_deadline(inputs, args, value):
    code, output = _run(inputs, args)
    assert (code, output.strip()) == (0, value)


def test_fairpool_h_is_help():
    result = CliRunner().invoke(main, ["-h"])
    assert result.exit_code == 0 and "Usage: " in result.output and "Commands:" in result.output


def test_negotiate_json_holds_every_committed_cycle(inputs, tmp_path):
    state, out = tmp_path / "state", tmp_path / "out.json"
    code, output = _run(
        inputs,
        f"negotiate --slots slots.ad --jobs jobs.ad --state {state} --json {out} --cycles 3",
    )
    assert code == 0, output
    cycles = json.loads(out.read_text())["cycles"]
    assert len(cycles) == 3
    assert not list(tmp_path.glob(".out.json.*"))  # nothing left beside it
