"""The jobs one queue statement queues, and everything their ads are built from.

``reference_ads`` builds each job's ad on its own, with the job's own ``JobScope``: the
definition of what every job gets. batch.py builds the same ads faster for most statements.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..classad import ClassAd
from .groupmap import GroupMap
from .job import Commands, JobInput
from .jobad import job_sections
from .scope import Definition, JobScope, job_scope
from .sharing import ClusterSharing

__all__ = ["QueueRun", "SubmitContext"]


@dataclass(frozen=True)
class SubmitContext:
    """Who submits, when, and the environment the submit file is read in."""

    owner: str
    cluster_id: int
    qdate: int
    uid_domain: str | None
    group_map: GroupMap | None
    env: Mapping[str, str]
    rng: random.Random
    cwd: Path | None
    config: Mapping[str, str] | None


@dataclass(frozen=True)
class QueueRun:
    """One queue statement's jobs: ``count`` per item row, ProcIds from ``first_proc``."""

    context: SubmitContext
    source: str
    line: int  # the queue statement's
    macros: Mapping[str, Definition]  # as they stand at the statement
    automatic: Mapping[str, str]
    cluster: int
    first_proc: int
    rows: list[tuple[int, dict[str, str]]]  # (ItemIndex, {variable: value})
    count: int

    @property
    def size(self) -> int:
        return len(self.rows) * self.count

    def scope(self, proc: int, step: int, index: int, row: Mapping[str, str]) -> JobScope:
        """The scope of one of the statement's jobs."""
        counters = {"Step": str(step), "ItemIndex": str(index), "Row": str(index)}
        return job_scope(
            self.macros,
            self.cluster,
            proc,
            row,
            {**self.automatic, **counters},
            source=self.source,
            env=self.context.env,
            rng=self.context.rng,
        )

    def job(self, scope: Commands) -> JobInput:
        """What the ad builders read, with the commands answered by ``scope``."""
        context = self.context
        return JobInput(
            scope=scope,
            owner=context.owner,
            cluster=self.cluster,
            qdate=context.qdate,
            uid_domain=context.uid_domain,
            group_map=context.group_map,
            cwd=context.cwd,
            config=context.config,
            source=self.source,
            line=self.line,
        )

    def reference_ads(self, sharing: ClusterSharing) -> Iterator[ClassAd]:
        """Each job's ad built on its own, in ProcId order (in the cluster of ``sharing``)."""
        proc = self.first_proc
        for index, row in self.rows:
            for step in range(self.count):
                job = self.job(self.scope(proc, step, index, row))
                yield sharing.assemble([section(job) for section in job_sections(job)])
                proc += 1
