"""The starter: runs jobs on this machine, as HTCondor's vanilla universe does.

The only part of fairpool that touches processes. The startd's policy engine decides; the
starter carries out: it prepares a job's sandbox, starts the job as its owner, signals,
notices the exit, measures and cleans up::

    from fairpool.starter import JobProcess, StartError, wait
    try:
        job = JobProcess.spawn(job_ad, slot="slot1_1@host", execute_dir="/var/lib/fairpool/execute")
    except StartError as error:
        schedd_hold(error.hold.attrs())          # HoldReason, HoldReasonCode, HoldReasonSubCode
    loop.add_reader(job.pidfd, on_exit)         # or: record = await wait(job)
    job.usage().attrs()                         # RemoteUserCpu, ImageSize, ... while it runs
    record = job.reap()                         # in on_exit: ExitCode or ExitSignal
    job.finish()                                # output back to Iwd, sandbox removed

No daemon logic here: no claims, no policy expressions, no HTTP.
"""

from .hold import Hold, HoldError, StartError, TransferError
from .leftovers import kill_leftover, remove_stale_sandboxes
from .process import ExitRecord, JobProcess, wait
from .spares import Spares
from .usage import Usage

__all__ = [
    "ExitRecord",
    "Hold",
    "HoldError",
    "JobProcess",
    "Spares",
    "StartError",
    "TransferError",
    "Usage",
    "kill_leftover",
    "remove_stale_sandboxes",
    "wait",
]
