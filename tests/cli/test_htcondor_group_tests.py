"""HTCondor's own regression tests for group quotas and concurrency limits, run unchanged
through ``fairpool negotiate``: each test's configuration (which also describes its one
machine: NUM_CPUS, SLOT_TYPE_1, ...) and its submit file, for enough cycles to reach the
steady state the test's header asserts (tests/data/configs/htcondor-tests)."""

import json
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from fairpool.cli.main import main

TESTS = Path(__file__).parent.parent / "data" / "configs" / "htcondor-tests"


def _running(name: str, tmp_path: Path, cycles: int) -> dict[str, int]:
    """Running jobs per submitter (without the domain) after the last cycle."""
    out = tmp_path / "out.json"
    result = CliRunner().invoke(
        main,
        [
            "negotiate",
            *("--config", str(TESTS / f"{name}.config")),
            *("--submit", str(TESTS / f"{name}.sub")),
            *("--owner", "user", "--cycles", str(cycles), "--interval", "20"),
            *("--start", "1750000000", "--state", str(tmp_path / "state")),
            *("--json", str(out), "--quiet"),
        ],
    )
    assert result.exit_code == 0, result.output
    last = json.loads(out.read_text())["cycles"][-1]
    return {
        name.rpartition("@")[0]: figures["running"]
        for name, figures in last["submitters"].items()
        if figures["running"]
    }


def test_hgq_autoregroup(tmp_path):
    # header: "2 a.user, 2 b.user" on NUM_CPUS = 4. Quotas a = b = 1 take one slot each;
    # autoregroup lets both negotiate again in <none> for the two slots left over.
    assert _running("hgq_autoregroup", tmp_path, 3) == {"a.user": 2, "b.user": 2}


def test_hgq_negfail(tmp_path):
    # header: "20 a.a.user, 5 b.a.user, 5 b.b.user" on 40 static slots; a.b's jobs never
    # match. a.a converges to its 20 over several cycles (S14); b.a and b.b share the 10
    # low slots their Requirements allow.
    assert _running("hgq_negfail", tmp_path, 8) == {"a.a.user": 20, "b.a.user": 5, "b.b.user": 5}


def test_cp_cclim_acctgrp(tmp_path):
    # header: "1 a, 2 b, 2 c": one 8-core/150 MB partitionable slot with a consumption
    # policy of 25 MB a job (6 jobs fit, SLOT_WEIGHT floor(Memory/25) = 6); quotas a 1,
    # b 2, c 3, no surplus; c's jobs also take the yyz limit of 2.
    running = _running("cp_cclim_acctgrp", tmp_path, 3)
    by_group = Counter()
    for submitter, count in running.items():
        by_group[submitter.partition(".")[0]] += count
    assert by_group == {"a": 1, "b": 2, "c": 2}
