"""Every queue form, with $(Cluster), $(Process) and $(Item) in the jobs it makes, and the
item lists checked against htcondor2.Submit.itemdata() (submit_oracle.py)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from tests.submit.submit_oracle import AVAILABLE, ask

from fairpool.submit import parse_submit
from fairpool.submit.items import item_rows
from fairpool.submit.lines import QueueLine, read_statements
from fairpool.submit.queue import parse_queue

HEAD = "executable = /bin/echo\narguments = $(Cluster).$(Process):$(Item)\n"


def _args(text: str, cwd: Path | None = None, cluster: int = 5) -> list[str]:
    ads = parse_submit(HEAD + text).job_ads(owner="u", cluster_id=cluster, cwd=cwd)
    return [ad["Args"] for ad in ads]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in ("a.dat", "b.dat", "c.txt", "items.txt"):
        (tmp_path / name).write_text("")
    (tmp_path / "d1").mkdir()
    (tmp_path / "d2").mkdir()
    (tmp_path / "items.txt").write_text("one\ntwo three\n\nfour\n")
    return tmp_path


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("queue", ["5.0:"]),
        ("queue 3", ["5.0:", "5.1:", "5.2:"]),
        ("queue 0", []),
        ("queue 2*2", ["5.0:", "5.1:", "5.2:", "5.3:"]),
        ("queue in (a, b)", ["5.0:a", "5.1:b"]),
        ("queue Item in a b", ["5.0:a", "5.1:b"]),
        ("queue 2 in (x)", ["5.0:x", "5.1:x"]),
        ("queue from (\n a\n # skipped\n b c\n)", ["5.0:a", "5.1:b c"]),
        ("queue from [::2] (\na\nb\nc\n)", ["5.0:a", "5.1:c"]),
        ("queue in [1:] (p q r)", ["5.0:q", "5.1:r"]),
    ],
)
def test_queue_forms_expand_cluster_process_item(statement, expected):
    assert _args(statement) == expected


def test_queue_from_file_and_matching(tree: Path):
    assert _args("queue from items.txt", tree) == ["5.0:one", "5.1:two three", "5.2:four"]
    assert _args("queue matching *.dat", tree) == ["5.0:a.dat", "5.1:b.dat"]
    assert _args("queue matching dirs d*", tree) == ["5.0:d1/", "5.1:d2/"]
    assert _args("queue matching files *", tree) == [
        "5.0:a.dat",
        "5.1:b.dat",
        "5.2:c.txt",
        "5.3:items.txt",
    ]


def test_named_and_multiple_variables():
    text = "executable = e\narguments = $(a)|$(b)|$(Item)\nqueue a,b from (\n1, 2 3\n4\n)\n"
    ads = parse_submit(text).job_ads(owner="u")
    assert [ad["Args"] for ad in ads] == ["1|2 3|", "4||"]


def test_count_from_a_macro():
    ads = parse_submit("executable = e\nN = 3\nqueue $(N)\n").job_ads(owner="u")
    assert [ad["ProcId"] for ad in ads] == [0, 1, 2]


def _rows(text: str, cwd: Path | None = None) -> list[dict[str, str]]:
    statements = read_statements(text, "<t>")
    queue = next(s for s in statements if isinstance(s, QueueLine))
    spec = parse_queue(queue.args, queue.block, "<t>", queue.line)
    return [row for _, row in item_rows(spec, "<t>", cwd)]


ITEM_CASES = [
    "queue x in (a,b,c)\n",
    "queue a in x y, z\n",
    'queue a in "q r" s\n',
    "queue x, y in (a,b,c)\n",
    "queue 2 x in (a)\n",
    "queue x in (a b\nc\n)\n",
    "queue x from (a b\nc\n)\n",
    "queue x from (a b)\n",
    "queue 2 a,b from (\n x1, y1 rest\n # c\n x2 y2 z2\n)\n",
    "queue a,b,c from (\n1 , 2 ,3\n)\n",
    "queue a,b,c from (\n1,,2\n)\n",
    "queue a b from (\nx\ty\n)\n",
    "queue matching *\n",
    "queue matching d*\n",
    "queue f matching files *.dat *.txt\n",
    "queue d matching dirs *\n",
]


@pytest.mark.skipif(not AVAILABLE, reason="htcondor2 not installed")
def test_item_lists_agree_with_htcondor(tree: Path):
    answers = ask([{"text": t, "keys": [], "items": True} for t in ITEM_CASES], cwd=tree)
    for text, answer in zip(ITEM_CASES, answers, strict=True):
        assert _rows(text, tree) == answer["items"], text


def _random_line(rng: random.Random) -> str:
    words = ["a", "bb", "c1", "x_y", "", "7"]
    separators = [" ", ",", ", ", " ,", "\t", "  ", ",,"]
    parts = [rng.choice(words) for _ in range(rng.randint(1, 5))]
    line = "".join(p + rng.choice(separators) for p in parts[:-1]) + parts[-1]
    return line if line.strip(" ,\t") else "z"


@pytest.mark.skipif(not AVAILABLE, reason="htcondor2 not installed")
def test_from_line_splitting_agrees_with_htcondor():
    """Generated item lines (blanks, tabs, commas, empty fields) split as condor_submit does."""
    rng = random.Random(20261123)
    cases = []
    for _ in range(150):
        names = ["v1", "v2", "v3"][: rng.randint(1, 3)]
        line = _random_line(rng)
        cases.append(f"queue {','.join(names)} from (\n{line}\n)\n")
    answers = ask([{"text": t, "keys": [], "items": True} for t in cases])
    for text, answer in zip(cases, answers, strict=True):
        assert _rows(text) == answer["items"], repr(text)
