"""Everything one job's ad is built from, and the value readers the builders share.

The builders read a job's submit commands only through ``JobInput`` and its ``scope``: a
``JobScope`` (one job, the reference) or a queue statement's scope that answers for each of
its jobs in turn and notes which answers differ between them (``batch.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..classad import ClassAdSyntaxError, Expr
from ..errors import SubmitError, excerpt
from .groupmap import GroupMap
from .knobs import knob
from .scope import Definition

__all__ = ["UNIVERSES", "Commands", "JobInput", "Pairs", "Section"]

UNIVERSES = {"vanilla": 5, "docker": 5, "parallel": 11, "scheduler": 7, "local": 12}
_TRUE = frozenset({"true", "yes", "t", "y", "1"})
_FALSE = frozenset({"false", "no", "f", "n", "0"})


class Commands(Protocol):
    """A job's submit commands, expanded for it (``JobScope`` is the reference)."""

    macros: Mapping[str, Definition]
    proc: int

    def get(self, command: str) -> str | None: ...

    def line_of(self, command: str, default: int) -> int: ...

    def once(self, name: str, compute: Callable[[], Any]) -> Any: ...


@dataclass(frozen=True)
class JobInput:
    """One queued job: its commands, ids and the submitter's context."""

    scope: Commands
    owner: str
    cluster: int
    qdate: int
    uid_domain: str | None
    group_map: GroupMap | None
    cwd: Path | None
    config: Mapping[str, str] | None
    source: str
    line: int  # the queue statement's

    @property
    def proc(self) -> int:
        """The job's ProcId (its scope's: one scope may answer for several jobs in turn)."""
        return self.scope.proc

    def get(self, command: str) -> str | None:
        return self.scope.get(command)

    def line_of(self, command: str) -> int:
        """The line that set ``command`` (else the queue statement's)."""
        return self.scope.line_of(command, self.line)

    def error(self, command: str, message: str) -> SubmitError:
        """A SubmitError at the line that set ``command`` (else the queue statement's)."""
        return SubmitError(message, self.source, self.line_of(command))

    def once(self, name: str, compute: Callable[[JobInput], Any]) -> Any:
        """A value derived from the job's commands, computed at its first use in the job:
        every command is read as many times, and in the same order, as it always was
        (a read of ``$RANDOM_INTEGER()`` draws a number)."""
        return self.scope.once(name, lambda: compute(self))

    def universe(self) -> str:
        """The job's universe, lower case; a SubmitError for one fairpool does not run."""
        return self.once("universe", _universe)

    def flag(self, command: str, default: bool = False) -> bool:
        """A true/false command."""
        text = self.get(command)
        if text is None:
            return default
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise self.error(command, f"{command} = {excerpt(text)}: expected true or false")

    def integer(self, command: str, default: int) -> int:
        text = self.get(command)
        if text is None:
            return default
        try:
            return int(text)
        except ValueError:
            raise self.error(command, f"{command} = {excerpt(text)}: expected an integer") from None

    def expr(self, command: str, text: str | None = None) -> Expr | None:
        """A command's value as a ClassAd expression (None when unset)."""
        text = self.get(command) if text is None else text
        if text is None:
            return None
        try:
            return Expr(text)
        except ClassAdSyntaxError as err:
            shown = excerpt(text)
            raise self.error(
                command, f"{command} = {shown}: expected a ClassAd expression ({err.message})"
            ) from err


Pairs = tuple[tuple[str, Any], ...]
"""Attributes of a job ad as ``(name, value)``: a value is what ``ad[name] = value`` takes."""

Section = Callable[[JobInput], Pairs]
"""A part of a job's ad: a function of the job alone (jobad.py)."""


def _universe(job: JobInput) -> str:
    name = (job.get("universe") or knob(job.config, "DEFAULT_UNIVERSE")).lower()
    if name not in UNIVERSES:
        raise job.error(
            "universe",
            f"universe = {name}: not supported by fairpool: expected one of "
            + ", ".join(sorted(UNIVERSES)),
        )
    return name
