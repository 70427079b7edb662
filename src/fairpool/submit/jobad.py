"""One job's ClassAd, with the attributes condor_submit gives it.

Identity (ClusterId, ProcId, QDate, Owner, User), the program (JobUniverse, Cmd, Args or
Arguments, Env or Environment, Iwd, In, Out, Err, UserLog), status (JobStatus 1 idle, or 5
held with HoldReasonCode 15 for ``hold = true``; JobPrio from ``priority``), resources and
Requirements (resources.py), accounting (accounting.py), policy expressions with their
defaults, and last the ``+Attr`` / ``MY.Attr`` attributes, which override anything.
"""

from __future__ import annotations

import posixpath

from ..classad import ClassAd
from ..errors import SubmitError
from .accounting import add_accounting
from .argv import arguments_attr, environment_attr
from .job import JobInput
from .knobs import knob
from .resources import add_resources

__all__ = ["UNIVERSES", "build_job_ad"]

UNIVERSES = {"vanilla": 5, "docker": 5, "parallel": 11, "scheduler": 7, "local": 12}
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


def build_job_ad(job: JobInput) -> ClassAd:
    """The job ad for one queued job."""
    ad = ClassAd()
    ad["MyType"] = "Job"
    ad["TargetType"] = "Machine"
    ad["ClusterId"] = job.cluster
    ad["ProcId"] = job.proc
    ad["QDate"] = job.qdate
    ad["Owner"] = job.owner
    if job.uid_domain:
        ad["User"] = f"{job.owner}@{job.uid_domain}"
    universe = _universe(job)
    ad["JobUniverse"] = UNIVERSES[universe]
    _program(ad, job, universe)
    _status(ad, job)
    add_resources(ad, job, universe)
    add_accounting(ad, job)
    _policy(ad, job)
    _custom(ad, job)
    return ad


def _universe(job: JobInput) -> str:
    name = (job.get("universe") or knob(job.config, "DEFAULT_UNIVERSE")).lower()
    if name not in UNIVERSES:
        raise job.error(
            "universe",
            f"universe = {name}: not supported by fairpool: expected one of "
            + ", ".join(sorted(UNIVERSES)),
        )
    return name


def _program(ad: ClassAd, job: JobInput, universe: str) -> None:
    iwd = _iwd(job)
    executable = job.get("executable")
    if universe == "docker":
        image = job.get("docker_image")
        if image is None:
            raise job.error("universe", "docker universe: expected a 'docker_image' command")
        ad["WantDocker"] = True
        ad["DockerImage"] = image
    elif executable is None:
        raise SubmitError(
            "no 'executable' command before this queue statement: expected one",
            job.source,
            job.line,
        )
    if executable is not None:
        ad["Cmd"] = _absolute(job.cwd and str(job.cwd), executable)
    if iwd is not None:
        ad["Iwd"] = iwd
    for command, render in (("arguments", arguments_attr), ("environment", environment_attr)):
        text = job.get(command)
        if text is not None:
            name, value = render(text, job.source, job.scope.line_of(command, job.line))
            ad[name] = value
    ad["In"] = job.get("input") or "/dev/null"
    ad["Out"] = job.get("output") or "/dev/null"
    ad["Err"] = job.get("error") or "/dev/null"
    log = job.get("log")
    if log is not None:
        ad["UserLog"] = _absolute(iwd, log)


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


def _status(ad: ClassAd, job: JobInput) -> None:
    held = job.flag("hold")
    ad["JobStatus"] = 5 if held else 1
    ad["EnteredCurrentStatus"] = job.qdate
    if held:
        ad["HoldReason"] = "submitted on hold at user's request"
        ad["HoldReasonCode"] = HELD_BY_USER_AT_SUBMIT
        ad["HoldReasonSubCode"] = 0
    ad["JobPrio"] = job.integer("priority", 0)


def _policy(ad: ClassAd, job: JobInput) -> None:
    for command, (attribute, default) in _POLICY.items():
        ad[attribute] = job.expr(command) or job.expr(command, default)
    retirement = job.expr("max_job_retirement_time")
    if retirement is not None:
        ad["MaxJobRetirementTime"] = retirement
    for command, attribute in _STRINGS.items():
        text = job.get(command)
        if text is not None:
            ad[attribute] = text


def _custom(ad: ClassAd, job: JobInput) -> None:
    for key, definition in job.scope.macros.items():
        if key.startswith("my."):
            expression = job.expr(key)
            if expression is not None:
                ad[definition.spelling] = expression
