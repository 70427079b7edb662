"""The sections of one job's ClassAd: the attributes condor_submit gives a job.

Identity (ClusterId, ProcId, QDate, Owner, User), the program (JobUniverse, Cmd, Args or
Arguments, Env or Environment, Iwd, In, Out, Err, UserLog), status (JobStatus 1 idle, or 5
held with HoldReasonCode 15 for ``hold = true``; JobPrio from ``priority``), resources and
Requirements (resources.py), accounting (accounting.py), policy expressions with their
defaults, and last the ``+Attr`` / ``MY.Attr`` attributes, which override anything.

The ad is built in *sections*: small functions of the job giving ``(name, value)`` pairs,
applied in order (sharing.py assembles them: a later pair overrides an earlier one of the
same name). A section reads only what it needs, so a queue statement whose jobs differ in
a few commands rebuilds only the sections that read them (batch.py).
"""

from __future__ import annotations

import posixpath

from ..classad import ClassAd
from ..errors import SubmitError
from .accounting import add_accounting
from .argv import arguments_attr, environment_attr
from .job import UNIVERSES, JobInput, Pairs, Section
from .resources import RESOURCE_SECTIONS

__all__ = ["UNIVERSES", "job_sections"]

_POLICY = {
    "periodic_hold": ("PeriodicHold", "false"),
    "periodic_release": ("PeriodicRelease", "false"),
    "periodic_remove": ("PeriodicRemove", "false"),
    "on_exit_hold": ("OnExitHold", "false"),
    "on_exit_remove": ("OnExitRemove", "true"),
}
_STRINGS = {
    "batch_name": "JobBatchName",
    "jobbatchname": "JobBatchName",
    "description": "JobDescription",
    "transfer_input_files": "TransferInput",
    "transfer_output_files": "TransferOutput",
}
HELD_BY_USER_AT_SUBMIT = 15  # HoldReasonCode "SubmittedOnHold"


def job_sections(job: JobInput) -> tuple[Section, ...]:
    """The sections of the job's ad, in order; one per ``+Attr`` at the end."""
    custom = tuple(
        _custom(key, definition.spelling)
        for key, definition in job.scope.macros.items()
        if key.startswith("my.")
    )
    return _SECTIONS + custom


def _identity(job: JobInput) -> Pairs:
    return (("MyType", "Job"), ("TargetType", "Machine"), ("ClusterId", job.cluster))


def _proc_id(job: JobInput) -> Pairs:
    return (("ProcId", job.proc),)


def _submitter(job: JobInput) -> Pairs:
    pairs = (("QDate", job.qdate), ("Owner", job.owner))
    if job.uid_domain:
        return (*pairs, ("User", f"{job.owner}@{job.uid_domain}"))
    return pairs


def _job_universe(job: JobInput) -> Pairs:
    return (("JobUniverse", UNIVERSES[job.universe()]),)


def _command(job: JobInput) -> Pairs:
    universe = job.universe()
    iwd = job.once("iwd", _iwd)
    executable = job.get("executable")
    pairs: Pairs = ()
    if universe == "docker":
        image = job.get("docker_image")
        if image is None:
            raise job.error("universe", "docker universe: expected a 'docker_image' command")
        pairs = (("WantDocker", True), ("DockerImage", image))
    elif executable is None:
        raise SubmitError(
            "no 'executable' command before this queue statement: expected one",
            job.source,
            job.line,
        )
    if executable is not None:
        pairs = (*pairs, ("Cmd", _absolute(job.cwd and str(job.cwd), executable)))
    if iwd is not None:
        pairs = (*pairs, ("Iwd", iwd))
    return pairs


def _arguments(job: JobInput) -> Pairs:
    text = job.get("arguments")
    if text is None:
        return ()
    return (arguments_attr(text, job.source, job.line_of("arguments")),)


def _environment(job: JobInput) -> Pairs:
    text = job.get("environment")
    if text is None:
        return ()
    return (environment_attr(text, job.source, job.line_of("environment")),)


def _file(command: str, attribute: str) -> Section:
    def section(job: JobInput) -> Pairs:
        return ((attribute, job.get(command) or "/dev/null"),)

    return section


def _log(job: JobInput) -> Pairs:
    log = job.get("log")
    if log is None:
        return ()
    return (("UserLog", _absolute(job.once("iwd", _iwd), log)),)


def _iwd(job: JobInput) -> str | None:
    initial = job.get("initialdir")
    base = str(job.cwd) if job.cwd is not None else None
    if initial is None:
        return base
    return _absolute(base, initial)


def _absolute(base: str | None, path: str) -> str:
    if base is None or posixpath.isabs(path):
        return path
    return posixpath.normpath(posixpath.join(base, path))


def _hold(job: JobInput) -> Pairs:
    if not job.flag("hold"):
        return (("JobStatus", 1), ("EnteredCurrentStatus", job.qdate))
    return (
        ("JobStatus", 5),
        ("EnteredCurrentStatus", job.qdate),
        ("HoldReason", "submitted on hold at user's request"),
        ("HoldReasonCode", HELD_BY_USER_AT_SUBMIT),
        ("HoldReasonSubCode", 0),
    )


def _priority(job: JobInput) -> Pairs:
    return (("JobPrio", job.integer("priority", 0)),)


def _accounting(job: JobInput) -> Pairs:
    ad = ClassAd()
    add_accounting(ad, job)
    return tuple((name, ad.lookup(name)) for name in ad)


def _policy(command: str, attribute: str, default: str) -> Section:
    def section(job: JobInput) -> Pairs:
        return ((attribute, job.expr(command) or job.expr(command, default)),)

    return section


def _retirement(job: JobInput) -> Pairs:
    retirement = job.expr("max_job_retirement_time")
    return () if retirement is None else (("MaxJobRetirementTime", retirement),)


def _string(command: str, attribute: str) -> Section:
    def section(job: JobInput) -> Pairs:
        text = job.get(command)
        return () if text is None else ((attribute, text),)

    return section


def _custom(key: str, spelling: str) -> Section:
    def section(job: JobInput) -> Pairs:
        expression = job.expr(key)
        return () if expression is None else ((spelling, expression),)

    return section


_SECTIONS: tuple[Section, ...] = (
    _identity,
    _proc_id,
    _submitter,
    _job_universe,
    _command,
    _arguments,
    _environment,
    _file("input", "In"),
    _file("output", "Out"),
    _file("error", "Err"),
    _log,
    _hold,
    _priority,
    *RESOURCE_SECTIONS,
    _accounting,
    *(_policy(command, *attribute) for command, attribute in _POLICY.items()),
    _retirement,
    *(_string(command, attribute) for command, attribute in _STRINGS.items()),
)
