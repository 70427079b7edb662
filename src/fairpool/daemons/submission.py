"""A submission's clusters as the schedd queues them: each cluster's ad numbered and
dated, its jobs (copies of it with their own attributes, each with its GlobalJobId) and
the rows the store keeps of each job. Checked whole before anything is queued, so a
refused submission leaves the queue as it was."""

from __future__ import annotations

import json
from typing import Any

from ..classad import ClassAd, Expr
from ..classad.ad import node_of
from ..classad.jsonads import ad_from_json, expr_from_json
from ..schedd.queue import HELD, IDLE
from .errors import BadRequest, Forbidden
from .identity import Caller

__all__ = ["cluster_of"]


def cluster_of(
    given: Any, number: int, caller: Caller, now: float, domain: str, schedd_name: str
) -> tuple[ClassAd, list[ClassAd], list[tuple[int, str]]]:
    """A submitted cluster's ad, its jobs (each a copy of the cluster's ad with its own
    attributes), and each job's own attributes as stored, numbered ``number`` by the
    schedd ``schedd_name`` of UID_DOMAIN ``domain``; a refusal names the job and why."""
    if not isinstance(given, dict) or not isinstance(given.get("procs"), list):
        raise BadRequest("each cluster needs an ad and a list of procs")
    if not given["procs"]:  # as HTCondor's schedd, which keeps no cluster without jobs
        raise BadRequest(f"cluster {number}: expected at least one job in procs")
    cluster = ad_from_json(given.get("ad"), f"cluster {number}")
    owner = cluster.get("Owner")
    if owner != caller.name and caller.uid != 0:
        raise Forbidden(f"Owner {owner!r} is not the submitting user {caller.name!r}")
    cluster.update(
        {
            "ClusterId": number,
            "QDate": int(now),
            "EnteredCurrentStatus": int(now),
            "TotalSubmitProcs": len(given["procs"]),
        }
    )
    cluster.setdefault("User", f"{owner}@{domain}")
    if cluster.get("JobStatus") not in (IDLE, HELD):
        cluster["JobStatus"] = IDLE
    procs, rows = [], []
    for place, proc in enumerate(given["procs"]):
        where = f"job {number}.{place}"
        if not isinstance(proc, dict):
            raise BadRequest(f"{where}: expected a JSON object")
        if any(k.lower() == "owner" and v != owner for k, v in proc.items()):
            raise Forbidden(f"{where}: an Owner other than its cluster's ({owner!r})")
        job = cluster.copy()
        exprs, names = job._exprs, job._names
        for name, value in proc.items():
            key = name.lower()
            exprs[key] = expr_from_json(value, f"{where}, attribute {name}")
            names.setdefault(key, name)
        proc_id = job.get("ProcId")
        if type(proc_id) is not int or _names_its_cluster(proc):
            raise BadRequest(f"{where}: a whole ProcId, and no ClusterId of its own")
        own = {**proc, "GlobalJobId": f"{schedd_name}#{number}.{proc_id}#{int(now)}"}
        job.insert_expr("GlobalJobId", Expr._from_node(node_of(own["GlobalJobId"])))
        if job.get("JobStatus") not in (IDLE, HELD):
            job["JobStatus"] = own["JobStatus"] = IDLE
        procs.append(job)
        rows.append((proc_id, json.dumps(own, separators=(",", ":"))))
    return cluster, procs, rows


def _names_its_cluster(proc: dict[str, Any]) -> bool:
    """Whether a job's own attributes name its cluster (the schedd numbers clusters)."""
    return any(name.lower() == "clusterid" for name in proc)
