"""What the job ad asks the starter to do, read once and checked before anything is touched.

Pure: no I/O, no clock. The plan decides where the job runs (the scratch directory when
``ShouldTransferFiles`` is ``"YES"``, else ``Iwd``; ``IF_NEEDED`` is taken as ``NO``, one
file system domain being all fairpool's live pool knows), which program it runs
(``Cmd`` resolved against ``Iwd``; copied into the sandbox as ``condor_exec.exe`` unless
``TransferExecutable`` is false, as HTCondor transfers it by default), its stdio and signals.
"""

from __future__ import annotations

import posixpath
import re
import signal
from dataclasses import dataclass
from operator import is_

from ..classad import ClassAd, Expr
from ..classad.scope import NOT_CONST
from .argv import job_arguments, job_environment
from .hold import FAILED_TO_CREATE_PROCESS, IWD_ERROR, Hold, StartError

__all__ = [
    "EXECUTABLE_NAME",
    "NULL",
    "STDERR_NAME",
    "STDOUT_NAME",
    "JobPlan",
    "kill_signal",
    "parse_remaps",
    "plan_job",
    "resolve_path",
]

EXECUTABLE_NAME = "condor_exec.exe"  # the transferred executable's name in the sandbox
STDOUT_NAME = "_condor_stdout"  # the job's stdout in the sandbox, copied to Out on exit
STDERR_NAME = "_condor_stderr"
NULL = "/dev/null"


@dataclass(frozen=True)
class JobPlan:
    """The parts of a job ad the starter acts on, with paths resolved against ``Iwd``."""

    owner: str
    iwd: str
    transfer: bool
    command: str
    transfer_executable: bool
    arguments: tuple[str, ...]
    environment: dict[str, str]
    stdin: str
    stdout: str
    stderr: str
    transfer_input: tuple[str, ...]
    transfer_output: tuple[str, ...] | None
    remaps: tuple[tuple[str, str], ...]
    kill_signal: int
    cpus: int

    def executable(self, scratch: str) -> str:
        """The path the job is exec'd from."""
        if self.transfer and self.transfer_executable:
            return posixpath.join(scratch, EXECUTABLE_NAME)
        return self.command

    def cwd(self, scratch: str) -> str:
        return scratch if self.transfer else self.iwd

    def job_stdout(self, scratch: str) -> str:
        """Where the job's stdout goes while it runs (the sandbox when transferring)."""
        return self._stdio(scratch, self.stdout, STDOUT_NAME)

    def job_stderr(self, scratch: str) -> str:
        return self._stdio(scratch, self.stderr, STDERR_NAME)

    def _stdio(self, scratch: str, path: str, name: str) -> str:
        if not self.transfer or path == NULL:
            return path
        if self.stdout == self.stderr:
            return posixpath.join(scratch, STDOUT_NAME)  # one file for both, as submitted
        return posixpath.join(scratch, name)


def plan_job(ad: ClassAd) -> JobPlan:
    """Read the ad; a StartError for what cannot work whatever the machine holds. A plan
    is made once for the expressions it reads (found by identity: expressions are
    immutable and shared), which the jobs of a cluster mostly share, unless RequestCpus
    is an expression that may read other attributes."""
    exprs = ad._exprs
    inputs = tuple([exprs.get(key) for key in _READ])
    key = tuple(map(id, inputs))
    found = _plans.get(key)
    if found is not None and all(map(is_, found[0], inputs)):
        return found[1]
    plan = _read(ad)
    cpus = inputs[-1]
    if cpus is None or cpus.const is not NOT_CONST:
        if len(_plans) >= _KEPT:
            _plans.clear()
        _plans[key] = (inputs, plan)
    return plan


# what _read reads, in lower case (RequestCpus last)
_READ = (
    "iwd",
    "cmd",
    "transferoutput",
    "owner",
    "shouldtransferfiles",
    "transferexecutable",
    "arguments",
    "args",
    "environment",
    "env",
    "in",
    "out",
    "err",
    "transferinput",
    "transferoutputremaps",
    "killsig",
    "requestcpus",
)
_KEPT = 4096  # plans kept before they are all forgotten
_plans: dict[tuple[int, ...], tuple[tuple[Expr | None, ...], JobPlan]] = {}


def _read(ad: ClassAd) -> JobPlan:
    iwd = _string(ad, "Iwd")
    if not iwd or not posixpath.isabs(iwd):
        raise StartError(Hold(f"job ad has no absolute Iwd (got {iwd!r})", IWD_ERROR))
    command = _string(ad, "Cmd")
    if not command:
        raise StartError(Hold("job ad has no Cmd", FAILED_TO_CREATE_PROCESS))
    output = _string(ad, "TransferOutput")
    return JobPlan(
        owner=_string(ad, "Owner") or "",
        iwd=iwd,
        transfer=(_string(ad, "ShouldTransferFiles") or "").upper() == "YES",
        command=resolve_path(iwd, command),
        transfer_executable=ad.get("TransferExecutable") is not False,
        arguments=tuple(job_arguments(ad)),
        environment=job_environment(ad),
        stdin=resolve_path(iwd, _string(ad, "In") or NULL),
        stdout=resolve_path(iwd, _string(ad, "Out") or NULL),
        stderr=resolve_path(iwd, _string(ad, "Err") or NULL),
        transfer_input=_file_list(_string(ad, "TransferInput")),
        transfer_output=None if output is None else _file_list(output),
        remaps=parse_remaps(_string(ad, "TransferOutputRemaps") or ""),
        kill_signal=kill_signal(ad.get("KillSig")),
        cpus=_positive_int(ad.eval("RequestCpus", now=0.0)) if "RequestCpus" in ad else 1,
    )


def parse_remaps(text: str) -> tuple[tuple[str, str], ...]:
    """``TransferOutputRemaps``: ``name = target`` pairs separated by ``;``, where ``\\``
    escapes a literal ``=`` or ``;`` (the condor_submit manual's syntax)."""
    if not text:  # most jobs: no regular expression run at each start
        return ()
    pairs = []
    for entry in re.split(r"(?<!\\);", text):
        parts = re.split(r"(?<!\\)=", entry, maxsplit=1)
        if len(parts) == 2:
            name, target = (re.sub(r"\\([=;])", r"\1", part.strip()) for part in parts)
            if name and target:
                pairs.append((name, target))
    return tuple(pairs)


def kill_signal(value: object) -> int:
    """``KillSig`` as a signal number: a number, or a name with or without ``SIG``
    (condor_submit stores ``kill_sig = SIGUSR1`` as the name); SIGTERM when absent or unknown."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    if isinstance(value, str):
        text = value.strip().upper()
        if text.isdigit() and int(text) > 0:
            return int(text)
        name = text if text.startswith("SIG") else "SIG" + text
        number = signal.Signals.__members__.get(name)
        if number is not None:
            return int(number)
    return int(signal.SIGTERM)


def _file_list(text: str | None) -> tuple[str, ...]:
    return tuple(item.strip() for item in (text or "").split(",") if item.strip())


def resolve_path(base: str, path: str) -> str:
    """``path`` relative to ``base`` unless absolute (Iwd for the ad's paths)."""
    return path if posixpath.isabs(path) else posixpath.normpath(posixpath.join(base, path))


def _string(ad: ClassAd, name: str) -> str | None:
    value = ad.get(name)
    return value if isinstance(value, str) else None


def _positive_int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 1
    return max(1, int(value))
