"""Resource requests, file transfer, Rank and Requirements of a job ad, as sections
(jobad.py): RequestCpus/Memory/Disk/GPUs, ShouldTransferFiles, Rank and the extended
Requirements."""

from __future__ import annotations

from ..classad import Expr
from .job import JobInput, Pairs, Section
from .knobs import knob
from .requirements import RequirementsInput, extend_requirements
from .units import KIB, MIB, quantity

__all__ = ["RESOURCE_SECTIONS"]

_TRANSFER = {
    "yes": "YES",
    "true": "YES",
    "always": "YES",
    "no": "NO",
    "false": "NO",
    "never": "NO",
    "if_needed": "IF_NEEDED",
}


def _cpus(job: JobInput) -> Pairs:
    default = knob(job.config, "JOB_DEFAULT_REQUESTCPUS")
    return (("RequestCpus", _count(job, "request_cpus", default)),)


def _memory(job: JobInput) -> Pairs:
    return (("RequestMemory", _amount(job, "request_memory", MIB, "JOB_DEFAULT_REQUESTMEMORY")),)


def _disk(job: JobInput) -> Pairs:
    disk = _amount(job, "request_disk", KIB, "JOB_DEFAULT_REQUESTDISK")
    return (("RequestDisk", disk), ("TransferInputSizeMB", 0))


def _gpus(job: JobInput) -> Pairs:
    gpus = job.once("request_gpus", _gpus_given)
    return () if gpus is None else (("RequestGPUs", _count(job, "request_gpus", gpus)),)


def _custom(job: JobInput) -> Pairs:
    """Custom machine resources the job asks for (``request_cogs = 2``: RequestCogs)."""
    return tuple(
        (f"Request{name}", _count(job, command, job.get(command) or "0"))
        for name, command in job.once("custom requests", _custom_requests).items()
    )


def _transfer_files(job: JobInput) -> Pairs:
    transfer = job.once("transfer", _transfer)
    pairs = (
        ("ShouldTransferFiles", transfer),
        ("WhenToTransferOutput", (job.get("when_to_transfer_output") or "ON_EXIT").upper()),
    )
    if transfer == "YES":
        return pairs
    domain = knob(job.config, "FILESYSTEM_DOMAIN") or job.uid_domain or "localdomain"
    return (*pairs, ("FileSystemDomain", domain))


def _rank(job: JobInput) -> Pairs:
    return (("Rank", job.expr("rank") or 0.0),)


def _requirements(job: JobInput) -> Pairs:
    extended = extend_requirements(
        RequirementsInput(
            user=job.expr("requirements"),
            universe=job.universe(),
            arch=job.get("ARCH") or knob(job.config, "ARCH"),
            opsys=job.get("OPSYS") or knob(job.config, "OPSYS"),
            cpus_requested=job.get("request_cpus") is not None,
            gpus_requested=job.once("request_gpus", _gpus_given) is not None,
            transfer=job.once("transfer", _transfer),
            custom=tuple(job.once("custom requests", _custom_requests)),
        )
    )
    return (("Requirements", extended),)


def _gpus_given(job: JobInput) -> str | None:
    return job.get("request_gpus")


_STANDARD = frozenset({"request_cpus", "request_memory", "request_disk", "request_gpus"})


def _custom_requests(job: JobInput) -> dict[str, str]:
    """Custom machine resources the job asks for (condor_submit manual, request_<name>:
    ``request_cogs = 2`` gives ``RequestCogs``): resource name -> submit command."""
    found = {}
    for command in sorted(job.scope.macros):
        if command.startswith("request_") and command not in _STANDARD:
            tag = command[len("request_") :]
            if tag and job.get(command) is not None:
                found[tag[0].upper() + tag[1:]] = command
    return found


def _count(job: JobInput, command: str, default: str) -> int | Expr:
    text = job.get(command) or default
    try:
        return int(text)
    except ValueError:
        return job.expr(command, text)


def _amount(job: JobInput, command: str, unit: int, default_knob: str) -> int | Expr:
    text = job.get(command)
    if text is None:
        return _count(job, command, knob(job.config, default_knob))
    return quantity(text, unit, command, job.source, job.line_of(command))


def _transfer(job: JobInput) -> str:
    text = job.get("should_transfer_files")
    if text is None:
        default = knob(job.config, "SUBMIT_DEFAULT_SHOULD_TRANSFER_FILES")
        return _TRANSFER.get(default.lower(), "IF_NEEDED")
    if text.lower() not in _TRANSFER:
        raise job.error(
            "should_transfer_files",
            f"should_transfer_files = {text}: expected YES, NO or IF_NEEDED",
        )
    return _TRANSFER[text.lower()]


RESOURCE_SECTIONS: tuple[Section, ...] = (
    _cpus,
    _memory,
    _disk,
    _gpus,
    _custom,
    _transfer_files,
    _rank,
    _requirements,
)
