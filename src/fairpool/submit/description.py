"""A parsed submit description and the job ads it queues.

Statements run in order as condor_submit runs them: each assignment updates the macro set,
each queue statement queues its jobs with the macros as they stand. ProcId counts up
within a cluster; setting ``executable`` again after jobs were queued starts the next
cluster (ClusterId + 1, ProcId from 0), as condor_submit does. Reading item files and
globbing ``matching`` patterns are the only I/O, relative to ``cwd``.
"""

from __future__ import annotations

import datetime as _dt
import gc
import random
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..classad import ClassAd
from ..errors import SubmitError
from .batch import queue_ads
from .groupmap import GroupMap
from .items import item_rows
from .knobs import knob
from .lines import Assignment, QueueLine, Statement, read_statements
from .queue import parse_queue
from .scope import Definition, JobScope, job_scope, resolve_self
from .sharing import ClusterSharing
from .statement import QueueRun, SubmitContext

__all__ = ["SubmitDescription", "parse_submit", "read_submit"]


@dataclass(frozen=True)
class SubmitDescription:
    """The statements of one submit file, ready to queue jobs."""

    statements: tuple[Statement, ...]
    source: str = "<string>"

    def job_ads(
        self,
        *,
        owner: str,
        cluster_id: int = 1,
        qdate: int = 0,
        uid_domain: str | None = None,
        group_map: GroupMap | None = None,
        env: Mapping[str, str] | None = None,
        seed: int = 0,
        cwd: Path | None = None,
        config: Mapping[str, str] | None = None,
        reference: bool = False,
    ) -> list[ClassAd]:
        """One ad per queued job, as condor_submit would send them to the schedd.

        ``env`` is what ``$ENV()`` sees (nothing by default: the process environment is
        never read); ``seed`` fixes ``$RANDOM_CHOICE()``/``$RANDOM_INTEGER()``; ``config``
        overrides the knobs in ``fairpool.submit.knobs`` (ARCH, OPSYS, ...).

        The ads of one cluster (one ClusterId) share their expressions: wherever an
        attribute's expression equals (``Expr ==``, the same text) the one in the cluster's
        first ad, it is that very ``Expr`` object. So every attribute that is the same for
        all jobs of the cluster is one object in all their ads, and a schedd can keep the
        first ad as the cluster ad and, per job, only the attributes whose expression is
        not the cluster ad's (``ad.lookup(k) is not cluster.lookup(k)``, by identity).
        Each ad has its own attribute table: changing one changes no other.

        Jobs are built in bulk per queue statement (batch.py); ``reference=True`` builds
        each job's ad on its own instead: the same ads, more slowly, as the reference the
        bulk path is tested and measured against (statements drawing ``$RANDOM_*`` numbers
        are always built so).
        """
        context = SubmitContext(
            owner,
            cluster_id,
            qdate,
            uid_domain,
            group_map,
            dict(env or {}),
            _rng(seed),
            Path(cwd) if cwd is not None else None,
            config,
        )
        with _collector_paused():
            return list(self._ads(context, reference))

    def expand(
        self,
        name: str,
        *,
        cluster_id: int = 1,
        proc_id: int = 0,
        env: Mapping[str, str] | None = None,
        seed: int = 0,
        config: Mapping[str, str] | None = None,
    ) -> str:
        """A macro's expanded value after the whole file ("" when undefined), as
        ``htcondor2.Submit(text).expand(name)`` gives it."""
        context = SubmitContext(
            "", cluster_id, 0, None, None, dict(env or {}), _rng(seed), None, config
        )
        macros = self._macros(self.statements)
        automatic = _automatic(self.source, context)
        scope = self._scope(context, macros, automatic, cluster_id, proc_id)
        return scope.expand_text(scope.lookup(name) or "", None)

    @staticmethod
    def _macros(statements: tuple[Statement, ...]) -> dict[str, Definition]:
        macros: dict[str, Definition] = {}
        for statement in statements:
            if isinstance(statement, Assignment):
                _assign(macros, statement)
        return macros

    def _ads(self, context: SubmitContext, reference: bool) -> Iterator[ClassAd]:
        macros: dict[str, Definition] = {}
        automatic = _automatic(self.source, context)
        cluster, proc, new_cluster = context.cluster_id, 0, False
        sharing = ClusterSharing()
        limit, queued = _job_limit(context.config, self.source), 0
        for statement in self.statements:
            if isinstance(statement, Assignment):
                _assign(macros, statement)
                new_cluster = new_cluster or (statement.name == "executable" and proc > 0)
                continue
            if new_cluster:
                cluster, proc, new_cluster = cluster + 1, 0, False
                sharing = ClusterSharing()
            run = self._run(context, dict(macros), automatic, cluster, proc, statement)
            queued += run.size
            if queued > limit:  # before a single ad of it is built
                raise _too_many(limit, self.source, statement.line)
            yield from queue_ads(run, sharing, reference=reference)
            proc += run.size

    def _run(
        self,
        context: SubmitContext,
        macros: dict[str, Definition],
        automatic: Mapping[str, str],
        cluster: int,
        proc: int,
        statement: QueueLine,
    ) -> QueueRun:
        """The jobs ``statement`` queues, its text expanded with the macros as they stand."""
        head = self._scope(context, macros, automatic, cluster, proc)
        args = head.expand_text(statement.args, statement.line)
        spec = parse_queue(args, statement.block, self.source, statement.line)
        return QueueRun(
            context=context,
            source=self.source,
            line=statement.line,
            macros=macros,
            automatic=automatic,
            cluster=cluster,
            first_proc=proc,
            rows=item_rows(spec, self.source, context.cwd),
            count=spec.count,
        )

    def _scope(
        self,
        context: SubmitContext,
        macros: Mapping[str, Definition],
        automatic: Mapping[str, str],
        cluster: int,
        proc: int,
    ) -> JobScope:
        """Job ``cluster.proc``'s scope outside any queue item."""
        return job_scope(
            macros,
            cluster,
            proc,
            {},
            automatic,
            source=self.source,
            env=context.env,
            rng=context.rng,
        )


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector while the ads are built: they hold no cycles, and
    its passes over a heap growing by 100,000 ads would add about half again to the time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _assign(macros: dict[str, Definition], statement: Assignment) -> None:
    value = resolve_self(statement.name, statement.value, macros.get(statement.name))
    macros[statement.name] = Definition(value, statement.line, statement.spelling)


def _job_limit(config: Mapping[str, str] | None, source: str) -> int:
    text = knob(config, "MAX_JOBS_PER_SUBMISSION")
    if not text.strip().isdigit():
        raise SubmitError(f"MAX_JOBS_PER_SUBMISSION: expected a whole number, not {text!r}", source)
    return int(text)


def _too_many(limit: int, source: str, line: int) -> SubmitError:
    return SubmitError(
        f"more than {limit} jobs in one submission (MAX_JOBS_PER_SUBMISSION; set it to queue more)",
        source,
        line,
    )


def _rng(seed: int) -> random.Random:
    return random.Random(f"{seed}:submit")


def _automatic(source: str, context: SubmitContext) -> dict[str, str]:
    """The automatic submit variables set before the file is read (the manual's list)."""
    moment = _dt.datetime.fromtimestamp(context.qdate, _dt.UTC)
    return {
        "ARCH": knob(context.config, "ARCH"),
        "OPSYS": knob(context.config, "OPSYS"),
        "SUBMIT_FILE": "" if source.startswith("<") else source,
        "SUBMIT_TIME": str(context.qdate),
        "YEAR": f"{moment.year:04d}",
        "MONTH": f"{moment.month:02d}",
        "DAY": f"{moment.day:02d}",
        "Node": "",
        "Step": "0",
        "ItemIndex": "0",
        "Row": "0",
        "DOLLAR": "$",
    }


def parse_submit(text: str, source: str = "<string>") -> SubmitDescription:
    """Read submit description text; SubmitError names the line and what was expected."""
    statements = read_statements(text, source)
    if not any(isinstance(s, QueueLine) for s in statements):
        end = max(1, len(text.splitlines()))
        raise SubmitError("no 'queue' statement by the end of the file: expected one", source, end)
    return SubmitDescription(tuple(statements), source)


def read_submit(path: str | Path) -> SubmitDescription:
    """Read a submit description file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError as err:
        raise SubmitError(f"cannot read submit file: {err.strerror}", str(path)) from err
    return parse_submit(text, str(path))
