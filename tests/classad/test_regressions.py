"""Bugs the differential and fuzz tests found, kept as cases (tests/data/classad/regressions.jsonl,
the corpus format, expected values printed by classad2) and run through both evaluators."""

import json
from pathlib import Path

import pytest
from tests.classad.oracle import AVAILABLE, oracle

from fairpool.classad.conformance import EVALUATORS, evaluate_case

DATA = Path(__file__).parent.parent / "data" / "classad" / "regressions.jsonl"
CASES = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]


def test_cases_are_well_formed():
    assert len({c["id"] for c in CASES}) == len(CASES)
    assert all(c["source"] and c["kind"] in ("value", "match") for c in CASES)


@pytest.mark.parametrize("evaluator", sorted(EVALUATORS))
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_regression(case, evaluator):
    assert evaluate_case(case, evaluator) == case["expected"], case["source"]


@pytest.mark.skipif(not AVAILABLE, reason="classad2 (htcondor wheel) not installed")
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_expectation_is_still_classad2s(case):
    """The recorded value is what classad2 says today (guards the data file itself)."""
    if case["kind"] == "match":
        answer = oracle().match(case["my"], case["target"])
        assert ("true" if answer.match else "false") == case["expected"]
    else:
        assert oracle().value(case["expr"], case["my"], case["target"]).value == case["expected"]
