"""The schedd's job queue and history in a real database, SQLite and PostgreSQL
(store/jobs.py): what is submitted and saved is what a restarted schedd loads, a
cluster's ad is stored once, the next cluster number survives, leaving the queue is all
or nothing, and schedds sharing one database each see only their own jobs.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from fairpool.classad import ClassAd, Expr
from fairpool.schedd.queue import COMPLETED, IDLE, REMOVED, RUNNING
from fairpool.store import jobs as jobs_module
from fairpool.store.database import job_clusters, job_history, jobs
from fairpool.store.jobs import JobStore

EXAMPLES = settings.default.max_examples  # 100; HYPOTHESIS_PROFILE=ci: 400
OWN_VALUES = ("1", '"out.0"', "RequestMemory * 2", "{1, 2}", "[a = 1]", "undefined", "2.5")


def cluster_of(
    number: int, procs: int, owner: str = "alice"
) -> tuple[ClassAd, list[ClassAd], list[tuple[int, str]]]:
    """A cluster as the schedd makes one: its ad, its jobs (each a copy of the cluster ad,
    sharing its expressions, with its own attributes over it) and each job's own
    attributes as stored (ProcId, JSON text)."""
    cluster = ClassAd(
        {
            "ClusterId": number,
            "Owner": owner,
            "JobStatus": IDLE,
            "Cmd": "/bin/sleep",
            "RequestMemory": 128,
            "Requirements": Expr("TARGET.Memory >= RequestMemory"),
            "Env": "A=1 B=ü",
        }
    )
    made, rows = [], []
    for proc in range(procs):
        own = {"ProcId": proc, "Args": f"{proc}", "Out": f"out.{proc}"}
        job = cluster.copy()
        for name, value in own.items():
            job[name] = value
        made.append(job)
        rows.append((proc, json.dumps(own)))
    return cluster, made, rows


def rows_of(engine, table) -> list:
    with engine.connect() as conn:
        return conn.execute(select(table)).all()


def test_a_submission_is_what_a_restarted_schedd_loads(engine, reopen):
    first, second = cluster_of(1, 3), cluster_of(2, 2, owner="bob")
    JobStore(engine).submit([(first[0], first[2]), (second[0], second[2])], next_cluster=3)
    stored = JobStore(reopen()).load()
    assert stored.next_cluster == 3
    assert stored.clusters == {1: first[0], 2: second[0]}
    assert stored.jobs == first[1] + second[1]  # in cluster and proc order
    for job in stored.jobs:  # jobs read back share their cluster's expressions
        cluster = stored.clusters[job["ClusterId"]]
        assert job.lookup("Requirements") is cluster.lookup("Requirements")
        assert job.lookup("Cmd") is cluster.lookup("Cmd")


def test_a_clusters_ad_is_stored_once_and_jobs_only_their_own(engine):
    cluster, procs, rows = cluster_of(7, 4)
    store = JobStore(engine)
    store.submit([(cluster, rows)], next_cluster=8)
    procs[1]["JobStatus"] = RUNNING
    store.save([(job, cluster) for job in procs])  # every job saved: only its own goes
    clusters = {row.cluster: json.loads(row.ad) for row in rows_of(engine, job_clusters)}
    assert clusters[0] == {"NextClusterNum": 8}  # the header row
    assert clusters[7]["Cmd"] == "/bin/sleep" and clusters[7]["ClusterId"] == 7
    for row in rows_of(engine, jobs):
        own = json.loads(row.ad)
        extra = {"JobStatus"} if row.proc == 1 else set()
        assert set(own) == {"ProcId", "Args", "Out"} | extra  # nothing of the cluster's
        assert own["ProcId"] == row.proc and row.cluster == 7


@settings(
    max_examples=EXAMPLES * 3 // 10,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 3),  # which job
            st.sampled_from(("JobStatus", "NumJobStarts", "RemoteHost", "Args", "NewAttr")),
            st.sampled_from(OWN_VALUES),
        ),
        max_size=12,
    )
)
def test_saved_changes_come_back(engine, reopen, edits):
    """One database for every example, each example its own cluster."""
    store = JobStore(engine)
    number = store.load().next_cluster
    cluster, procs, rows = cluster_of(number, 4)
    store.submit([(cluster, rows)], next_cluster=number + 1)
    for which, attribute, value in edits:
        procs[which].insert_expr(attribute, Expr(value))
        store.save([(procs[which], cluster)])
    store.save([])  # nothing to save: no transaction
    stored = JobStore(reopen()).load()
    assert [job for job in stored.jobs if job["ClusterId"] == number] == procs


def test_an_attribute_removed_from_a_job_stays_removed(engine, reopen):
    """Jobs submitted on hold have HoldReason in their cluster ad; release removes it."""
    cluster, procs, rows = cluster_of(1, 2)
    for ad in (cluster, *procs):
        ad["JobStatus"] = 5
    cluster["HoldReason"] = "submitted on hold at user's request"
    for job in procs:
        job.insert_expr("HoldReason", cluster.lookup("HoldReason"))
    store = JobStore(engine)
    store.submit([(cluster, rows)], next_cluster=2)
    del procs[0]["HoldReason"]  # condor_release (queue.release pops it)
    procs[0]["JobStatus"] = IDLE
    store.save([(procs[0], cluster)])
    stored = JobStore(reopen()).load()
    assert "HoldReason" not in stored.jobs[0]


def test_the_next_cluster_number_survives_its_jobs(engine, reopen):
    store = JobStore(engine)
    assert store.load().next_cluster == 1  # an empty queue starts at 1
    cluster, procs, rows = cluster_of(1, 2)
    store.submit([(cluster, rows)], next_cluster=2)
    second, _, second_rows = cluster_of(2, 1)
    store.submit([(second, second_rows)], next_cluster=3)
    for job in procs:
        job["JobStatus"] = COMPLETED
    store.leave([(job, cluster) for job in procs], empty_clusters=[1])
    stored = JobStore(reopen()).load()
    assert stored.next_cluster == 3  # cluster 1 is gone, its number is not given again
    assert set(stored.clusters) == {2}
    assert [j["ClusterId"] for j in stored.jobs] == [2]


def test_leaving_moves_jobs_to_the_history_with_the_other_changes(engine, reopen):
    cluster, procs, rows = cluster_of(1, 3)
    store = JobStore(engine)
    store.submit([(cluster, rows)], next_cluster=2)
    procs[0].update({"JobStatus": COMPLETED, "CompletionDate": 5_000, "ExitCode": 0})
    procs[2]["JobStatus"] = RUNNING  # saved in the same transaction
    store.leave([(procs[0], cluster)], empty_clusters=[], changed=[(procs[2], cluster)])
    stored = JobStore(reopen()).load()
    assert [j["ProcId"] for j in stored.jobs] == [1, 2]
    assert stored.jobs[1]["JobStatus"] == RUNNING
    (record,) = store.history()
    assert record == procs[0]  # whole, cluster attributes and all
    ((owner, completed),) = [(r.owner, r.completed) for r in rows_of(engine, job_history)]
    assert (owner, completed) == ("alice", 5_000)


def _where(engine) -> tuple[set, set]:
    with engine.connect() as conn:
        queued = {(r.cluster, r.proc) for r in conn.execute(select(jobs.c.cluster, jobs.c.proc))}
        done = {
            (r.cluster, r.proc)
            for r in conn.execute(select(job_history.c.cluster, job_history.c.proc))
        }
    return queued, done


@pytest.mark.parametrize("failing", ["delete", "history", "changed"])
def test_a_leave_that_fails_midway_changes_nothing(engine, monkeypatch, failing):
    cluster, procs, rows = cluster_of(1, 3)
    store = JobStore(engine)
    store.submit([(cluster, rows)], next_cluster=2)
    gone = [(procs[0], cluster), (procs[2], cluster)]
    changed = []
    if failing == "delete":  # the second job's delete fails after the first one's ran
        bad = procs[1].copy()
        del bad["ProcId"]
        gone.insert(1, (bad, cluster))
    elif failing == "history":  # the history rows fail after every delete ran
        made = jobs_module._history_row

        def history_row(job: ClassAd, *rest: object) -> dict:
            if job is procs[2]:
                raise OSError("the disk is full")
            return made(job, *rest)

        monkeypatch.setattr(jobs_module, "_history_row", history_row)
    else:  # the last changed job fails after the deletes and the history rows
        bad = procs[1].copy()
        del bad["ClusterId"]
        changed = [(bad, cluster)]
    before = _where(engine)
    with pytest.raises((KeyError, OSError)):
        store.leave(gone, empty_clusters=[1], changed=changed)
    assert _where(engine) == before == ({(1, 0), (1, 1), (1, 2)}, set())
    assert sorted(row.cluster for row in rows_of(engine, job_clusters)) == [0, 1]


@settings(
    max_examples=EXAMPLES * 3 // 10,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(st.lists(st.integers(0, 5), max_size=3), max_size=4))
def test_a_job_is_in_the_queue_or_the_history_never_both_nor_neither(engine, batches):
    store = JobStore(engine)
    number = store.load().next_cluster  # each example its own cluster
    cluster, procs, rows = cluster_of(number, 6)
    store.submit([(cluster, rows)], next_cluster=number + 1)
    everyone = {(number, p) for p in range(6)}
    left: set[int] = set()
    for batch in batches:
        leaving = sorted(set(batch) - left)
        store.leave([(procs[p], cluster) for p in leaving], empty_clusters=[])
        left |= set(leaving)
        queued, done = (found & everyone for found in _where(engine))
        assert queued.isdisjoint(done)
        assert queued | done == everyone
        assert done == {(number, p) for p in left}


def test_history_is_newest_first_with_constraint_and_limit(engine):
    cluster, procs, rows = cluster_of(1, 5)
    store = JobStore(engine)
    store.submit([(cluster, rows)], next_cluster=2)
    for proc in (3, 0, 4, 1, 2):  # the order they leave in
        job = procs[proc]
        job.update({"JobStatus": COMPLETED if proc % 2 == 0 else REMOVED, "CompletionDate": proc})
        store.leave([(job, cluster)], empty_clusters=[])
    assert [j["ProcId"] for j in store.history()] == [2, 1, 4, 0, 3]
    completed = Expr(f"JobStatus == {COMPLETED}")
    assert [j["ProcId"] for j in store.history(completed)] == [2, 4, 0]
    assert [j["ProcId"] for j in store.history(completed, limit=2)] == [2, 4]
    assert [j["ProcId"] for j in store.history(limit=1)] == [2]
    assert list(store.history(limit=0)) == []
    assert list(store.history(Expr('Owner == "bob"'))) == []
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(job_history)).scalar() == 5


def test_schedds_sharing_a_database_keep_their_own_queues_and_histories(engine, reopen):
    """Two submit hosts' schedds on one database: the same cluster numbers, apart."""
    first, second = JobStore(engine, "schedd@a"), JobStore(reopen(), "schedd@b")
    a_cluster, a_procs, a_rows = cluster_of(1, 2)
    b_cluster, b_procs, b_rows = cluster_of(1, 3, owner="bob")
    first.submit([(a_cluster, a_rows)], next_cluster=2)
    second.submit([(b_cluster, b_rows)], next_cluster=2)
    b_procs[0].update({"JobStatus": COMPLETED, "CompletionDate": 7})
    second.leave([(b_procs[0], b_cluster)], empty_clusters=[])
    a_procs[1]["JobStatus"] = RUNNING
    first.save([(a_procs[1], a_cluster)])
    again_a, again_b = JobStore(reopen(), "schedd@a").load(), JobStore(reopen(), "schedd@b").load()
    assert again_a.jobs == a_procs and again_a.clusters == {1: a_cluster}
    assert again_b.jobs == b_procs[1:] and again_b.clusters == {1: b_cluster}
    assert [j["Owner"] for j in second.history()] == ["bob"] and list(first.history()) == []
    assert JobStore(engine, "schedd@c").load().jobs == []  # a third schedd starts empty
