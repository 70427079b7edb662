"""HTCondor's ClassAd conformance cases (tests/data/classad/corpus.jsonl), every case through
both evaluators, compared with the value HTCondor's own library printed."""

import json
from pathlib import Path

import pytest

from fairpool.classad.conformance import EVALUATORS, evaluate_case

CORPUS = Path(__file__).parent.parent / "data" / "classad" / "corpus.jsonl"
CASES = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]


def test_corpus_is_complete():
    assert len(CASES) == 3826
    assert len({c["id"] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("evaluator", sorted(EVALUATORS))
def test_every_case_agrees_with_htcondor(evaluator):
    disagreements = []
    for case in CASES:
        got = evaluate_case(case, evaluator)
        if got != case["expected"]:
            disagreements.append(
                f"{case['id']}: {case['expr']!r} expected {case['expected']} got {got}"
            )
    assert not disagreements, "\n".join(disagreements[:30])
