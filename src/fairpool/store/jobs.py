"""The schedd's job queue and history in the pool's database (database.py).

A cluster's ad is stored once, and beside it each job's attributes that differ from it,
as HTCondor's job queue keeps cluster and proc ads: a submission of 100,000 jobs writes
one cluster ad and 100,000 small rows, and jobs read back share their cluster's
expressions. The header row (cluster 0) holds ``NextClusterNum``, so cluster numbers
are never given twice, even after their jobs have gone.

Each write is one transaction: a whole submission; the jobs changed since the last
save; jobs leaving the queue, deleted and added to the history together (so after a
crash a job is in the queue or in the history, never both, never neither).

Every row names its schedd, so that the schedds of several submit hosts can share one
database; a store reads and writes only its own schedd's rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import msgspec
from sqlalchemy import Connection, Engine, bindparam, delete, insert, select, update

from ..classad import ClassAd, Expr
from ..classad.jsonads import ad_from_json, ad_to_json, expr_to_json
from ..classad.match import evaluate, satisfied
from .adjson import JsonText
from .database import job_clusters, job_history, jobs
from .group_commit import Write
from .prepared import Prepared

__all__ = ["JobStore", "StoredQueue"]

_HEADER = 0
_JOB = (jobs.c.schedd == bindparam("s"), jobs.c.cluster == bindparam("c"))
_DELETE_CLUSTER = delete(job_clusters).where(
    job_clusters.c.schedd == bindparam("s"), job_clusters.c.cluster == bindparam("c")
)
# the writes at each job's start and end, run on the driver's cursor (prepared.py)
_UPDATE = Prepared(
    update(jobs).where(*_JOB, jobs.c.proc == bindparam("p")).values(ad=bindparam("ad"))
)
_DELETE = Prepared(delete(jobs).where(*_JOB, jobs.c.proc == bindparam("p")))
_HISTORY_COLUMNS = ("cluster", "proc", "owner", "completed", "ad", "schedd")
_RECORD = Prepared(insert(job_history).values({n: bindparam(n) for n in _HISTORY_COLUMNS}))
_FORGET_CLUSTER = Prepared(_DELETE_CLUSTER)


@dataclass
class StoredQueue:
    """What a schedd starts from: the next cluster number, cluster ads, job ads."""

    next_cluster: int
    clusters: dict[int, ClassAd]
    jobs: list[ClassAd]


class JobStore:
    """One schedd's queue and history (``schedd``: its name in a shared database)."""

    def __init__(self, engine: Engine, schedd: str = "") -> None:
        self.engine = engine
        self.schedd = schedd
        self._history_text = JsonText()  # its history rows (adjson.py)

    def load(self) -> StoredQueue:
        mine = jobs.c.schedd == self.schedd
        with self.engine.connect() as conn:
            clusters = {
                row.cluster: ad_from_json(json.loads(row.ad), f"cluster {row.cluster}")
                for row in conn.execute(
                    select(job_clusters).where(job_clusters.c.schedd == self.schedd)
                )
            }
            rows = conn.execute(
                select(jobs).where(mine).order_by(jobs.c.cluster, jobs.c.proc)
            ).all()
        header = clusters.pop(_HEADER, ClassAd())
        found = []
        for row in rows:
            job = clusters[row.cluster].copy()
            own = json.loads(row.ad)
            for name in own.pop(_DELETED, ()):
                job.pop(name, None)
            for name, expr in ad_from_json(own, f"job {row.cluster}.{row.proc}")._exprs.items():
                job.insert_expr(name, expr)
            found.append(job)
        start = header.get("NextClusterNum")
        return StoredQueue(start if type(start) is int else 1, clusters, found)

    def submit(
        self, clusters: list[tuple[ClassAd, list[tuple[int, str]]]], next_cluster: int
    ) -> None:
        """A whole submission: each cluster's ad and its jobs' own attributes (ProcId
        and JSON text), and the next cluster number, in one transaction."""
        with self.engine.begin() as conn:
            for cluster_ad, rows in clusters:
                number = cluster_ad["ClusterId"]
                ad = _dump(ad_to_json(cluster_ad))
                conn.execute(insert(job_clusters).values(schedd=self.schedd, cluster=number, ad=ad))
                conn.execute(
                    insert(jobs),
                    [
                        {"schedd": self.schedd, "cluster": number, "proc": proc, "ad": text}
                        for proc, text in rows
                    ],
                )
            self._set_next(conn, next_cluster)

    def save(self, changed: Iterable[tuple[ClassAd, ClassAd]]) -> None:
        """The rows of changed jobs, each given with its cluster's ad."""
        self._commit(self.saving(changed))

    def leave(
        self,
        gone: Iterable[tuple[ClassAd, ClassAd]],
        empty_clusters: Iterable[int],
        changed: Iterable[tuple[ClassAd, ClassAd]] = (),
    ) -> None:
        """Jobs leave the queue for the history (each given with its cluster's ad), the
        clusters left with no job go, and other changed jobs are saved, at once."""
        self._commit(self.leaving(gone, empty_clusters, changed))

    def saving(self, changed: Iterable[tuple[ClassAd, ClassAd]]) -> Write | None:
        """``save``'s write, its rows taken from the ads now (None: nothing changed), for
        a group commit (group_commit.py)."""
        rows = [
            {
                "s": self.schedd,
                "c": job["ClusterId"],
                "p": job["ProcId"],
                "ad": _dump(_diff(job, cluster)),
            }
            for job, cluster in changed
        ]
        if not rows:
            return None

        def write(conn: Connection) -> None:
            _UPDATE.run(conn, rows)

        return write

    def leaving(
        self,
        gone: Iterable[tuple[ClassAd, ClassAd]],
        empty_clusters: Iterable[int],
        changed: Iterable[tuple[ClassAd, ClassAd]] = (),
    ) -> Write:
        """``leave``'s write, its rows taken from the ads now."""
        keys = [{"s": self.schedd, "c": job["ClusterId"], "p": job["ProcId"]} for job, _ in gone]
        history = [
            {**_history_row(job, self._history_text), "schedd": self.schedd} for job, _ in gone
        ]
        empty = [{"s": self.schedd, "c": number} for number in empty_clusters]
        update_rows = self.saving(changed)

        def write(conn: Connection) -> None:
            _DELETE.run(conn, keys)
            _RECORD.run(conn, history)
            _FORGET_CLUSTER.run(conn, empty)
            if update_rows is not None:
                update_rows(conn)

        return write

    def _commit(self, write: Write | None) -> None:
        if write is not None:
            with self.engine.begin() as conn:
                write(conn)

    def history(
        self,
        constraint: Expr | None = None,
        limit: int | None = None,
        now: float = 0.0,
        since: Expr | None = None,
    ) -> Iterator[ClassAd]:
        """Jobs that left the queue, newest first, that satisfy ``constraint``; with
        ``since``, only those newer than the first record it holds of (condor_history
        -since)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(job_history.c.ad)
                .where(job_history.c.schedd == self.schedd)
                .order_by(job_history.c.id.desc())
            )
            given = 0
            for (text,) in rows:
                if limit is not None and given >= limit:
                    return
                ad = ad_from_json(json.loads(text), "a history record")
                if since is not None and satisfied(evaluate(since, ad, now=now)):
                    return
                if constraint is None or satisfied(evaluate(constraint, ad, now=now)):
                    given += 1
                    yield ad

    def _set_next(self, conn: Connection, next_cluster: int) -> None:
        conn.execute(_DELETE_CLUSTER, {"s": self.schedd, "c": _HEADER})
        header = _dump({"NextClusterNum": next_cluster})
        conn.execute(insert(job_clusters).values(schedd=self.schedd, cluster=_HEADER, ad=header))


_DELETED = "__deleted__"  # a job row's list of its cluster's attributes the job dropped


def _diff(job: ClassAd, cluster: ClassAd) -> dict[str, object]:
    """The job's attributes that are not its cluster's (by expression identity), and the
    cluster's attributes it no longer has (condor_release drops a cluster's HoldReason)."""
    shared = cluster._exprs
    names = job._names
    own: dict[str, object] = {
        names[key]: expr_to_json(expr)
        for key, expr in job._exprs.items()
        if shared.get(key) is not expr
    }
    dropped = [cluster._names[key] for key in shared if key not in job._exprs]
    if dropped:
        own[_DELETED] = dropped
    return own


def _history_row(job: ClassAd, text: JsonText) -> dict[str, object]:
    owner = job.get("Owner")
    completed = job.get("CompletionDate")
    return {
        "cluster": job["ClusterId"],
        "proc": job["ProcId"],
        "owner": owner if isinstance(owner, str) else "",
        "completed": completed if type(completed) is int else 0,
        "ad": text.write(job),
    }


def _dump(obj: object) -> str:
    """An ad's JSON (from ``ad_to_json``, which writes no NaN or infinity) as msgspec
    writes it, about ten times as fast as ``json`` (a row at each job's start and end);
    ``json`` for what msgspec refuses (a string that is no UTF-8)."""
    try:
        return _encode(obj).decode()
    except UnicodeEncodeError:
        return json.dumps(obj, separators=(",", ":"))


_encode = msgspec.json.Encoder().encode
