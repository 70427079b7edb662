"""Every parser fed random and hostile text: only ``FairpoolError`` subclasses escape.

The parsers are ClassAd expressions and ads (old, new and JSON syntax, then evaluated,
written and matched), configuration, submit descriptions, scenarios, timelines, traces
(SWF and HTCondor ads), accounting-group maps and the accountant log. Text is drawn from
three sources: arbitrary characters, pieces of each format, and the hostile shapes of
issue 15 (nesting hundreds deep, integers of thousands of digits, bytes that are not
UTF-8, very long lines). Each example runs under a deadline (a hang fails it).
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deadline import deadline
from fairpool.classad import ClassAd, Expr, parse_ads, symmetric_match, write_json, write_old
from fairpool.config import parse_config_text
from fairpool.errors import FairpoolError
from fairpool.sim.limits import Limits
from fairpool.sim.scenario import parse_scenario
from fairpool.sim.traces import read_htcondor, read_swf
from fairpool.startd.timeline import parse_timeline
from fairpool.store.classadlog import read_accountant_log
from fairpool.submit import GroupMap, parse_submit

EXAMPLES = max(20, settings.default.max_examples // 3)
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))


def _nest(opening: str, closing: str, inner: str = "1") -> st.SearchStrategy[str]:
    return st.integers(0, 600).map(lambda n: opening * n + inner + closing * n)


HOSTILE = st.one_of(
    _nest("(", ")"),
    _nest("{", "}"),
    _nest("[a=", "]"),
    _nest("f(", ")"),
    _nest("$(", ")", "X"),
    st.integers(0, 600).map(lambda n: "-" * n + "1"),
    st.integers(0, 600).map(lambda n: "a" + " || a" * n),
    st.integers(1, 6000).map(lambda n: "9" * n),
    st.integers(1, 300).map(lambda n: "(" * (n * 1000)),
    st.binary(max_size=60).map(lambda b: b.decode("utf-8", "surrogateescape")),
    st.sampled_from(["1e999", "-1e999", "nan", "inf", '"\\0"', "\x00", "\ufffd", "\r"]),
)


def _text(pieces: list[str]) -> st.SearchStrategy[str]:
    """Lines made of the format's pieces, arbitrary text and hostile shapes."""
    line = st.one_of(st.sampled_from(pieces), st.text(max_size=40), HOSTILE)
    joined = st.lists(st.lists(line, max_size=4).map(" ".join), max_size=8).map("\n".join)
    return st.one_of(joined, st.text(max_size=200), HOSTILE)


def _only_fairpool_errors(parse, text) -> None:
    with deadline(60, "parsing"), contextlib.suppress(FairpoolError):
        parse(text)


CLASSAD = [
    "A = ",
    "[",
    "]",
    ";",
    'MyType = "Job"',
    "Requirements = ",
    "TARGET.",
    "regexp(",
    "strcat(",
    "1 + ",
    "{1, 2}",
    '"s"',
    "==",
    "? :",
    '{"a": 1}',
    "[{",
    "}]",
    "/Expr(",
]


def _classad(text: str) -> None:
    try:
        expr = Expr(text)
        str(expr)
        expr.eval(now=0)
    except FairpoolError:
        pass
    ads = list(parse_ads(text))
    for ad in ads:
        for name in list(ad):
            ad.eval(name, now=0)
        write_old(ad)
        write_json(ad)
        symmetric_match(ad, ClassAd({"Requirements": True}), now=0)


@FUZZ
@given(_text(CLASSAD))
def test_classad_expressions_and_ads(text):
    _only_fairpool_errors(_classad, text)


CONFIG = [
    "A = ",
    "$(A)",
    "$(B:",
    ")",
    "use POLICY : ",
    "include : ",
    "if ",
    "else",
    "endif",
    "$INT(",
    "$RANDOM_INTEGER(",
    "@=x",
    "@x",
    "\\",
    "GROUP_NAMES = a",
    "START = ",
]


def _config(text: str) -> None:
    config = parse_config_text(text, "fuzz.config")
    config.items()


@FUZZ
@given(_text(CONFIG))
def test_configuration(text):
    _only_fairpool_errors(_config, text)


SUBMIT = [
    "executable = x",
    "queue",
    "queue 3",
    "queue 1e999",
    "queue x in (a b)",
    "queue from (",
    ")",
    "request_memory = 2GB",
    "requirements = ",
    "+A = $(x)",
    "arguments = \"a 'b' c\"",
    "M = $(M)$(M)",
    "$INT(",
    "accounting_group = g",
]


def _submit(text: str) -> None:
    parse_submit(text, "fuzz.sub").job_ads(owner="u")


@FUZZ
@given(_text(SUBMIT))
def test_submit_descriptions(text):
    _only_fairpool_errors(_submit, text)


SCENARIO = [
    "[simulation]",
    'duration = "1h"',
    "duration = 1e300",
    "negotiator_interval = 1e-9",
    "[[machines]]",
    "count = 1000000000",
    'ad = "Cpus = 1"',
    "[[jobs]]",
    'owner = "u"',
    'submit = "executable = x\\nqueue"',
    'runtime = "1m"',
    "start = 1e300",
    "[config]",
    'text = "A = 1"',
    "[[events]]",
    "at = 0",
    'action = "add_machines"',
    "= [[[[[[",
]

SMALL = Limits(jobs=1000, machines=100, cycles=1000)


@FUZZ
@given(_text(SCENARIO))
def test_scenarios(text):
    _only_fairpool_errors(
        lambda t: parse_scenario(t, "fuzz.toml", Path("/nonexistent"), SMALL), text
    )


TIMELINE = [
    "time,event,value",
    "00:00",
    "d1 10:00",
    "-5",
    "claim",
    "activate",
    "keyboard",
    "busy",
    "idle",
    "LoadAvg",
    "KeyboardIdle",
    ",",
    '"',
    "99999999999999",
]


@FUZZ
@given(_text(TIMELINE))
def test_timelines(text):
    _only_fairpool_errors(lambda t: parse_timeline(t, "fuzz.csv"), text)


MAP = ["* u g", "* /^(a+)+$/ g", "* /x/i a,b", "* /(/ g", "*", "# c", "* u", ",,,"]


@FUZZ
@given(_text(MAP))
def test_group_maps(text):
    _only_fairpool_errors(lambda t: GroupMap.parse(t, "fuzz.map").groups_for("aaaa!"), text)


LOG = [
    "107 1 CreationTimestamp 0",
    "101 Accountant. * *",
    "103 Accountant. LastUpdateTime 5",
    "101 Customer.u@d * *",
    "103 Customer.u@d Priority 0.5",
    "103 Customer.u@d Priority x",
    "105",
    "106",
    "102 Customer.u@d",
    "1e999",
]


@FUZZ
@given(_text(LOG))
def test_accountant_logs(text):
    _only_fairpool_errors(lambda t: read_accountant_log(t, "fuzz.log"), text)


SWF = [
    "; UnixStartTime: 0",
    "; UnixStartTime: x",
    "1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1",
    "1e999",
    "nan",
    "-1",
]


def _traces(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "trace")
        path.write_bytes(data)
        for reader in (read_swf, read_htcondor):
            with contextlib.suppress(FairpoolError):
                list(reader(path))


@FUZZ
@given(
    st.one_of(
        _text(SWF + CLASSAD).map(lambda t: t.encode("utf-8", "surrogateescape")),
        st.binary(max_size=200),
    )
)
def test_traces(data):
    _only_fairpool_errors(_traces, data)
