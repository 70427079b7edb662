"""``fairpool rm``, ``hold`` and ``release``: condor_rm, condor_hold and condor_release.

Jobs are named as in condor_rm's manual: job ids, cluster ids, user names, ``-constraint
EXPR`` or ``-all``. Each kind of name is one request to the schedd and gets the tools'
line for it (HTCondor 23-24 output, quoted in tests/cli/test_live_commands.py):

* a job: ``Job 5.0 marked for removal`` (``held``, ``released``), or why not: ``Job 5.0
  not found``, ``Permission denied to remove job 5.0``, ``Job 5.0 already held``, ``Job 5.0
  not held to be released``;
* one cluster: ``All jobs in cluster 5 have been marked for removal``; several clusters
  are one request, written as condor_rm writes it: ``All jobs matching constraint
  (ClusterId == 5 || ClusterId == 6) have been marked for removal``;
* a user: ``All jobs of user "alice" have been marked for removal``;
* a constraint: ``All jobs matching constraint (EXPR) have been ...``; ``-all``: ``All
  jobs marked for removal.``

A cluster, user, constraint or ``-all`` fails when no job was acted on: ``Couldn't
find/remove all jobs in cluster 5``, ``... all of user alice's jobs``, ``... all jobs
matching constraint (EXPR)``. Failures go to standard error and make the exit status 1.
``-reason`` becomes the HoldReason (hold), or the reason the user log records (rm,
release).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import click

from ..daemons.client import SyncApi
from ..daemons.errors import Forbidden
from .remote import daemon, refusals
from .selection import Selection

__all__ = ["hold", "release", "rm"]


@dataclass(frozen=True)
class _Action:
    verb: str  # the API's action
    done: str  # "marked for removal", "held", "released"
    tool: str  # the word in "Couldn't find/<tool>" and "Permission denied to <tool>"
    bad_status: str  # a job already in the state, or not in the one the action needs


_ACTIONS = {
    "remove": _Action(
        "remove", "marked for removal", "remove", "Job {} already marked for removal"
    ),
    "hold": _Action("hold", "held", "hold", "Job {} already held"),
    "release": _Action("release", "released", "release", "Job {} not held to be released"),
}


def _command(action: _Action, summary: str, reason: str):
    @click.command(
        context_settings={"help_option_names": ["-help", "--help", "-h"]},
        help=f"{summary}\n\nNAMES are job ids (cluster.proc), cluster ids and user names.",
    )
    @click.argument("names", nargs=-1)
    @click.option(
        "-constraint",
        "-const",
        "constraint",
        default=None,
        metavar="EXPR",
        help="Jobs for which EXPR holds.",
    )
    @click.option("-all", "everything", is_flag=True, help="Every job you may act on.")
    @click.option("-reason", default=None, metavar="TEXT", help=reason)
    @click.option("-name", "--name", "name", default=None, metavar="SCHEDD", help="The schedd.")
    @click.option(
        "--pool", "-pool", "pool", default=None, metavar="URL", help="The pool's address."
    )
    def command(
        names: Sequence[str],
        constraint: str | None,
        everything: bool,
        reason: str | None,
        name: str | None,
        pool: str | None,
    ) -> None:
        with refusals():
            selection = Selection.parse(names, [constraint] if constraint else [])
            if selection.empty and not everything:
                raise click.UsageError(
                    "name jobs: cluster, cluster.proc, user, -constraint or -all"
                )
            schedd = daemon("Scheduler", name, pool)
            failed = _run(schedd, action, selection, everything, reason)
        if failed:
            raise SystemExit(1)

    return command


def _run(
    schedd: SyncApi, action: _Action, selection: Selection, everything: bool, reason: str | None
) -> bool:
    """Send the requests and print their lines; whether any failed."""
    failed = False
    if selection.jobs:
        results = _act(schedd, action, reason, jobs=list(selection.jobs))
        for job in selection.jobs:
            line, ok = _job_line(action, job, results.get(job, "not found"))
            _say(line, ok)
            failed |= not ok
    if selection.clusters:
        clusters = [str(c) for c in selection.clusters]
        if len(clusters) == 1:
            whom = f"all jobs in cluster {clusters[0]}"
        else:
            either = " || ".join(f"ClusterId == {c}" for c in clusters)
            whom = f"all jobs matching constraint ({either})"
        failed |= _group(schedd, action, reason, f"{whom} have been", whom, jobs=clusters)
    for user in selection.users:
        what = f'all jobs of user "{user}" have been'
        failed |= _group(schedd, action, reason, what, f"all of user {user}'s jobs", owner=user)
    for text in selection.constraints:
        whom = f"all jobs matching constraint ({text})"
        failed |= _group(schedd, action, reason, f"{whom} have been", whom, constraint=text)
    if everything:
        failed |= _group(schedd, action, reason, "all jobs", "all jobs", ".", constraint="true")
    return failed


def _group(
    schedd: SyncApi,
    action: _Action,
    reason: str | None,
    what: str,
    whom: str,
    period: str = "",
    **chosen: object,
) -> bool:
    """One request for many jobs; whether it failed (no job was acted on)."""
    results = _act(schedd, action, reason, **chosen)
    if "ok" in results.values():
        _say(f"{what[0].upper()}{what[1:]} {action.done}{period}", True)
        return False
    _say(f"Couldn't find/{action.tool} {whom}", False)
    return True


def _act(schedd: SyncApi, action: _Action, reason: str | None, **chosen: object) -> dict[str, str]:
    body = {"action": action.verb, **chosen}
    if reason is not None:
        body["reason"] = reason
    try:
        return schedd.post("/act", body)["results"]
    except Forbidden:  # none of them the caller's: each job's line says so, as condor_rm's
        jobs = chosen.get("jobs")
        return dict.fromkeys(jobs if isinstance(jobs, list) else [], "permission denied")


def _job_line(action: _Action, job: str, result: str) -> tuple[str, bool]:
    if result == "ok":
        return f"Job {job} {action.done}", True
    if result == "permission denied":
        return f"Permission denied to {action.tool} job {job}", False
    if result == "bad status":
        return action.bad_status.format(job), False
    return f"Job {job} not found", False


def _say(line: str, ok: bool) -> None:
    click.echo(line, err=not ok)


rm = _command(
    _ACTIONS["remove"],
    "Remove jobs from the queue (HTCondor's condor_rm).",
    "Why, for the user log.",
)
hold = _command(
    _ACTIONS["hold"], "Put jobs on hold (HTCondor's condor_hold).", "The jobs' HoldReason."
)
release = _command(
    _ACTIONS["release"],
    "Release held jobs (HTCondor's condor_release).",
    "Why, for the user log.",
)
