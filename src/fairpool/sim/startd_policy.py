"""Which simulated machines run the startd policy, with which policy and owner activity.

Each ``[[machines]]`` table gets a ``StartdPolicy`` read from ``[config]`` with current
HTCondor's built-in defaults (``START = TRUE``, ``SUSPEND``/``PREEMPT``/``KILL = FALSE``:
a dedicated machine, the same choice ``startd.layout`` makes for the slot ads), with the
policy attributes a table's ``ad`` sets itself (``START``, ``Rank``, ``PREEMPT``,
``MaxJobRetirementTime``...) taking precedence over the configuration's.

A table's machines are *driven* (each runs ``fairpool.startd.Startd`` on the simulated
clock) when the policy can do anything a dedicated machine does not: some periodic policy
expression is not its dedicated constant, ``START`` reads what the startd measures or
publishes (keyboard, load, clock, state), ``MaxJobRetirementTime`` is not 0, or the table
gives owner activity. Otherwise the machine is dedicated and always willing, which the
simulator carries out without running the state machine (``[simulation] startd =
"always"`` runs it anyway; tests/sim/test_startd_policy.py checks the two agree).

Owner activity (``activity = "file.csv"``) is a ``fairpool policy trace`` timeline with
machine inputs only (``keyboard``, ``KeyboardIdle``, ``LoadAvg``...): times count from the
simulation's start, ``activity_repeat`` repeats it (``"24h"``, ``"7d"``). ``LoadAvg`` is the
owner's load (the jobs' own load is not modelled: ``CondorLoadAvg`` stays 0).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..classad import ClassAd, Expr
from ..classad.ad import to_python
from ..classad.dependence import CLOCK_FUNCTIONS
from ..classad.nodes import Call, Node, children
from ..classad.refs import references
from ..classad.scope import NOT_CONST
from ..config import Config
from ..startd import MODERN, MachineInputs, StartdPolicy
from ..startd.knobs import POLICY_EXPRESSIONS
from ..startd.timeline import TimelineError, parse_timeline
from .table import Table

__all__ = ["OwnerActivity", "driven", "read_activity", "table_policy"]

EPOCH_WEEKDAY = 4  # 1970-01-01 was a Thursday (ClockDay: Sunday is 0)

# The value each periodic policy expression has on a dedicated machine (absent: the same).
_DEDICATED: dict[str, object] = {
    "IsOwner": False,
    "SUSPEND": False,
    "PREEMPT": False,
    "KILL": False,
    "SUSPEND_VANILLA": False,
    "PREEMPT_VANILLA": False,
    "KILL_VANILLA": False,
    "PERIODIC_CHECKPOINT": False,
    "RunBenchmarks": False,
    "MaxJobRetirementTime": 0,
}
# What the startd measures or publishes as time passes: a START that reads any of these
# can change its mind while a job waits or runs.
_MEASURED = frozenset(
    name.lower()
    for name in (
        "KeyboardIdle",
        "ConsoleIdle",
        "LoadAvg",
        "CondorLoadAvg",
        "TotalLoadAvg",
        "TotalCondorLoadAvg",
        "ClockMin",
        "ClockDay",
        "CpuBusy",
        "CpuBusyTime",
        "CpuIsBusy",
        "CurrentTime",
        "LastHeardFrom",
        "State",
        "Activity",
        "EnteredCurrentState",
        "EnteredCurrentActivity",
        "JobStart",
        "RetirementTimeRemaining",
    )
)
_KNOB_OF = {attribute.lower(): knob for knob, attribute in POLICY_EXPRESSIONS.items()}


class _TableKnobs:
    """The configuration, with the policy attributes of a table's ad set over it."""

    def __init__(self, config: Config, ad: ClassAd | None) -> None:
        self.config = config
        self.own = {}
        for name in ad or ():
            knob = _KNOB_OF.get(name.lower())
            if knob is not None:
                self.own[knob.lower()] = str(ad.lookup(name))

    def get(self, name: str) -> str | None:
        own = self.own.get(name.lower())
        return own if own is not None else self.config.get(name)

    def where(self, name: str) -> tuple[str | None, int | None]:
        if name.lower() in self.own:
            return ("the machine ad", None)
        return self.config.where(name)


def table_policy(config: Config, ad: ClassAd | None) -> StartdPolicy:
    """The startd policy of a table's machines (``ad``: the table's own slot ad)."""
    return StartdPolicy.from_knobs(_TableKnobs(config, ad), MODERN)


def driven(policy: StartdPolicy, ads: tuple[ClassAd, ...], activity: object) -> bool:
    """Whether machines with this policy, slot ads and owner activity need the startd."""
    if activity is not None:
        return True
    for attribute, value in _DEDICATED.items():
        expr = policy.expressions.get(attribute)
        if expr is not None and (expr.const is NOT_CONST or to_python(expr.const) != value):
            return True
    start = policy.expressions.get("START")
    if start is None:
        return True  # no START: the startd takes no job
    return any(_reads_measurements(start, ad) for ad in ads)


def _reads_measurements(expr: Expr, ad: ClassAd) -> bool:
    found = references(expr.node, ad)
    names = {n.lower().rpartition(".")[2] for n in found.internal | found.unresolved}
    return bool(names & _MEASURED) or _calls_clock(expr.node)


def _calls_clock(node: Node) -> bool:
    if type(node) is Call and node.lname in CLOCK_FUNCTIONS:
        return True
    return any(_calls_clock(child) for child in children(node))


@dataclass(frozen=True)
class OwnerActivity:
    """A machine's owner over time (``MachineInputs`` with times from the simulation's
    start), repeated every ``repeat`` seconds when given."""

    inputs: MachineInputs
    repeat: int | None = None

    def on_clock(self, start: int, end: int) -> MachineInputs:
        """The same activity on the simulation's (epoch) clock, repeated up to ``end``."""
        base = self.inputs
        shifts = [start]
        if self.repeat:
            shifts = list(range(start, end + 1, self.repeat))
        out = MachineInputs(last_touch=start + base.last_touch, day0=EPOCH_WEEKDAY)
        for shift in shifts:
            for begin, finish in base.uses:
                out.uses.append((begin + shift, finish + shift))
            for name, series in base.values.items():
                out.values.setdefault(name, []).extend((t + shift, v) for t, v in series)
        out.uses.sort()
        return out


def read_activity(table: Table) -> OwnerActivity | None:
    """The table's ``activity`` (and ``activity_repeat``), or None."""
    if not table.has("activity"):
        if table.has("activity_repeat"):
            raise table.fail("activity_repeat")("activity_repeat needs activity")
        return None
    path = table.path("activity")
    text, source = table.read(path, "the owner activity"), str(path)
    try:
        timeline = parse_timeline(text, source)
    except TimelineError as err:
        raise table.fail("activity")(f"bad owner activity: {err}") from None
    if timeline.steps:
        step = timeline.steps[0]
        raise table.fail("activity")(
            f"{source} line {step.line}: {step.event!r} is a protocol event; an activity "
            "file gives machine inputs only (keyboard, KeyboardIdle, LoadAvg, ...)"
        )
    repeat = None
    if table.has("activity_repeat"):
        repeat = int(table.duration("activity_repeat", allow_zero=False))
        if repeat < 1:
            raise table.fail("activity_repeat")("expected a period of at least 1 second")
    return OwnerActivity(timeline.inputs, repeat)
