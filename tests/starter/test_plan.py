"""plan_job made once for the expressions it reads: the jobs of a cluster share one plan,
and any input that differs, or a RequestCpus that reads other attributes, makes anew."""

from __future__ import annotations

from fairpool.classad import ClassAd, Expr
from fairpool.starter import plan as plans
from fairpool.starter.plan import plan_job

CLUSTER = {"Iwd": "/tmp/w", "Cmd": "/bin/true", "Owner": "alice", "RequestCpus": 2}


def test_jobs_sharing_their_inputs_share_one_plan(monkeypatch):
    cluster = ClassAd(CLUSTER)
    first, second = cluster.copy(), cluster.copy()
    first["ProcId"], second["ProcId"] = 0, 1  # not an input
    made = []
    real = plans._read
    monkeypatch.setattr(plans, "_read", lambda ad: made.append(ad) or real(ad))
    assert plan_job(first) is plan_job(second)
    assert len(made) <= 1
    second["Arguments"] = "x y"
    assert plan_job(second).arguments == ("x", "y") and plan_job(first).arguments == ()


def test_a_request_cpus_expression_is_read_at_each_plan():
    ad = ClassAd(CLUSTER)
    ad.insert_expr("RequestCpus", Expr("MY.Wanted"))
    ad["Wanted"] = 3
    assert plan_job(ad).cpus == 3
    ad["Wanted"] = 5
    assert plan_job(ad).cpus == 5
