"""Resource requests, file transfer, Rank and Requirements of a job ad."""

from __future__ import annotations

from ..classad import ClassAd, Expr
from .job import JobInput
from .knobs import knob
from .requirements import RequirementsInput, extend_requirements
from .units import KIB, MIB, quantity

__all__ = ["add_resources"]

_TRANSFER = {
    "yes": "YES",
    "true": "YES",
    "always": "YES",
    "no": "NO",
    "false": "NO",
    "never": "NO",
    "if_needed": "IF_NEEDED",
}


def add_resources(ad: ClassAd, job: JobInput, universe: str) -> None:
    """RequestCpus/Memory/Disk/GPUs, ShouldTransferFiles, Rank and the extended Requirements."""
    ad["RequestCpus"] = _count(job, "request_cpus", knob(job.config, "JOB_DEFAULT_REQUESTCPUS"))
    ad["RequestMemory"] = _amount(job, "request_memory", MIB, "JOB_DEFAULT_REQUESTMEMORY")
    ad["RequestDisk"] = _amount(job, "request_disk", KIB, "JOB_DEFAULT_REQUESTDISK")
    ad["TransferInputSizeMB"] = 0
    gpus = job.get("request_gpus")
    if gpus is not None:
        ad["RequestGPUs"] = _count(job, "request_gpus", gpus)
    custom = _custom_requests(job)
    for name, command in custom.items():
        ad[f"Request{name}"] = _count(job, command, job.get(command) or "0")
    transfer = _transfer(job)
    ad["ShouldTransferFiles"] = transfer
    ad["WhenToTransferOutput"] = (job.get("when_to_transfer_output") or "ON_EXIT").upper()
    if transfer != "YES":
        domain = knob(job.config, "FILESYSTEM_DOMAIN") or job.uid_domain or "localdomain"
        ad["FileSystemDomain"] = domain
    ad["Rank"] = job.expr("rank") or 0.0
    ad["Requirements"] = extend_requirements(
        RequirementsInput(
            user=job.expr("requirements"),
            universe=universe,
            arch=job.get("ARCH") or knob(job.config, "ARCH"),
            opsys=job.get("OPSYS") or knob(job.config, "OPSYS"),
            cpus_requested=job.get("request_cpus") is not None,
            gpus_requested=gpus is not None,
            transfer=transfer,
            custom=tuple(custom),
        )
    )


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
    return quantity(text, unit, command, job.source, job.scope.line_of(command, job.line))


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
