"""Which of a queue statement's commands differ between its jobs, and how each job's value
is had without expanding the command again.

Few names take a different value in each job of a statement: ``Process``, ``ProcId``,
``JobId``, ``Step``, ``ItemIndex``, ``Row`` and the item variables (each only when it does
take two values or more). A command *varies* when its text may refer to one of them,
directly or through other macros; every other command has the same value in every job.
References are found generously (``$(NAME`` anywhere, and every word of a text holding a
``$NAME(`` function call), so a command that might vary is always taken as varying.

A varying command is expanded once, by the configuration language's own expander, with
each varying name standing for a placeholder character (from Unicode's private use area);
a job's value is that text with the job's values put in (a *plan*). That is exact when
values can only be copied into the result: the expander's choices depend on the text, on
which names are defined and on whether a value is empty, and a value without ``$`` expands
to itself. So a command is *opaque* (``PER_JOB``: expanded with each job's own scope) when
a function call could see a varying value, or when an item variable that is empty in some
item is used with a default (``$(var:default)``). A statement is left to the per-job path
altogether when its macros draw ``$RANDOM_*`` numbers (each draw must come in the
reference order), an item holds ``$`` (it would be expanded) or a text holds a placeholder
character.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from .scope import ALWAYS_LIVE, JobScope
from .statement import QueueRun

__all__ = ["PER_JOB", "SLOTS", "CommandPlans", "Plan", "referenced"]

Plan = Callable[[tuple[str, ...]], "str | None"]
"""A varying command's value (as ``JobScope.get`` gives it) from a job's slot values."""


class _PerJob:
    """The plan of an opaque command: expand it with the job's own scope."""


PER_JOB = _PerJob()

SLOTS = ("process", "procid", "jobid", "step", "itemindex", "row")
"""The slot values of each job, in this order, followed by its item's variables."""

_REF = re.compile(r"\$\(([A-Za-z0-9_.]+)")
_DEFAULTED = re.compile(r"\$\(([A-Za-z0-9_.]+):")
_CALL = re.compile(r"\$[A-Za-z_]")
_WORD = re.compile(r"[A-Za-z0-9_.]+")
_FIRST = 0xE000
_LAST = 0xF8FF
_PLACEHOLDER = re.compile(f"([{chr(_FIRST)}-{chr(_LAST)}])")
_RANDOM = re.compile(r"\$random_", re.IGNORECASE)


def referenced(text: str) -> set[str]:
    """The macro names (lower case) ``text`` may read, or more."""
    names = {name.lower() for name in _REF.findall(text)}
    if _CALL.search(text):
        names.update(word.lower() for word in _WORD.findall(text))
    return names


class CommandPlans:
    """A queue statement's varying commands and their plans (``plan``)."""

    def __init__(self, run: QueueRun) -> None:
        self.run = run
        keys = list(run.rows[0][1])
        self._winners = {key.lower(): key for key in keys}  # JobScope: the last spelling wins
        self.row_names = tuple(self._winners)
        self._as_written = len(self.row_names) == len(keys)  # no two spellings of one name
        self._row_slot = {name: len(SLOTS) + i for i, name in enumerate(self.row_names)}
        self._row_varying, self._may_be_empty = self._item_variables()
        self.varying = self._varying_names()
        self._macro_names = {
            key for key in run.macros if key not in ALWAYS_LIVE and key not in self._row_slot
        }
        self._placeholders = self._placeholder_scope()
        self._plans: dict[str, Plan | _PerJob | None] = {}

    @classmethod
    def of(cls, run: QueueRun) -> CommandPlans | None:
        """The plans of ``run``'s jobs, or None when each job must be built on its own."""
        texts = [definition.value for definition in run.macros.values()]
        if any(_RANDOM.search(text) for text in texts):
            return None
        items = "\n".join(value for _, row in run.rows for value in row.values())
        if "$" in items or len(SLOTS) + len(run.rows[0][1]) > _LAST - _FIRST + 1:
            return None
        outside = [*texts, *run.automatic.values(), *run.context.env.values(), items]
        if any(_PLACEHOLDER.search(text) for text in outside):
            return None
        return cls(run)

    def row_values(self, row: Mapping[str, str]) -> tuple[str, ...]:
        """An item's variable values, in slot order."""
        if self._as_written:
            return tuple(row.values())
        return tuple(row[self._winners[name]] for name in self.row_names)

    def plan(self, key: str) -> Plan | _PerJob | None:
        """How command ``key`` (lower case) is computed per job: None when it is the same
        in every job, ``PER_JOB`` when only the job's own scope can expand it."""
        if key not in self._plans:
            self._plans[key] = self._make(key)
        return self._plans[key]

    def _make(self, key: str) -> Plan | _PerJob | None:
        if key in self._row_slot:  # an item variable is the command's value as it stands
            if key not in self._row_varying:
                return None
            slot = self._row_slot[key]
            return lambda values: values[slot].strip() or None
        definition = self.run.macros.get(key)
        if definition is None or referenced(definition.value).isdisjoint(self.varying):
            return None
        if self._opaque(definition.value):
            return PER_JOB
        return _plan(self._placeholders.expand_text(definition.value, definition.line))

    def _opaque(self, text: str) -> bool:
        """Whether a function call or a defaulted, sometimes empty, item variable could
        see a varying value in ``text`` or the varying macros it refers to."""
        seen: set[str] = set()
        texts = [text]
        while texts:
            current = texts.pop()
            if _CALL.search(current):
                return True
            if any(name.lower() in self._may_be_empty for name in _DEFAULTED.findall(current)):
                return True
            for name in referenced(current) & self.varying & self._macro_names:
                if name not in seen:
                    seen.add(name)
                    texts.append(self.run.macros[name].value)
        return False

    def _item_variables(self) -> tuple[set[str], set[str]]:
        """Item variables with two values or more; those of them empty in some item."""
        varying: set[str] = set()
        empty: set[str] = set()
        for name, key in self._winners.items():
            values = {row[key] for _, row in self.run.rows}
            if len(values) > 1:
                varying.add(name)
                if "" in values:
                    empty.add(name)
        return varying, empty

    def _varying_names(self) -> set[str]:
        """The names whose value may differ between jobs: the slots and item variables
        that do, and the macros referring to them (the least fixed point)."""
        run = self.run
        varying = {"process", "procid", "jobid"} if run.size > 1 else set()
        varying |= self._row_varying - ALWAYS_LIVE
        counters = {"step": run.count > 1, "itemindex": len(run.rows) > 1}
        counters["row"] = counters["itemindex"]
        for name, differs in counters.items():
            if differs and name not in self._row_slot and name not in run.macros:
                varying.add(name)
        refs = {
            key: referenced(definition.value)
            for key, definition in run.macros.items()
            if key not in ALWAYS_LIVE and key not in self._row_slot
        }
        grown = True
        while grown:
            grown = False
            for key, names in refs.items():
                if key not in varying and not names.isdisjoint(varying):
                    varying.add(key)
                    grown = True
        return varying

    def _placeholder_scope(self) -> JobScope:
        """The first job's scope with a placeholder for each varying slot's value."""
        run = self.run
        index, row = run.rows[0]
        first = str(run.first_proc)
        actual = (first, first, f"{run.cluster}.{first}", "0", str(index), str(index))
        slot = dict(zip(SLOTS, actual, strict=True))
        for number, name in enumerate(SLOTS):
            if name in self.varying:
                slot[name] = chr(_FIRST + number)
        items = {
            name: chr(_FIRST + self._row_slot[name])
            if name in self._row_varying
            else row[self._winners[name]]
            for name in self.row_names
        }
        live = {"Cluster": str(run.cluster), "ClusterId": str(run.cluster)}
        live |= {"Process": slot["process"], "ProcId": slot["procid"], "JobId": slot["jobid"]}
        counters = {"Step": slot["step"], "ItemIndex": slot["itemindex"], "Row": slot["row"]}
        return JobScope(
            run.macros,
            live,
            items,
            {**run.automatic, **counters},
            source=run.source,
            env=run.context.env,
            rng=run.context.rng,
            proc=run.first_proc,
        )


def _plan(text: str) -> Plan | None:
    """The plan of an expansion holding placeholders (None when it holds none)."""
    pieces = _PLACEHOLDER.split(text)  # text, placeholder, text, ..., text
    if len(pieces) == 1:
        return None
    if len(pieces) == 3:
        before, slot, after = pieces[0], ord(pieces[1]) - _FIRST, pieces[2]
        return lambda values: (before + values[slot] + after).strip() or None
    form = "".join(
        f"{{{ord(piece) - _FIRST}}}" if number % 2 else piece.replace("{", "{{").replace("}", "}}")
        for number, piece in enumerate(pieces)
    )  # "a {6} b {0}": the slots' values by position
    return lambda values: form.format(*values).strip() or None
