"""The schedd's side of the pool: the job queue, autoclusters, the user log and what else the
schedd keeps for the jobs it owns. ``userlog`` writes each job's user log in HTCondor's job
event log format, for condor_wait, DAGMan and ``htcondor2.JobEventLog`` to read.
"""

from .userlog import (
    DEFAULT_FORMAT,
    Aborted,
    Evicted,
    Executing,
    Held,
    ImageSize,
    JobAdInformation,
    LogFormat,
    Released,
    ResourceRow,
    Submitted,
    Suspended,
    Terminated,
    Unsuspended,
    Usage,
    UserLog,
    UserLogError,
    UserLogEvent,
    format_event,
    single_line,
    user_log_path,
)

__all__ = [
    "DEFAULT_FORMAT",
    "Aborted",
    "Evicted",
    "Executing",
    "Held",
    "ImageSize",
    "JobAdInformation",
    "LogFormat",
    "Released",
    "ResourceRow",
    "Submitted",
    "Suspended",
    "Terminated",
    "Unsuspended",
    "Usage",
    "UserLog",
    "UserLogError",
    "UserLogEvent",
    "format_event",
    "single_line",
    "user_log_path",
]
