"""The configuration knobs condor_submit consults, with fairpool's machine-independent defaults.

condor_submit takes ARCH and OPSYS from the machine it runs on; fairpool must give the same
ads wherever it runs, so they default to the most common execute platform (``X86_64``,
``LINUX``) and a caller passes ``config={"ARCH": ..., "OPSYS": ...}`` to change them.
The resource defaults are HTCondor's documented ones (JOB_DEFAULT_REQUESTMEMORY 128 MiB;
JOB_DEFAULT_REQUESTDISK the larger of 1 GiB and 125% of the input size, in KiB).
CONCURRENCY_LIMITS_LOWER_CASE is fairpool's: condor_submit lower-cases the limit names, the
seed's example ad keeps them as written; false selects the seed's form.
MAX_JOBS_PER_SUBMISSION is the schedd's limit on the jobs one submission may queue (20,000,
HTCondor's default): fairpool refuses more before building them (docs/limits.md).
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["SUBMIT_DEFAULTS", "knob"]

SUBMIT_DEFAULTS: dict[str, str] = {
    "ARCH": "X86_64",
    "OPSYS": "LINUX",
    "DEFAULT_UNIVERSE": "vanilla",
    "JOB_DEFAULT_REQUESTCPUS": "1",
    "JOB_DEFAULT_REQUESTMEMORY": "128",
    "JOB_DEFAULT_REQUESTDISK": "MAX({1024, (TransferInputSizeMB+1) * 1.25}) * 1024",
    "SUBMIT_DEFAULT_SHOULD_TRANSFER_FILES": "YES",
    "NICE_USER_ACCOUNTING_GROUP_NAME": "nice-user",
    "FILESYSTEM_DOMAIN": "",
    "CONCURRENCY_LIMITS_LOWER_CASE": "true",
    "MAX_JOBS_PER_SUBMISSION": "20000",
}


def knob(config: Mapping[str, str] | None, name: str) -> str:
    """A knob's value: the caller's (names without case), else the default."""
    if config:
        for key, value in config.items():
            if key.upper() == name:
                return str(value)
    return SUBMIT_DEFAULTS[name]
