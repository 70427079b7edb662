"""Everything one job's ad is built from, and the value readers the builders share."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..classad import ClassAdSyntaxError, Expr
from ..errors import SubmitError, excerpt
from .groupmap import GroupMap
from .scope import JobScope

__all__ = ["JobInput"]

_TRUE = frozenset({"true", "yes", "t", "y", "1"})
_FALSE = frozenset({"false", "no", "f", "n", "0"})


@dataclass(frozen=True)
class JobInput:
    """One queued job: its macros, ids and the submitter's context."""

    scope: JobScope
    owner: str
    cluster: int
    proc: int
    qdate: int
    uid_domain: str | None
    group_map: GroupMap | None
    cwd: Path | None
    config: Mapping[str, str] | None
    source: str
    line: int  # the queue statement's

    def get(self, command: str) -> str | None:
        return self.scope.get(command)

    def error(self, command: str, message: str) -> SubmitError:
        """A SubmitError at the line that set ``command`` (else the queue statement's)."""
        return SubmitError(message, self.source, self.scope.line_of(command, self.line))

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
