"""Starting the job's process: the sandbox filled, the environment made, the shim exec'ing
the job as its user; a failure at any step becomes the hold HTCondor would give.

The shim (shim.py) reports the step that failed and its errno: taking on the user (23
FailedToAccessUserAccount), entering the working directory (14 IwdError), opening stdin
(8 UnableToOpenInput), stdout or stderr (7 UnableToOpenOutput), exec (6 FailedToCreateProcess,
worded as HTCondor's starter words it). A shim that neither execs nor reports within
LAUNCH_TIMEOUT (stdin a FIFO nobody writes, a hung mount) is killed: 6, ETIMEDOUT.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import select
import signal
import subprocess
import time

from ..classad import ClassAd
from .environment import job_run_environment
from .hold import (
    FAILED_TO_ACCESS_USER_ACCOUNT,
    FAILED_TO_CREATE_PROCESS,
    IWD_ERROR,
    UNABLE_TO_OPEN_INPUT,
    UNABLE_TO_OPEN_OUTPUT,
    Hold,
    StartError,
)
from .plan import JobPlan
from .sandbox import JOB_AD_NAME, MACHINE_AD_NAME, Sandbox
from .transfer import input_copies, run_copies, shim_command

__all__ = ["LAUNCH_TIMEOUT", "launch"]

LAUNCH_TIMEOUT = 30.0  # seconds for the shim to exec the job (an stdin FIFO or a hung mount)
_STEPS = {
    "user": (FAILED_TO_ACCESS_USER_ACCOUNT, "Failed to switch to the job's user"),
    "cwd": (IWD_ERROR, "Failed to enter the job's working directory '{path}'"),
    "stdin": (UNABLE_TO_OPEN_INPUT, "Failed to open '{path}' as standard input"),
    "stdout": (UNABLE_TO_OPEN_OUTPUT, "Failed to open '{path}' as standard output"),
    "stderr": (UNABLE_TO_OPEN_OUTPUT, "Failed to open '{path}' as standard error"),
    "timeout": (FAILED_TO_CREATE_PROCESS, "The job did not start within {path} seconds"),
}


def launch(
    ad: ClassAd, plan: JobPlan, sandbox: Sandbox, slot: str, machine_ad: ClassAd | None
) -> subprocess.Popen:
    """Fill the sandbox and start the job in a new session; StartError when it cannot."""
    scratch = str(sandbox.path)
    job_ad = sandbox.write_ad(JOB_AD_NAME, ad)
    machine = sandbox.write_ad(MACHINE_AD_NAME, machine_ad) if machine_ad is not None else None
    hold = run_copies(input_copies(plan, scratch), sandbox.user, "input")
    if hold is not None:
        raise StartError(hold)
    sandbox.snapshot()
    cwd = plan.cwd(scratch)
    executable = plan.executable(scratch)
    environment = job_run_environment(
        plan.environment,
        scratch=scratch,
        cwd=cwd,
        slot=slot,
        cpus=_cpus(plan, machine_ad),
        home=sandbox.user.home,
        job_ad=job_ad,
        machine_ad=machine,
    )
    spec = {
        "user": sandbox.user.spec(),
        "cwd": cwd,
        "stdin": plan.stdin,
        "stdout": plan.job_stdout(scratch),
        "stderr": plan.job_stderr(scratch),
        "executable": executable,
        "argv": [executable, *plan.arguments],
        "env": environment,
    }
    return _exec_in_shim(spec)


def _exec_in_shim(spec: dict) -> subprocess.Popen:
    """Start the shim in a new session and wait until it has exec'd the job or said why not."""
    status_read, status_write = os.pipe()
    try:
        popen = subprocess.Popen(
            shim_command("exec", str(status_write)),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(status_write,),
            start_new_session=True,
            env={},
            cwd="/",
        )
    except BaseException:
        os.close(status_read)
        raise
    finally:
        os.close(status_write)
    try:
        with contextlib.suppress(BrokenPipeError), popen.stdin:
            popen.stdin.write(json.dumps(spec).encode())
        report = _read_report(status_read)
    finally:
        os.close(status_read)
    if report is None:
        return popen
    with contextlib.suppress(ProcessLookupError):
        os.killpg(popen.pid, signal.SIGKILL)  # at once for a shim that reported; else stuck
    popen.wait()
    raise StartError(_launch_hold(report))


def _read_report(fd: int) -> dict | None:
    """What the shim wrote before it exec'd (nothing) or gave up, read until end of file."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + LAUNCH_TIMEOUT
    chunks = []
    while (remaining := deadline - time.monotonic()) > 0:
        if not poller.poll(remaining * 1000):
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            return json.loads(b"".join(chunks)) if chunks else None
        chunks.append(chunk)
    return {"step": "timeout", "errno": errno.ETIMEDOUT, "path": LAUNCH_TIMEOUT}


def _launch_hold(report: dict) -> Hold:
    step, number, path = report["step"], report["errno"], report["path"]
    if step == "exec":
        text = os.strerror(number)
        reason = f"Failed to execute '{path}': (errno={number}: '{text}')"
        return Hold(reason, FAILED_TO_CREATE_PROCESS, number)
    if step in _STEPS:
        code, what = _STEPS[step]
        return Hold.from_errno(code, number, what.format(path=path))
    return Hold(f"Failed to start the job: {path}", FAILED_TO_CREATE_PROCESS)


def _cpus(plan: JobPlan, machine_ad: ClassAd | None) -> int:
    """The slot's cores when its ad says, else what the job requested."""
    cpus = machine_ad.get("Cpus") if machine_ad is not None else None
    return cpus if isinstance(cpus, int) and not isinstance(cpus, bool) and cpus > 0 else plan.cpus
