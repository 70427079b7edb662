"""A simulation scenario: a TOML file read into checked values before anything runs.

Tables: ``[simulation]`` (start, duration, negotiator_interval, seed, sample_interval,
shortcuts, startd, claim_reuse), ``[config]`` (HTCondor configuration: ``text`` or
``file``), ``[snapshot]`` (a pool's state as the start: snapshot.py), ``[[machines]]``,
``[[jobs]]``, ``[[traces]]`` and ``[[events]]`` (see machines.py, workload.py, events.py).
Files are named relative to the scenario file. Every problem is one ``ScenarioError``
naming the file and the key (or a ``ConfigError`` naming the knob), raised by
``load_scenario`` so a run never starts on a scenario it would fail on later.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..accounting.accountant import AccountantPolicy
from ..accounting.records import Customer
from ..config import Config, parse_config_text
from ..errors import ScenarioError
from ..negotiator import NegotiatorParams
from ..negotiator.configure import accountant_policy, negotiator_params
from ..textfiles import read_text
from .arrivals import read_trace_jobs
from .durations import parse_epoch
from .events import EventSpec, parse_event
from .limits import DEFAULT_LIMITS, Limits, check_limits
from .machine_file import machines_from_file
from .machines import MachineSpec, parse_machines
from .queue_file import QueueSpec, parse_queue
from .snapshot import CONFIG, Snapshot, read_snapshot
from .table import Table
from .workload import JobSpec, TraceSpec, parse_jobs, parse_trace

__all__ = ["Scenario", "Settings", "Simulation", "load_scenario", "parse_scenario", "settings"]

_TOP = ("simulation", "config", "snapshot", "machines", "jobs", "traces", "events")
_SIMULATION = (
    "start",
    "duration",
    "negotiator_interval",
    "seed",
    "sample_interval",
    "shortcuts",
    "startd",
    "claim_reuse",
)
DEFAULT_START = "2024-01-01T00:00:00Z"  # a real epoch: the accountant treats 0 as "never"


@dataclass(frozen=True)
class Simulation:
    """The ``[simulation]`` table."""

    start: float
    duration: float
    negotiator_interval: float = 60.0
    seed: int = 0
    sample_interval: float = 600.0
    shortcuts: bool = True
    startd: str = "auto"  # "always": run the startd policy on every machine
    claim_reuse: bool = False  # the schedd reuses a finished job's claim (CLAIM_WORKLIFE)


@dataclass(frozen=True)
class Settings:
    """What a configuration gives the simulator: the negotiator's and the accountant's
    parameters, and whether partitionable leftovers are claimed at once."""

    knobs: Config
    params: NegotiatorParams
    policy: AccountantPolicy
    claim_leftovers: bool


@dataclass(frozen=True)
class Scenario:
    source: str
    simulation: Simulation
    settings: Settings
    machines: tuple[MachineSpec, ...]
    jobs: tuple[JobSpec, ...]
    traces: tuple[TraceSpec, ...]
    events: tuple[EventSpec, ...]
    queues: tuple[QueueSpec, ...] = ()  # [[jobs]] tables that name a queue file
    # the accountant at the start, from a snapshot: (LastUpdateTime, records)
    accountant: tuple[float, tuple[Customer, ...]] | None = None


def load_scenario(
    path: str | Path,
    limits: Limits = DEFAULT_LIMITS,
    more_config: str = "",
    snapshot: Path | None = None,
) -> Scenario:
    """The scenario in ``path``, checked whole (traces read, sizes within ``limits``);
    ``more_config``: knobs read after its ``[config]`` (a sweep's point, sim/sweep.py);
    ``snapshot``: the directory of a pool's snapshot (``--from-pool``) as its
    ``[snapshot] directory``."""
    path = Path(path)
    text = read_text(path, ScenarioError, "the scenario")
    return parse_scenario(text, str(path), path.parent, limits, more_config, snapshot)


def parse_scenario(
    text: str,
    source: str = "<scenario>",
    base: Path | None = None,
    limits: Limits = DEFAULT_LIMITS,
    more_config: str = "",
    snapshot_directory: Path | None = None,
) -> Scenario:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        found = re.search(r"at line (\d+)", str(err))
        raise ScenarioError(
            f"not TOML: {err}", source, int(found.group(1)) if found else None
        ) from None
    except ValueError as err:  # an integer of more than 4,300 digits
        raise ScenarioError(f"not TOML: {str(err).split(';')[0]}", source) from None
    except RecursionError:
        raise ScenarioError("not TOML: arrays or tables nest too deeply", source) from None
    Table(data, source, "scenario", base).allow(_TOP)
    if snapshot_directory is not None:
        _given_snapshot(data, source, snapshot_directory)
    simulation = _simulation(Table(data.get("simulation", {}), source, "[simulation]", base))
    snapshot = None
    if "snapshot" in data:
        snapshot = read_snapshot(Table(data["snapshot"], source, "[snapshot]", base))
        simulation = _snapshot_start(simulation, snapshot, data)
    earlier = _pool_config(snapshot)
    text, where = _config_text(data, source, base)
    config = settings(f"{text}\n{more_config}" if more_config else text, where, earlier)
    machines: tuple[MachineSpec, ...] = ()
    if snapshot is not None:
        machines += tuple(machines_from_file(snapshot.machines, config.knobs))
    for n, table in enumerate(_array(data, "machines", source, base), 1):
        if table.has("file"):  # a real pool's slot ads
            machines += tuple(machines_from_file(table, config.knobs))
        else:
            machines += (parse_machines(table, config.knobs, f"m{n}-{{n}}"),)
    if not machines:
        raise ScenarioError("no [[machines]]: a pool needs machines", source, key="[[machines]]")
    jobs: tuple[JobSpec, ...] = ()
    queues: tuple[QueueSpec, ...] = ()
    if snapshot is not None and snapshot.queue is not None:
        queues += (parse_queue(snapshot.queue, 0),)
    for n, table in enumerate(_array(data, "jobs", source, base), 1):
        if table.has("file"):  # a real schedd's queue
            queues += (parse_queue(table, n),)
        else:
            jobs += (parse_jobs(table, n),)
    traces = tuple(parse_trace(t, n) for n, t in enumerate(_array(data, "traces", source, base), 1))
    events = tuple(
        parse_event(t, config.knobs, earlier) for t in _array(data, "events", source, base)
    )
    traces = tuple(replace(t, jobs=tuple(read_trace_jobs(t))) for t in traces)
    accountant = snapshot.accountant if snapshot is not None else None
    scenario = Scenario(
        source, simulation, config, machines, jobs, traces, events, queues, accountant
    )
    check_limits(scenario, limits)
    return scenario


def _simulation(table: Table) -> Simulation:
    table.allow(_SIMULATION)
    seed = table.integer("seed", 0)
    shortcuts, reuse = table.get("shortcuts", True), table.get("claim_reuse", False)
    for key, value in (("shortcuts", shortcuts), ("claim_reuse", reuse)):
        if not isinstance(value, bool):
            raise table.fail(key)(f"expected true or false, not {value!r}")
    startd = table.get("startd", "auto")
    if startd not in ("auto", "always"):
        raise table.fail("startd")(f'expected "auto" or "always", not {startd!r}')
    return Simulation(
        start=parse_epoch(table.get("start", DEFAULT_START), table.fail("start")),
        duration=table.duration("duration", allow_zero=False),
        negotiator_interval=table.duration("negotiator_interval", 60.0, allow_zero=False),
        seed=seed,
        sample_interval=table.duration("sample_interval", 600.0, allow_zero=False),
        shortcuts=shortcuts,
        startd=startd,
        claim_reuse=reuse,
    )


def _given_snapshot(data: dict, source: str, directory: Path) -> None:
    """``--from-pool``'s snapshot as the scenario's ``[snapshot] directory``; its other
    keys (the queue's run times) stay the scenario's."""
    table = data.get("snapshot", {})
    if not isinstance(table, dict) or "directory" in table:
        raise ScenarioError(
            "--from-pool takes the snapshot itself: leave out [snapshot] directory",
            source,
            key="[snapshot]",
        )
    data["snapshot"] = {**table, "directory": str(directory.absolute())}


def _snapshot_start(simulation: Simulation, snapshot: Snapshot, data: dict) -> Simulation:
    """Without ``[simulation] start``, a snapshot's run starts when its accountant was last
    updated (when the snapshot was taken)."""
    if snapshot.accountant is None or "start" in data.get("simulation", {}):
        return simulation
    return replace(simulation, start=snapshot.accountant[0])


def _pool_config(snapshot: Snapshot | None) -> tuple[tuple[str, str], ...]:
    """The pool's configuration, read before the scenario's (and a config event's)."""
    if snapshot is None or not snapshot.config:
        return ()
    return ((snapshot.config, str(snapshot.directory / CONFIG)),)


def _config_text(data: dict, source: str, base: Path | None) -> tuple[str, str]:
    if "config" not in data:
        return "", f"{source} [config]"
    table = Table(data["config"], source, "[config]", base)
    table.allow(("text", "file"))
    return table.text_or_file("configuration")


def settings(text: str, source: str, earlier: Sequence[tuple[str, str]] = ()) -> Settings:
    """Parameters from configuration text (a ``ConfigError`` names the bad knob), read
    after the ``earlier`` (text, source) pairs."""
    knobs = parse_config_text(text, source, earlier=earlier)
    leftovers = (knobs.get("CLAIM_PARTITIONABLE_LEFTOVERS") or "true").strip().lower()
    return Settings(
        knobs,
        negotiator_params(knobs),
        accountant_policy(knobs),
        leftovers not in ("false", "0", "no"),
    )


def _array(data: dict, name: str, source: str, base: Path | None) -> list[Table]:
    raw = data.get(name, [])
    if not isinstance(raw, list):
        raise ScenarioError(f"expected [[{name}]] tables", source, key=f"[[{name}]]")
    return [Table(item, source, f"[[{name}]] {n}", base) for n, item in enumerate(raw, 1)]
