"""A timeline of machine changes and protocol events, as ``fairpool policy trace`` reads it.

CSV with a header ``time,event,value`` (``#`` lines and blank lines are skipped). ``time``
is seconds, or ``HH:MM[:SS]`` from 00:00 of day 0 (a Monday), or ``dN HH:MM[:SS]`` for
day N. ``event`` is one of:

* machine inputs: ``KeyboardIdle`` or ``ConsoleIdle`` (value: seconds idle at that time),
  ``keyboard`` (value ``busy``: someone types from now on; ``idle``: they stopped;
  ``touch``: one key press), ``LoadAvg``, ``CondorLoadAvg`` or any other machine
  attribute (value: a ClassAd literal, from then on);
* events: ``match``, ``claim`` (value: the claimant's Owner, else the job ad's),
  ``activate``, ``exit`` (the job exits), ``vacate``, ``vacate-fast``, ``release`` (value:
  a slot name, else the slot of the last accepted claim), ``preempt-rank`` and
  ``preempt-priority`` (a preempting claim; value: the claimant's Owner), ``drain``
  (value: graceful, quick or fast, resuming on completion), ``cancel-drain``,
  ``benchmarks-done``.

Lines are in time order (a line earlier than the one before it is an error, and so is a
negative time); events at the same time run in file order.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass

from ..classad import ClassAd, ClassAdSyntaxError, Expr
from ..errors import InputError, excerpt
from .events import Reply
from .inputs import MachineInputs
from .startd import Startd

__all__ = [
    "EVENTS",
    "Step",
    "Timeline",
    "TimelineError",
    "parse_time",
    "parse_timeline",
    "run_timeline",
]

DAY = 86400


class TimelineError(InputError):
    """A timeline that cannot be read."""


@dataclass(frozen=True)
class Step:
    """One event of the timeline: when, what, the value column, and its line."""

    t: int
    event: str
    value: str
    line: int


@dataclass
class Timeline:
    """The machine inputs and the ordered events of a timeline file."""

    inputs: MachineInputs
    steps: list[Step]

    @property
    def end(self) -> int:
        """The end of the last day the timeline touches."""
        last = max([s.t for s in self.steps] + [0])
        return (last // DAY + 1) * DAY


def _claim_as(job: ClassAd, owner: str) -> ClassAd:
    ad = job.copy()
    if owner:
        ad["Owner"] = owner
    return ad


# event -> what it does, given the startd, the step, the job ad and the slot it concerns
Handler = Callable[[Startd, Step, ClassAd, str | None], Reply]
EVENTS: dict[str, Handler] = {
    "match": lambda s, step, job, slot: s.match(step.t),
    "claim": lambda s, step, job, slot: s.request_claim(step.t, _claim_as(job, step.value)),
    "activate": lambda s, step, job, slot: s.activate(step.t, slot=slot),
    "exit": lambda s, step, job, slot: s.starter_exit(step.t, slot=slot),
    "vacate": lambda s, step, job, slot: s.vacate(step.t, slot=slot),
    "vacate-fast": lambda s, step, job, slot: s.vacate(step.t, fast=True, slot=slot),
    "release": lambda s, step, job, slot: s.release(step.t, slot=slot),
    "preempt-rank": lambda s, step, job, slot: s.request_claim(
        step.t, _claim_as(job, step.value), preempting=True, slot=slot
    ),
    "preempt-priority": lambda s, step, job, slot: s.request_claim(
        step.t, _claim_as(job, step.value), preempting=True, slot=slot
    ),
    "drain": lambda s, step, job, slot: s.drain(step.t, step.value or "graceful", resume=True),
    "cancel-drain": lambda s, step, job, slot: s.cancel_drain(step.t),
    "benchmarks-done": lambda s, step, job, slot: s.benchmarks_done(step.t),
}
_NAMES_SLOT = frozenset({"activate", "exit", "vacate", "vacate-fast", "release"})


def run_timeline(startd: Startd, timeline: Timeline, job: ClassAd) -> list[tuple[Step, Reply]]:
    """Send the timeline's events to ``startd``; the refused or ignored ones, with why.

    Events about a claim go to the slot named in their value column (activate, exit,
    vacate, vacate-fast, release; refused if there is no such slot), else to the slot the
    last accepted claim went to (a dynamic slot on a partitionable machine) while it
    exists, else to the first slot."""
    refused = []
    current: str | None = None
    for step in timeline.steps:
        slot = step.value if step.event in _NAMES_SLOT and step.value else current
        if slot is not None and slot not in startd.slots:
            if slot == step.value:
                refused.append((step, Reply(False, slot, f"no slot {slot}")))
                continue
            slot = None  # the last claim's dynamic slot has gone away
        reply = EVENTS[step.event](startd, step, job, slot)
        if step.event == "claim" and reply.accepted:
            current = reply.slot
        if not reply.accepted:
            refused.append((step, reply))
    return refused


def parse_time(text: str) -> int:
    """Seconds from ``12345``, ``HH:MM``, ``HH:MM:SS`` or ``dN HH:MM[:SS]`` (0 or more;
    ValueError for anything else)."""
    text = text.strip()
    day = 0
    if text.startswith("d") and " " in text:
        head, text = text.split(None, 1)
        day = _whole(head[1:])
    if ":" not in text:
        return day * DAY + _whole(text)
    parts = [_whole(p) for p in text.split(":")]
    if len(parts) not in (2, 3) or not parts[1] < 60 or (len(parts) == 3 and parts[2] >= 60):
        raise ValueError(text)
    seconds = parts[2] if len(parts) == 3 else 0
    return day * DAY + parts[0] * 3600 + parts[1] * 60 + seconds


def _whole(text: str) -> int:
    """A whole number of at most 12 digits, 0 or more (so no time is negative or absurd)."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 12:
        raise ValueError(text)
    return int(text)


def parse_timeline(text: str, source: str = "<timeline>") -> Timeline:
    """Read a timeline (see the module docstring); errors name the file and line."""
    inputs = MachineInputs()
    steps: list[Step] = []
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1)]
    rows = [(n, line) for n, line in lines if line.strip() and not line.lstrip().startswith("#")]
    if not rows or [c.strip().lower() for c in rows[0][1].split(",")][:2] != ["time", "event"]:
        raise TimelineError("expected a header line 'time,event,value'", source, 1)
    keyboard_since: int | None = None
    previous = 0
    for number, line in rows[1:]:
        try:
            cells = next(csv.reader(io.StringIO(line)))
        except csv.Error as err:
            raise TimelineError(f"expected 'time,event[,value]' ({err})", source, number) from None
        if len(cells) < 2:
            raise TimelineError("expected 'time,event[,value]'", source, number)
        time_text, event, value = cells[0], cells[1].strip(), ",".join(cells[2:]).strip()
        try:
            t = parse_time(time_text)
        except ValueError:
            raise TimelineError(
                f"bad time {time_text[:40]!r}: expected seconds, HH:MM[:SS] or dN HH:MM",
                source,
                number,
            ) from None
        if t < previous:
            raise TimelineError(
                f"time {time_text.strip()} is before the line above's: expected lines in time "
                "order",
                source,
                number,
            )
        previous = t
        if event in EVENTS:
            steps.append(Step(t, event, value, number))
        elif event.lower() == "keyboard":
            keyboard_since = _keyboard(inputs, t, value, keyboard_since, source, number)
        elif event.lower() in ("keyboardidle", "consoleidle"):
            inputs.keyboard_idle(t, _number(value, source, number))
        else:
            inputs.set(t, event, _literal(event, value, source, number))
    if keyboard_since is not None:
        inputs.use(keyboard_since, 10**12)
    steps.sort(key=lambda step: step.t)
    return Timeline(inputs, steps)


def _keyboard(
    inputs: MachineInputs, t: int, value: str, since: int | None, source: str, line: int
) -> int | None:
    word = value.lower()
    if word == "busy":
        return t if since is None else since
    if word == "idle":
        if since is not None:
            inputs.use(since, t)
        return None
    if word == "touch":
        inputs.use(t)
        return since
    raise TimelineError(f"keyboard: expected busy, idle or touch, not {value!r}", source, line)


def _number(value: str, source: str, line: int) -> int:
    try:
        return int(value)
    except ValueError:
        raise TimelineError(f"expected whole seconds idle, not {value!r}", source, line) from None


def _literal(name: str, value: str, source: str, line: int) -> object:
    if not name.isidentifier() or not value:
        raise TimelineError(
            f"unknown event {name!r}: expected one of {', '.join(EVENTS)}, keyboard, "
            "KeyboardIdle, ConsoleIdle or a machine attribute",
            source,
            line,
        )
    try:
        return Expr(value).eval(now=0)
    except ClassAdSyntaxError:
        raise TimelineError(
            f"{name}: expected a ClassAd value, not {excerpt(value)!r}", source, line
        ) from None
