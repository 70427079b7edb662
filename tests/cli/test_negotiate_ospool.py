"""``fairpool negotiate`` over the real OSPool sample (partitionable, dynamic and static
slots with the pool's own START, Requirements and Rank) with submit files of four users."""

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from fairpool.classad import parse_ads, requirements_met, symmetric_match
from fairpool.cli.main import main
from fairpool.submit import read_submit

DATA = Path(__file__).parent.parent / "data"
SAMPLE = DATA / "ads" / "ospool" / "pool_sample.ads.gz"
SUBMIT = DATA / "submit_pool"
USERS = {"alice": "chemistry", "bob": "genomics", "carol": "gpu", "dan": "huge"}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ospool")
    out = tmp / "out.json"
    submits = [f"--submit={user}={SUBMIT / name}.sub" for user, name in USERS.items()]
    args = ["--state", str(tmp / "state"), "--cycles", "2", "--json", str(out)]
    result = CliRunner().invoke(main, ["negotiate", "--slots", str(SAMPLE), *submits, *args])
    assert result.exit_code == 0, result.output
    return result.output, json.loads(out.read_text())["cycles"]


def _slots():
    with gzip.open(SAMPLE, "rt") as handle:
        return {ad.eval("Name"): ad for ad in parse_ads(handle) if ad.eval("MyType") == "Machine"}


def _jobs():
    """The same job ads the command made: one cluster per file in the order given."""
    jobs = {}
    for cluster, (user, name) in enumerate(USERS.items(), 1):
        for ad in read_submit(SUBMIT / f"{name}.sub").job_ads(owner=user, cluster_id=cluster):
            jobs[f"{ad.eval('ClusterId')}.{ad.eval('ProcId')}"] = ad
    return jobs


def test_every_match_satisfies_the_slots_and_the_jobs_requirements(run):
    _, cycles = run
    slots, jobs = _slots(), _jobs()
    first = cycles[0]
    assert first["matches"], "the sample has free resources that these jobs fit"
    for match in first["matches"]:
        slot, job = slots[match["slot"]], jobs[match["job"]]
        now = first["time"]
        assert requirements_met(job, slot, now=now), match
        assert requirements_met(slot, job, now=now), match
    assert len({m["job"] for m in first["matches"]}) == len(first["matches"])


def test_who_got_what(run):
    output, cycles = run
    counts = Counter(m["submitter"].partition("@")[0] for m in cycles[0]["matches"])
    # the sample is nearly full: one-core jobs find room, four-core ones only where a
    # partitionable slot still has 4 cores and 8 GB free
    assert counts["alice"] > 0
    assert "dan" not in counts  # 900 GB fits nowhere: rejected with a reason
    assert {r["reason"] for r in cycles[0]["rejections"] if r["submitter"].startswith("dan")} == {
        "no match found"
    }
    assert counts["carol"] <= 2  # two GPU slots in the sample, 3 GPUs among them
    assert "Matched 1.0 alice@" in output
    # the second cycle finds the first cycle's jobs running and charges their users
    assert cycles[1]["submitters"]["alice@localdomain"]["running"] >= counts["alice"]


def test_no_match_found_means_no_free_slot_accepts_the_job(run):
    """A job rejected with "no match found" (dan's 900 GB one; jobs that came after the
    cycle's matches took the room) is checked against the sample itself: no unclaimed
    slot the cycle left unmatched accepts it both ways (a partitionable slot without a
    consumption policy is matched once per cycle)."""
    _, cycles = run
    slots, jobs = _slots(), _jobs()
    taken = {m["slot"] for m in cycles[0]["matches"]}
    free = [s for n, s in slots.items() if s.eval("State") == "Unclaimed" and n not in taken]
    now = cycles[0]["time"]
    rejected = [r["job"] for r in cycles[0]["rejections"] if r["reason"] == "no match found"]
    assert "4.0" in rejected  # dan's first job
    for job_id in rejected:
        assert not any(symmetric_match(jobs[job_id], slot, now=now) for slot in free), job_id
