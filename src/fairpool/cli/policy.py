"""``fairpool policy trace``: test a startd policy on a timeline before deploying it.

Reads the policy (HTCondor configuration syntax), a machine ad, a job ad and a timeline
(``fairpool.startd.timeline``), runs the startd's state machine over it and prints every
(state, activity) change with its time, the transition's number and what drove it.
"""

from __future__ import annotations

import json

import click

from ..classad import ClassAd, parse_ad, parse_ads
from ..config import load_config
from ..errors import FairpoolError, InputError
from ..startd.policy import Knobs, StartdPolicy
from ..startd.profile import PROFILES
from ..startd.startd import Startd
from ..startd.timeline import DAY, Timeline, TimelineError, parse_time, parse_timeline, run_timeline
from ..textfiles import read_text
from .errors import fail
from .outputs import writable_file, write_file

__all__ = ["load_knobs", "policy"]

MAX_DAYS = 7  # the longest trace run without --max-days (docs/limits.md)


def load_knobs(path: str) -> Knobs:
    """The configuration in ``path`` (HTCondor's language; unset knobs take the table's
    defaults, which are the seed's default policy)."""
    return load_config(path)


def _clock(t: int) -> str:
    day, rest = divmod(t, 86400)
    text = f"{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}"
    return f"d{day} {text}" if day else text


def _ads(path: str, what: str) -> list[ClassAd]:
    """The ads in ``path`` (old or new ClassAd syntax); a job file holds one ad, a machine
    file one ad per slot."""
    text = read_text(path, InputError, f"the {what} ad")
    ads = list(parse_ads(text, name=path)) if what == "machine" else [parse_ad(text, name=path)]
    if not ads:
        raise click.BadParameter(f"{path}: expected at least one {what} ad")
    return ads


def run_trace(startd: Startd, timeline: Timeline, job: ClassAd, until: int) -> list[str]:
    """Drive ``startd`` through ``timeline``; a note per refused or ignored event."""
    refused = run_timeline(startd, timeline, job)
    startd.advance(until)
    return [f"{_clock(step.t)}  {step.event}: {reply.reason}" for step, reply in refused]


@click.group()
def policy() -> None:
    """Test execute-node (startd) policies."""


@policy.command()
@click.option(
    "--config",
    "config_path",
    type=click.Path(exists=True, dir_okay=False),
    help="The startd policy, in HTCondor configuration syntax.",
)
@click.option(
    "--machine",
    "machine_path",
    type=click.Path(exists=True, dir_okay=False),
    help="The machine ad (one slot; a partitionable slot if PartitionableSlot).",
)
@click.option(
    "--job",
    "job_path",
    type=click.Path(exists=True, dir_okay=False),
    help="The job ad claims and activations use.",
)
@click.option(
    "--timeline",
    "timeline_path",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="CSV time,event,value of input changes and events.",
)
@click.option(
    "--profile",
    type=click.Choice(sorted(PROFILES), case_sensitive=False),
    default="SEED",
    show_default=True,
    help="Behaviour profile (startd.md §0).",
)
@click.option("--until", "until_text", help="Stop time (default: the end of the last day).")
@click.option(
    "--max-days",
    type=click.IntRange(min=1),
    default=MAX_DAYS,
    show_default=True,
    help="Refuse a trace that runs longer (the startd takes seconds per simulated day).",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False),
    help="Also write the changes and actions as JSON to this file.",
)
def trace(
    config_path: str | None,
    machine_path: str | None,
    job_path: str | None,
    timeline_path: str,
    profile: str,
    until_text: str | None,
    max_days: int,
    json_path: str | None,
) -> None:
    """Print the (state, activity) sequence a timeline drives the startd through."""
    if json_path:
        writable_file(json_path, "--json")
    try:
        knobs = load_knobs(config_path) if config_path else None
        chosen = StartdPolicy.from_knobs(knobs, PROFILES[profile.upper()])
        machine = _ads(machine_path, "machine") if machine_path else None
        job = _ads(job_path, "job")[0] if job_path else ClassAd({"Owner": "nobody"})
        text = read_text(timeline_path, TimelineError, "the timeline")
        timeline = parse_timeline(text, timeline_path)
        until = _until(until_text, timeline)
        _within(until, timeline, max_days, until_text, timeline_path)
        startd = Startd(chosen, machine, timeline.inputs)
        notes = run_trace(startd, timeline, job, until)
    except (FairpoolError, click.BadParameter) as err:
        fail(str(err.message if isinstance(err, click.BadParameter) else err))
    for change in startd.changes:
        target = f"{change.target[0]}/{change.target[1]}"
        click.echo(
            f"{_clock(change.t):>11}  {change.slot:<22} {target:<22} #{change.number:<6} "
            f"{change.cause}"
        )
        if change.expression:
            click.echo(f"{'':>13}{change.expression}")
    for note in notes:
        click.echo(f"note: {note}")
    if json_path:
        _write_json(json_path, startd, notes)


def _until(text: str | None, timeline: Timeline) -> int:
    if text is None:
        return timeline.end
    try:
        return parse_time(text)
    except ValueError:
        fail(f"--until {text[:40]!r}: expected seconds, HH:MM[:SS] or dN HH:MM[:SS]")


def _within(
    until: int, timeline: Timeline, max_days: int, until_text: str | None, path: str
) -> None:
    """A trace longer than ``max_days`` would run for minutes or hours: refuse it first."""
    last = max([until] + [step.t for step in timeline.steps])
    if last > max_days * DAY:
        what = f"--until {until_text}" if until_text and until == last else f"{path}: the timeline"
        fail(
            f"{what} runs to day {last // DAY}, more than --max-days {max_days} "
            "(give a larger --max-days to run it)"
        )


def _write_json(path: str, startd: Startd, notes: list[str]) -> None:
    document = {
        "changes": [
            {
                "t": c.t,
                "time": _clock(c.t),
                "slot": c.slot,
                "number": c.number,
                "from": list(c.source),
                "to": list(c.target),
                "cause": c.cause,
                "expression": c.expression,
            }
            for c in startd.changes
        ],
        "actions": [
            {"t": a.t, "slot": a.slot, "kind": a.kind, "detail": a.detail} for a in startd.actions
        ],
        "notes": notes,
    }
    write_file(path, json.dumps(document, indent=1) + "\n")
