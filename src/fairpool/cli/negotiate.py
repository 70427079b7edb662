"""``fairpool negotiate``: a dry run of negotiation on real data, the way an administrator
tests a configuration change before making it.

Everything is read and checked before the state directory is opened, so bad input (a
malformed ad, an invalid expression in a knob, a submit file that does not parse, a
``--json`` file that cannot be written) is one error line, a non-zero exit and an untouched
state. Each completed cycle is saved in one transaction: a run killed at any moment leaves
the state of its last completed cycle, and the ``--json`` file (written whole, beside its
name, before the commit that renames it into place) holds exactly the committed cycles.

Without ``--config`` the negotiator runs on fairpool's defaults (HTCondor's, with the
decisions of docs/compat.md); ``CONDOR_CONFIG`` is not consulted, so a dry run only ever
reads the files it is given.
"""

from __future__ import annotations

import getpass
import json
import re
import time
from collections.abc import Sequence
from pathlib import Path

import click

from ..classad import ClassAd
from ..errors import ClassAdSyntaxError, ConfigError, InputError
from ..negotiator.configure import accountant_policy, negotiator_params
from ..negotiator.results import CycleResult
from ..sim.dryrun import DryRun, pool_time
from ..sim.inputs import read_job_ads, read_slot_ads, submit_job_ads
from ..sim.pool import Pool
from ..startd.layout import machine_ads
from ..store.accountant_store import AccountantStore
from .errors import fail
from .outputs import stage_file, writable_file

__all__ = ["negotiate"]


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--config",
    "configs",
    multiple=True,
    metavar="FILE",
    help="HTCondor configuration file (repeatable; later files override earlier).",
)
@click.option(
    "--slots",
    default=None,
    metavar="FILE",
    help="Machine ads: condor_status -l text, new-syntax or JSON (.gz too). "
    "Without it, the slots of the one machine the configuration describes (NUM_CPUS, "
    "SLOT_TYPE_<N>, ...).",
)
@click.option("--jobs", metavar="FILE", help="Job ads: condor_q -l text, new-syntax or JSON.")
@click.option(
    "--submit",
    "submits",
    multiple=True,
    metavar="[OWNER=]FILE",
    help="Submit description file; each becomes one cluster (repeatable). "
    "OWNER= submits it as that user instead of --owner.",
)
@click.option(
    "--owner",
    default=None,
    metavar="NAME",
    help="Owner of the jobs of --submit files (default: the current user).",
)
@click.option(
    "--state",
    default="fairpool-state",
    show_default=True,
    metavar="DIR",
    help="The accountant's state directory (created if missing).",
)
@click.option(
    "--cycles",
    default=1,
    show_default=True,
    type=click.IntRange(min=1),
    help="Number of negotiation cycles to run.",
)
@click.option(
    "--interval",
    default=None,
    type=click.FloatRange(min=0),
    metavar="SECONDS",
    help="Time between cycles (default: the configuration's NEGOTIATOR_INTERVAL, 60).",
)
@click.option(
    "--start",
    type=float,
    default=None,
    metavar="EPOCH",
    help="Time of the first cycle (default: when the slot ads were taken, else now).",
)
@click.option(
    "--json",
    "json_out",
    default=None,
    metavar="OUT",
    help="Write every cycle's decisions as JSON to OUT.",
)
@click.option("--quiet", is_flag=True, help="Print only each cycle's totals.")
def negotiate(
    configs: Sequence[str],
    slots: str | None,
    jobs: str | None,
    submits: Sequence[str],
    owner: str | None,
    state: str,
    cycles: int,
    interval: float | None,
    start: float | None,
    json_out: str | None,
    quiet: bool,
) -> None:
    """Negotiate jobs against slots as the negotiator would, and report every decision."""
    if json_out:
        writable_file(json_out, "--json")
    try:
        knobs = _configuration(configs)
        params = negotiator_params(knobs, warn=_warn)
        policy = accountant_policy(knobs)
        slot_ads = read_slot_ads(slots) if slots else machine_ads(knobs)
        job_ads = read_job_ads(jobs) if jobs else []
        leftovers = knobs.get_bool("CLAIM_PARTITIONABLE_LEFTOVERS", True)
        if interval is None:
            interval = float(knobs.get_int("NEGOTIATOR_INTERVAL", 60) or 60)
        now = start if start is not None else pool_time(slot_ads) or float(int(time.time()))
        for path, submitter in _owned(submits, owner or getpass.getuser()):
            job_ads += submit_job_ads(
                [path], submitter, int(now), _next_cluster(job_ads), params.accounting_domain, knobs
            )
    except (InputError, ClassAdSyntaxError) as err:
        fail(str(err).splitlines()[0])
    if not job_ads:
        fail("no jobs: give --jobs FILE and/or --submit FILE")
    try:
        store = AccountantStore(state)
    except InputError as err:
        fail(str(err))
    pool = Pool(
        slot_ads,
        job_ads,
        params.accounting_domain,
        params.concurrency,
        claim_leftovers=leftovers,
    )
    run = DryRun(pool, params, policy, store)
    output = _JsonOutput(json_out) if json_out else None
    resume = start is None  # no --start: a saved state's clock goes on
    try:
        for number, result in enumerate(run.cycles(cycles, now, interval, output, resume), 1):
            _report(number, result, quiet)
    except InputError as err:
        fail(str(err))
    except OSError as err:
        fail(f"--json {json_out}: cannot write it ({err.strerror}); the cycle was not committed")


def _configuration(paths: Sequence[str]):
    """The knobs of the configuration files, or an empty configuration (the defaults)."""
    from ..config import load_config, parse_config_text

    return load_config(list(paths)) if paths else parse_config_text("", "<defaults>")


def _owned(submits: Sequence[str], owner: str) -> list[tuple[str, str]]:
    """(file, owner) for each ``--submit``: ``alice=jobs.sub`` names its own owner."""
    owned = []
    for given in submits:
        name, sep, path = given.partition("=")
        if sep and re.fullmatch(r"[\w.-]+", name) and not Path(given).exists():
            owned.append((path, name))
        else:
            owned.append((given, owner))
    return owned


def _warn(problem: ConfigError) -> None:
    click.echo(f"fairpool: warning: {problem}", err=True)


def _next_cluster(jobs: list[ClassAd]) -> int:
    clusters = [j.eval("ClusterId") for j in jobs]
    return max([c for c in clusters if type(c) is int] + [0]) + 1


def _report(number: int, result: CycleResult, quiet: bool) -> None:
    """The cycle in the spirit of the negotiator's log."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(result.time))
    click.echo(
        f"Cycle {number} at {stamp} UTC: {len(result.matches)} matched, "
        f"{len(result.rejections)} rejected"
    )
    if quiet:
        return
    for m in result.matches:
        preempting = f", preempting {m.preempting}" if m.preempting else ""
        click.echo(f"  Matched {m.job} {m.submitter} {m.slot} ({m.reason}{preempting})")
    for r in result.rejections:
        click.echo(f"  Rejected {r.job} {r.submitter}: {r.reason}")
    for name, s in sorted(result.submitters.items()):
        click.echo(
            f"  Submitter {name}: RUP {s.rup:.2f} EUP {s.eup:.2f} factor {s.factor:g} "
            f"usage {s.usage:g} running {s.running}"
        )


class _JsonOutput:
    """Every cycle so far as JSON, written whole beside ``path`` before each commit (the
    commit renames it into place: dryrun.py)."""

    def __init__(self, path: str) -> None:
        self.path = Path(path).absolute()
        self.cycles: list[dict] = []

    def __call__(self, result: CycleResult) -> tuple[str, str]:
        self.cycles.append(result.to_json())
        written = self.path.with_name(f".{self.path.name}.cycle-{len(self.cycles)}")
        stage_file(written, json.dumps({"cycles": self.cycles}, indent=1))
        return str(written), str(self.path)
