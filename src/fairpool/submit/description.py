"""A parsed submit description and the job ads it queues.

Statements run in order as condor_submit runs them: each assignment updates the macro set,
each queue statement queues its jobs with the macros as they stand. ProcId counts up
within a cluster; setting ``executable`` again after jobs were queued starts the next
cluster (ClusterId + 1, ProcId from 0), as condor_submit does. Reading item files and
globbing ``matching`` patterns are the only I/O, relative to ``cwd``.
"""

from __future__ import annotations

import datetime as _dt
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..classad import ClassAd
from ..errors import SubmitError
from .groupmap import GroupMap
from .items import item_rows
from .job import JobInput
from .jobad import build_job_ad
from .knobs import knob
from .lines import Assignment, QueueLine, Statement, read_statements
from .queue import parse_queue
from .scope import Definition, JobScope, resolve_self

__all__ = ["SubmitDescription", "parse_submit", "read_submit"]


@dataclass(frozen=True)
class _Context:
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
    ) -> list[ClassAd]:
        """One ad per queued job, as condor_submit would send them to the schedd.

        ``env`` is what ``$ENV()`` sees (nothing by default: the process environment is
        never read); ``seed`` fixes ``$RANDOM_CHOICE()``/``$RANDOM_INTEGER()``; ``config``
        overrides the knobs in ``fairpool.submit.knobs`` (ARCH, OPSYS, ...).
        """
        context = _Context(
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
        return list(self._ads(context))

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
        context = _Context("", cluster_id, 0, None, None, dict(env or {}), _rng(seed), None, config)
        macros = self._macros(self.statements)
        automatic = _automatic(self.source, context)
        scope = self._scope(context, macros, cluster_id, proc_id, {}, automatic)
        return scope.expand_text(scope.lookup(name) or "", None)

    @staticmethod
    def _macros(statements: tuple[Statement, ...]) -> dict[str, Definition]:
        macros: dict[str, Definition] = {}
        for statement in statements:
            if isinstance(statement, Assignment):
                _assign(macros, statement)
        return macros

    def _ads(self, context: _Context) -> Iterator[ClassAd]:
        macros: dict[str, Definition] = {}
        automatic = _automatic(self.source, context)
        cluster, proc, new_cluster = context.cluster_id, 0, False
        limit, queued = _job_limit(context.config, self.source), 0
        for statement in self.statements:
            if isinstance(statement, Assignment):
                _assign(macros, statement)
                new_cluster = new_cluster or (statement.name == "executable" and proc > 0)
                continue
            if new_cluster:
                cluster, proc, new_cluster = cluster + 1, 0, False
            snapshot = dict(macros)
            head = self._scope(context, snapshot, cluster, proc, {}, automatic)
            args = head.expand_text(statement.args, statement.line)
            spec = parse_queue(args, statement.block, self.source, statement.line)
            for index, row in item_rows(spec, self.source, context.cwd):
                queued += spec.count
                if queued > limit:
                    raise _too_many(limit, self.source, statement.line)
                for step in range(spec.count):
                    counters = {"Step": str(step), "ItemIndex": str(index), "Row": str(index)}
                    scope = self._scope(
                        context, snapshot, cluster, proc, row, {**automatic, **counters}
                    )
                    yield build_job_ad(self._job(context, scope, cluster, proc, statement))
                    proc += 1

    def _scope(
        self,
        context: _Context,
        macros: Mapping[str, Definition],
        cluster: int,
        proc: int,
        row: Mapping[str, str],
        automatic: Mapping[str, str],
    ) -> JobScope:
        live = {
            "Cluster": str(cluster),
            "ClusterId": str(cluster),
            "Process": str(proc),
            "ProcId": str(proc),
            "JobId": f"{cluster}.{proc}",
        }
        return JobScope(
            macros, live, row, automatic, source=self.source, env=context.env, rng=context.rng
        )

    def _job(
        self, context: _Context, scope: JobScope, cluster: int, proc: int, statement: QueueLine
    ) -> JobInput:
        return JobInput(
            scope=scope,
            owner=context.owner,
            cluster=cluster,
            proc=proc,
            qdate=context.qdate,
            uid_domain=context.uid_domain,
            group_map=context.group_map,
            cwd=context.cwd,
            config=context.config,
            source=self.source,
            line=statement.line,
        )


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


def _automatic(source: str, context: _Context) -> dict[str, str]:
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
