"""Submit parity: every tests/data/submit/NN_name.sub against its hand-written .expected.

Each ``.expected`` file holds one old-ClassAd block per job (blank lines between blocks),
with ``#`` comments giving the reasoning from HTCondor's documentation. Only the attributes
a block lists are compared (by their parsed and re-printed expressions). A comment line
``#@ procs A-B`` makes the block stand for procs A..B of the same cluster, ``#@ absent X Y``
lists attributes the ad must not have; a first line
``# fairpool-test: key=value ...`` in the .sub sets job_ads() arguments (owner, cluster,
qdate, uid_domain, map, cwd, config).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fairpool.classad import ClassAd, parse_ads
from fairpool.submit import GroupMap, read_submit

DATA = Path(__file__).parents[1] / "data" / "submit"
CASES = sorted(DATA.glob("[0-9][0-9]_*.sub"))
_PROCS = re.compile(r"#@\s*procs\s+(\d+)-(\d+)")
_ABSENT = re.compile(r"#@\s*absent\s+(.+)")


def _options(sub: Path) -> dict:
    options: dict = {"owner": "alice", "cluster_id": 1, "qdate": 1700000000}
    first = sub.read_text().splitlines()[0]
    if not first.startswith("# fairpool-test:"):
        return options
    for pair in first.split(":", 1)[1].split():
        key, value = pair.split("=", 1)
        if key in ("cluster", "qdate"):
            options["cluster_id" if key == "cluster" else key] = int(value)
        elif key == "map":
            options["group_map"] = GroupMap.read(DATA / value)
        elif key == "cwd":
            options["cwd"] = DATA / value
        elif key == "config":
            options["config"] = dict(item.split(":", 1) for item in value.split(","))
        else:
            options[key] = value
    return options


def _expected(path: Path) -> list[tuple[ClassAd, set[str]]]:
    """(expected ad, attributes that must be absent) per job; ``#@ procs A-B`` blocks
    repeat for each proc."""
    blocks = path.read_text().split("\n\n")
    ads: list[tuple[ClassAd, set[str]]] = []
    for block in blocks:
        parsed = list(parse_ads(block, fmt="old", name=str(path)))
        if not parsed:
            continue
        absent = {name for m in _ABSENT.finditer(block) for name in m.group(1).split()}
        repeat = _PROCS.search(block)
        first, last = (int(repeat.group(1)), int(repeat.group(2))) if repeat else (0, 0)
        for proc in range(first, last + 1):
            ad = parsed[0].copy()
            if repeat:
                ad["ProcId"] = proc
            ads.append((ad, absent))
    return ads


def test_suite_is_large_enough():
    assert len(CASES) >= 30
    assert all(case.with_suffix(".expected").exists() for case in CASES)


@pytest.mark.parametrize("sub", CASES, ids=lambda p: p.stem)
def test_job_ads_match_documented_values(sub: Path):
    got = read_submit(sub).job_ads(**_options(sub))
    expected = _expected(sub.with_suffix(".expected"))
    assert len(got) == len(expected), f"{sub.name}: {len(got)} ads, expected {len(expected)}"
    for index, (ad, (want, absent)) in enumerate(zip(got, expected, strict=True)):
        present = sorted(name for name in absent if name in ad)
        assert not present, f"{sub.name} ad {index}: has {present}, expected none of them"
        for name in want:
            assert name in ad, f"{sub.name} ad {index}: {name} missing"
            assert str(ad.lookup(name)) == str(want.lookup(name)), (
                f"{sub.name} ad {index}: {name} = {ad.lookup(name)}, expected {want.lookup(name)}"
            )
