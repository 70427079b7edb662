"""MatchMemo: a claim's next job's match remembered, never a different answer
(classad/match_memo.py)."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st
from tests.classad.strategies import NAMES, match_ads

from fairpool.classad import ClassAd, ClassAdSyntaxError, Expr
from fairpool.classad import match_memo as memo_module
from fairpool.classad.match import symmetric_match
from fairpool.classad.match_memo import MatchMemo

NOW = 1_700_000_000.25
SLOT = ClassAd(
    {
        "Memory": 4096,
        "Cpus": 4,
        "Requirements": Expr("START"),
        "START": Expr('TARGET.Owner != "mallory"'),
    }
)


def _cluster(count: int, **per_job) -> list[ClassAd]:
    """Jobs of one submission: the first one's expressions shared by the rest (as a
    cluster's are), ProcId and ``per_job`` their own."""
    first = ClassAd(
        {
            "Owner": "alice",
            "RequestMemory": 1024,
            "Wanted": Expr("RequestMemory * 2"),
            "Requirements": Expr("TARGET.Memory >= Wanted"),
        }
    )
    jobs = []
    for proc in range(count):
        job = first.copy()
        job["ProcId"] = proc
        for name, values in per_job.items():
            job[name] = values[proc]
        jobs.append(job)
    return jobs


@pytest.fixture
def counted(monkeypatch):
    """How many matches the memo really evaluated."""
    calls = []

    def counting(a, b, *, now):
        calls.append((a, b))
        return symmetric_match(a, b, now=now)

    monkeypatch.setattr(memo_module, "symmetric_match", counting)
    return calls


def test_a_clusters_jobs_are_matched_once(counted):
    memo = MatchMemo()
    for job in _cluster(20):
        assert memo.symmetric_match(job, SLOT, now=NOW) is True
    assert len(counted) == 1


def test_an_attribute_read_through_another_is_looked_at(counted):
    # Wanted reads RequestMemory: a job whose RequestMemory differs is matched anew
    jobs = _cluster(3, RequestMemory=[1024, 8192, 1024])
    memo = MatchMemo()
    assert [memo.symmetric_match(job, SLOT, now=NOW) for job in jobs] == [True, False, True]
    assert len(counted) == 2


def test_the_slots_side_counts_too(counted):
    jobs = _cluster(3, Owner=["alice", "mallory", "alice"])
    memo = MatchMemo()
    assert [memo.symmetric_match(job, SLOT, now=NOW) for job in jobs] == [True, False, True]
    smaller = SLOT.copy()
    smaller["Memory"] = 1024
    assert memo.symmetric_match(jobs[0], smaller, now=NOW) is False
    assert len(counted) == 3


def test_an_attribute_nothing_reads_changes_nothing(counted):
    jobs = _cluster(3, Cmd=["/bin/a", "/bin/b", "/bin/c"], Args=["1", "2", "3"])
    memo = MatchMemo()
    assert all(memo.symmetric_match(job, SLOT, now=NOW) for job in jobs)
    assert len(counted) == 1


def test_the_clock_is_read_again_each_second(counted):
    job = _cluster(1)[0]
    job["Requirements"] = Expr(f"CurrentTime < {int(NOW) + 1} && TARGET.Memory >= Wanted")
    memo = MatchMemo()
    assert memo.symmetric_match(job, SLOT, now=NOW) is True
    assert memo.symmetric_match(job, SLOT, now=NOW + 0.5) is True  # the same second
    assert memo.symmetric_match(job, SLOT, now=NOW + 1) is False
    assert len(counted) == 2


@pytest.mark.parametrize(
    "requirements",
    [
        "random(2) == 0 || true",  # impure
        'eval("TARGET.Memory >= Wanted")',  # reads a name no tree names
        "{TARGET.Memory}[0] >= Wanted",  # a subscript
        "[m = TARGET.Memory].m >= Wanted",  # a nested ad's scope
    ],
)
def test_what_a_tree_does_not_name_is_never_kept(counted, requirements):
    job = _cluster(1)[0]
    job["Requirements"] = Expr(requirements)
    memo = MatchMemo()
    answers = {memo.symmetric_match(job, SLOT, now=NOW) for _ in range(3)}
    assert answers == {symmetric_match(job, SLOT, now=NOW)}
    assert len(counted) == 3


def test_an_ad_chained_to_a_parent_is_never_kept(counted):
    cluster = ClassAd({"RequestMemory": 1024})
    job = ClassAd({"Owner": "alice", "Requirements": Expr("TARGET.Memory >= RequestMemory")})
    job.parent = cluster
    memo = MatchMemo()
    assert memo.symmetric_match(job, SLOT, now=NOW) is True
    cluster["RequestMemory"] = 8192  # the parent changed: the memo could not see it
    assert memo.symmetric_match(job, SLOT, now=NOW) is False
    assert len(counted) == 2


def test_a_chained_ad_is_not_served_an_outcome_kept_without_its_parent(counted):
    job = ClassAd({"Owner": "alice", "Requirements": Expr("TARGET.Memory >= RequestMemory")})
    memo = MatchMemo()
    assert memo.symmetric_match(job, SLOT, now=NOW) is False  # RequestMemory undefined
    chained = job.copy()  # the same expressions, and a parent that defines RequestMemory
    chained.parent = ClassAd({"RequestMemory": 1024})
    assert memo.symmetric_match(chained, SLOT, now=NOW) is True
    assert len(counted) == 2


def _ad(text: str) -> ClassAd | None:
    try:
        return ClassAd(text)
    except ClassAdSyntaxError:
        return None


_change = st.tuples(
    st.sampled_from(("job", "slot")),
    st.sampled_from(NAMES),
    st.sampled_from(("1", "2", '"x"', "undefined", "a + 1", "TARGET.b", "time() > 5", None)),
)


@settings(max_examples=300, deadline=None)
@given(match_ads(), match_ads(), st.lists(st.tuples(st.lists(_change, max_size=3), st.booleans())))
def test_the_memo_answers_as_the_match_does(job_text, slot_text, steps):
    """Differential: jobs and slots that share expressions and differ in a few
    attributes (replaced, removed, or the same text parsed again), the clock moving."""
    job, slot = _ad(job_text), _ad(slot_text)
    assume(job is not None and slot is not None)
    memo = MatchMemo()
    now = NOW
    assert memo.symmetric_match(job, slot, now=now) == symmetric_match(job, slot, now=now)
    for changes, tick in steps:
        job, slot = job.copy(), slot.copy()  # copies share their expressions
        for side, name, text in changes:
            ad = job if side == "job" else slot
            if text is None:
                ad.pop(name, None)
            else:
                ad[name] = Expr(text)
        now += 1 if tick else 0.1
        note(f"job  = {job}\nslot = {slot}\nnow  = {now}")
        assert memo.symmetric_match(job, slot, now=now) == symmetric_match(job, slot, now=now)
