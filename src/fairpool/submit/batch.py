"""A queue statement's job ads from its first job's: what varies is rebuilt, the rest shared.

The first job's ad is built section by section (jobad.py), watching whether each section
reads something that differs between the statement's jobs: the ProcId, or a varying
command (plans.py). Every other section gives the same pairs for every job, so each later
job's ad is a copy of the first (sharing its expressions) with only the varying sections
run again. A job whose varying sections name other attributes than the first job's
(``hold = $(Item)`` adds HoldReason to some jobs) is assembled from all its sections, as
the reference path does. Sections are pure functions of what they read, and a command
that is the same in every job cannot fail in one after succeeding in the first, so every
ad, and the first error, is the reference path's (``QueueRun.reference_ads``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ..classad import ClassAd, Expr
from ..classad.nodes import Literal
from ..classad.values import from_text
from .job import JobInput, Pairs, Section
from .jobad import job_sections
from .plans import PER_JOB, CommandPlans, Plan
from .scope import Definition, JobScope
from .sharing import ClusterSharing, Entry, store
from .statement import QueueRun

__all__ = ["StatementScope", "queue_ads"]

_UNSET = object()
_OVERRIDDEN = object()  # marks a pair that a later section overrides


def queue_ads(
    run: QueueRun, sharing: ClusterSharing, *, reference: bool = False
) -> Iterator[ClassAd]:
    """The ads of ``run``'s jobs, sharing expressions within the cluster (``sharing``);
    ``reference`` builds each on its own, as do statements plans.py cannot plan and those
    of one job (planning would cost more than it saves)."""
    plans = None if reference or run.size < 2 else CommandPlans.of(run)
    if plans is None:
        return run.reference_ads(sharing)
    return _batch(run, plans, sharing)


class StatementScope:
    """The commands of a queue statement's jobs, answering for one job at a time."""

    def __init__(self, run: QueueRun, plans: CommandPlans) -> None:
        self.run = run
        self.plans = plans
        self.macros: Mapping[str, Definition] = run.macros
        index, row = run.rows[0]
        self.first = run.scope(run.first_proc, 0, index, row)
        self.proc = run.first_proc
        self._job: tuple[int, int, int, Mapping[str, str]] = (self.proc, 0, index, row)
        self._values: tuple[str, ...] = ()
        self._fixed: dict[str, str | None] = {}
        self._varying: dict[str, Plan] = {}
        self._lines: dict[tuple[str, int], int] = {}
        self._own: JobScope | None = None  # the job's own scope, for opaque commands
        self._expanded: dict[str, str | None] = {}
        self._once: dict[str, Any] = {}

    def begin(
        self, proc: int, step: int, index: int, row: Mapping[str, str], values: tuple[str, ...]
    ) -> None:
        """Answer for job ``proc`` from now on (``values``: its slot values, plans.SLOTS)."""
        self.proc = proc
        self._job = (proc, step, index, row)
        self._values = values
        if self._once:
            self._once.clear()
        if self._own is not None:
            self._own = None
            self._expanded.clear()

    def get(self, command: str) -> str | None:
        plan = self._varying.get(command)
        if plan is not None:
            return plan(self._values)
        value = self._fixed.get(command, _UNSET)
        if value is _UNSET:
            return self._first_read(command)
        return value

    def once(self, name: str, compute: Callable[[], Any]) -> Any:
        if name not in self._once:
            self._once[name] = compute()
        return self._once[name]

    def varies(self, command: str) -> bool:
        """Whether ``command`` (read before) may differ between the statement's jobs."""
        return command in self._varying

    def line_of(self, command: str, default: int) -> int:
        key = (command, default)
        line = self._lines.get(key)
        if line is None:
            line = self._lines[key] = self.first.line_of(command, default)
        return line

    def _first_read(self, command: str) -> str | None:
        plan = self.plans.plan(command.lower())
        if plan is None:
            value = self._fixed[command] = self.first.get(command)
            return value
        if plan is PER_JOB:
            self._varying[command] = lambda values: self._per_job(command)
        else:
            self._varying[command] = plan
        return self.get(command)

    def _per_job(self, command: str) -> str | None:
        """An opaque command, expanded with the job's own scope (once per job)."""
        if self._own is None:
            self._own = self.run.scope(*self._job)
        if command not in self._expanded:
            self._expanded[command] = self._own.get(command)
        return self._expanded[command]


class _Watched:
    """A statement scope for its first job, noting reads of what varies (``touched``)."""

    def __init__(self, scope: StatementScope) -> None:
        self.scope = scope
        self.macros = scope.macros
        self.touched = False
        self._once: dict[str, tuple[Any, bool]] = {}  # value, and whether it varies

    @property
    def proc(self) -> int:
        self.touched = True
        return self.scope.proc

    def get(self, command: str) -> str | None:
        value = self.scope.get(command)
        self.touched = self.touched or self.scope.varies(command)
        return value

    def line_of(self, command: str, default: int) -> int:
        return self.scope.line_of(command, default)

    def once(self, name: str, compute: Callable[[], Any]) -> Any:
        """A derived value varies when what it was derived from does."""
        if name not in self._once:
            before, self.touched = self.touched, False
            self._once[name] = (compute(), self.touched)
            self.touched = before
        value, varies = self._once[name]
        self.touched = self.touched or varies
        return value


class _Template:
    """The first job's sections and ad, and a later job's ad made from them (``ad_for``)."""

    def __init__(self, run: QueueRun, scope: StatementScope, sharing: ClusterSharing) -> None:
        watched = _Watched(scope)
        first = run.job(watched)
        self.sections: Sequence[Section] = job_sections(first)
        self.pairs: list[Pairs] = []
        self.varying: list[int] = []
        for number, section in enumerate(self.sections):
            watched.touched = False
            self.pairs.append(section(first))
            if watched.touched:
                self.varying.append(number)
        self.job = run.job(scope)
        self.sharing = sharing
        self.ad = sharing.assemble(self.pairs)
        self.rebuilt = [_rebuild(self.sections[i], self._expected(i)) for i in self.varying]

    def _expected(self, number: int) -> tuple[tuple[str, Entry], ...]:
        """Per pair of a varying section: its name, and what stands for the cluster's
        first expression of that name (``_OVERRIDDEN`` when a later section sets it)."""
        last = {}
        for i, pairs in enumerate(self.pairs):
            for j, (name, _) in enumerate(pairs):
                last[name.lower()] = (i, j)
        return tuple(
            (name, self.sharing.entry(name) if last[name.lower()] == (number, j) else _OVERRIDDEN)
            for j, (name, _) in enumerate(self.pairs[number])
        )

    def ad_for(self) -> ClassAd:
        """The ad of the job the scope now answers for."""
        job = self.job
        ad = self.ad.copy()
        for rebuild in self.rebuilt:
            if not rebuild(job, ad):
                return self._assembled()
        return ad

    def _assembled(self) -> ClassAd:
        """The job's ad from all its sections (the first job's where they do not vary)."""
        pairs = list(self.pairs)
        for i in self.varying:
            pairs[i] = self.sections[i](self.job)
        return self.sharing.assemble(pairs)


Rebuild = Callable[[JobInput, ClassAd], bool]
"""Runs a varying section for a job and stores its pairs in the job's ad (a copy of the
first job's); False, having stored nothing or part, when the pairs name other attributes."""


def _rebuild(section: Section, expected: tuple[tuple[str, Entry], ...]) -> Rebuild:
    if len(expected) == 1 and expected[0][1] is not _OVERRIDDEN:  # the common case, quick
        ((first, entry),) = expected
        canon, kind, canon_value = entry
        textual, key = kind is str, first.lower()

        def rebuild_one(job: JobInput, ad: ClassAd) -> bool:
            pairs = section(job)
            if len(pairs) != 1:
                return False
            name, value = pairs[0]
            if name != first:
                return False
            if type(value) is not kind:
                store(ad, first, value, entry)
            else:  # the attribute is in the ad (a copy of the first job's): set it in place
                ad._exprs[key] = canon if value == canon_value else _literal(value, textual)
            return True

        return rebuild_one

    def rebuild(job: JobInput, ad: ClassAd) -> bool:
        pairs = section(job)
        if len(pairs) != len(expected):
            return False
        for (name, value), (first, entry) in zip(pairs, expected, strict=False):  # counted
            if name != first:
                return False
            if entry is not _OVERRIDDEN:
                store(ad, name, value, entry)
        return True

    return rebuild


def _literal(value: int | str | bool, textual: bool) -> Expr:
    """What ``ad[name] = value`` stores for an int, a string (``textual``) or a boolean."""
    return Expr._from_node(Literal(from_text(value) if textual else value))  # type: ignore[arg-type]


def _batch(run: QueueRun, plans: CommandPlans, sharing: ClusterSharing) -> Iterator[ClassAd]:
    scope = StatementScope(run, plans)
    template = None
    steps = [str(step) for step in range(run.count)]
    prefix = f"{run.cluster}."
    proc = run.first_proc
    for index, row in run.rows:
        item = (str(index), str(index), *plans.row_values(row))  # SLOTS' last two, then items
        for step in range(run.count):
            text = str(proc)
            values = (text, text, prefix + text, steps[step]) + item  # noqa: RUF005 (faster)
            scope.begin(proc, step, index, row, values)
            if template is None:
                template = _Template(run, scope, sharing)
                yield template.ad
            else:
                yield template.ad_for()
            proc += 1
