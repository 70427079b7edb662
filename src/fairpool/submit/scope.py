"""The macros one job sees, and how a submit command's value is expanded for it.

Expansion itself is the configuration language's (``fairpool.config.macros.expand``, with
undefined macros expanding to nothing as in condor_submit). This module decides what each
name means for one job: ``Cluster``/``ClusterId``/``Process``/``ProcId``/``JobId`` always
the job's own; then the queue statement's item variables (``Item`` by default); then the
submit file's definitions; then the automatic variables (``Step``, ``ItemIndex``, ``Row``,
``Node``, ``ARCH``, ``OPSYS``, ``SUBMIT_FILE``, ``DOLLAR``...), which a definition in the
file overrides, as the condor_submit manual says.

A definition that names itself (``foo = snap $(foo)``) takes the previous value at once,
as condor_submit does; every other reference is expanded when a job is built.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..config.macros import expand
from ..errors import ConfigError, SubmitError

__all__ = ["ALWAYS_LIVE", "Definition", "JobScope", "job_scope", "resolve_self"]

ALWAYS_LIVE = frozenset({"cluster", "clusterid", "process", "procid", "jobid"})


@dataclass(frozen=True)
class Definition:
    """A submit-file macro: its raw value, the line that set it, the name as written."""

    value: str
    line: int
    spelling: str


def resolve_self(name: str, value: str, previous: Definition | None) -> str:
    """Replace ``$(name)`` and ``$(name:default)`` in ``value`` by the previous value."""
    pattern = re.compile(r"\$\(\s*" + re.escape(name) + r"\s*(?::([^)]*))?\)", re.IGNORECASE)

    def earlier(found: re.Match[str]) -> str:
        if previous is not None:
            return previous.value
        return found.group(1) or ""

    return pattern.sub(earlier, value)


def job_scope(
    macros: Mapping[str, Definition],
    cluster: int,
    proc: int,
    row: Mapping[str, str],
    automatic: Mapping[str, str],
    *,
    source: str,
    env: Mapping[str, str],
    rng: random.Random,
) -> JobScope:
    """The scope of job ``cluster.proc``: its ids, its queue item ``row``, the macros."""
    live = {
        "Cluster": str(cluster),
        "ClusterId": str(cluster),
        "Process": str(proc),
        "ProcId": str(proc),
        "JobId": f"{cluster}.{proc}",
    }
    return JobScope(macros, live, row, automatic, source=source, env=env, rng=rng, proc=proc)


class JobScope:
    """Name lookup and expansion for one job."""

    def __init__(
        self,
        macros: Mapping[str, Definition],
        live: Mapping[str, str],
        row: Mapping[str, str],
        automatic: Mapping[str, str],
        *,
        source: str,
        env: Mapping[str, str],
        rng: random.Random,
        proc: int,
    ) -> None:
        self.macros = macros
        self.proc = proc
        self._once: dict[str, Any] = {}
        self.live = {k.lower(): v for k, v in live.items()}
        self.row = {k.lower(): v for k, v in row.items()}
        self.automatic = {k.lower(): v for k, v in automatic.items()}
        self.source = source
        self.env = env
        self.rng = rng

    def lookup(self, name: str) -> str | None:
        """The raw text a macro name stands for in this job (None: undefined)."""
        key = name.lower()
        if key in ALWAYS_LIVE:
            return self.live.get(key)
        if key in self.row:
            return self.row[key]
        if key in self.macros:
            return self.macros[key].value
        return self.automatic.get(key)

    def expand_text(self, text: str, line: int | None) -> str:
        """Expand macros in text; a bad function call is a SubmitError at ``line``."""
        try:
            return expand(
                text,
                self.lookup,
                source=self.source,
                line=line,
                rng=self.rng,
                env=self.env,
                functions={"F": self._whole_path},
                strict=False,
            )
        except ConfigError as err:
            raise SubmitError(err.message, self.source, line) from err

    def _whole_path(self, argument: str) -> str:
        """Bare ``$F(x)`` (the expander knows only ``$F<letters>``): the path unchanged, a
        macro name standing for its value, as condor_submit reads it."""
        name = argument.strip()
        value = self.lookup(name)
        return self.expand_text(value, None) if value is not None else name

    def get(self, command: str) -> str | None:
        """The expanded value of a submit command (a queue variable of that name wins),
        or None when unset or empty."""
        key = command.lower()
        if key in self.row:
            text, line = self.row[key], None
        elif key in self.macros:
            text, line = self.macros[key].value, self.macros[key].line
        else:
            return None
        value = self.expand_text(text, line).strip()
        return value or None

    def once(self, name: str, compute: Callable[[], Any]) -> Any:
        """``compute()``, remembered for this job under ``name`` (see JobInput.once)."""
        if name not in self._once:
            self._once[name] = compute()
        return self._once[name]

    def line_of(self, command: str, default: int) -> int:
        """The line that set ``command`` (``default``, the queue statement's, otherwise)."""
        definition = self.macros.get(command.lower())
        if definition is None or command.lower() in self.row:
            return default
        return definition.line
