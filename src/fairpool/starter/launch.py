"""Starting the job's process: the sandbox filled, the environment made, the job exec'd as
its user; a failure at any step becomes the hold HTCondor would give.

A job that runs as the starter's own user is started from the starter's process: the
working directory checked, stdio opened here, then ``posix_spawn`` (spawn.py; or
``subprocess.Popen``) execs it in a new session (a millisecond or so). A job that needs a
user switch is exec'd by the shim (shim.py), which takes on the user first (tens of
milliseconds: an interpreter starts). Both
go through the same steps in the same order and name the one that failed with its errno:
taking on the user (23 FailedToAccessUserAccount), entering the working directory (14
IwdError), opening stdin (8 UnableToOpenInput), stdout or stderr (7 UnableToOpenOutput),
exec (6 FailedToCreateProcess, worded as HTCondor's starter words it). A shim that neither
execs nor reports within LAUNCH_TIMEOUT (stdin a FIFO nobody writes, a hung mount) is
killed: 6, ETIMEDOUT. So that the starter itself never waits for a FIFO's other end, a job
whose stdio names a FIFO goes through the shim even when it needs no switch.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import select
import signal
import stat
import subprocess
import threading
import time
from dataclasses import dataclass

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
from .messages import Start
from .plan import NULL
from .sandbox import Sandbox
from .spawn import USABLE as SPAWN_USABLE
from .spawn import Spawned, spawn
from .transfer import input_copies, run_copies, shim_command

__all__ = ["LAUNCH_TIMEOUT", "Exec", "prepare"]

LAUNCH_TIMEOUT = 30.0  # seconds for the shim to exec the job (an stdin FIFO or a hung mount)
BUSY_RETRIES = 20  # tries to exec a transferred executable that another fork holds open
BUSY_PAUSE = 0.005  # seconds between them
_WRITE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
_STEPS = {
    "user": (FAILED_TO_ACCESS_USER_ACCOUNT, "Failed to switch to the job's user"),
    "cwd": (IWD_ERROR, "Failed to enter the job's working directory '{path}'"),
    "stdin": (UNABLE_TO_OPEN_INPUT, "Failed to open '{path}' as standard input"),
    "stdout": (UNABLE_TO_OPEN_OUTPUT, "Failed to open '{path}' as standard output"),
    "stderr": (UNABLE_TO_OPEN_OUTPUT, "Failed to open '{path}' as standard error"),
    "timeout": (FAILED_TO_CREATE_PROCESS, "The job did not start within {path} seconds"),
}


@dataclass(frozen=True)
class Exec:
    """A job ready to be exec'd: its sandbox filled, its environment made (``prepare``);
    ``run`` execs it. The two halves may run in different threads: the exec waits for
    the new process (``Popen`` and ``posix_spawn`` return once it has exec'd, the shim
    once it has reported)."""

    spec: dict
    shim: bool  # exec'd through the shim
    busy_retries: int

    def run(self) -> tuple[subprocess.Popen | Spawned, bool]:
        """Exec the job in a new session; StartError when it cannot. Also says whether
        the shim exec'd it."""
        if self.shim:
            return _exec_in_shim(self.spec), True
        return _start_here(self.spec, busy_retries=self.busy_retries), False


def prepare(start: Start, sandbox: Sandbox, *, via_shim: bool = False) -> Exec:
    """Fill the sandbox (the ads, the input files) and plan the job's exec; StartError
    when the job cannot start."""
    plan = start.plan
    scratch = sandbox.where
    job_ad, machine = sandbox.write_ads(start.job_ad, start.machine_ad)
    hold = run_copies(input_copies(plan, scratch), sandbox.user, "input", via_shim=via_shim)
    if hold is not None:
        raise StartError(hold)
    if plan.transfer:  # what the job changes goes back (output_copies)
        sandbox.snapshot()
    cwd = plan.cwd(scratch)
    executable = plan.executable(scratch)
    environment = job_run_environment(
        plan.environment,
        scratch=scratch,
        cwd=cwd,
        slot=start.slot,
        cpus=start.cpus,
        home=sandbox.user.home,
        job_ad=job_ad,
        machine_ad=machine,
        assigned=start.assigned,
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
    shim = sandbox.user.switch or via_shim or _names_fifo(spec)
    written_here = plan.transfer and plan.transfer_executable  # copied in by this process
    return Exec(spec, shim, BUSY_RETRIES if written_here and not shim else 0)


def _start_here(spec: dict, *, busy_retries: int) -> subprocess.Popen | Spawned:
    """The shim's steps, in its order, from this process. The working directory is looked
    at first when a stdio file is to be opened (none is made or emptied for a job that
    cannot enter it), else only when the exec fails, which tells the same: the errno
    alone cannot say whether the chdir or the exec failed (two system calls less for a
    job whose stdio is the null device)."""
    step, path = "cwd", spec["cwd"]
    opened: list[int] = []  # this start's own descriptors, closed once the job has them

    def stdio(path: str, flags: int) -> int:
        if path == NULL:
            return _null(flags)
        opened.append(_open(path, flags))
        return opened[-1]

    looked = spec["stdin"] != NULL or spec["stdout"] != NULL or spec["stderr"] != NULL
    try:
        if looked:
            _check_directory(path)
        step, path = "stdin", spec["stdin"]
        given = [stdio(path, os.O_RDONLY)]
        step, path = "stdout", spec["stdout"]
        given.append(stdio(path, _WRITE))
        step, path = "stderr", spec["stderr"]
        given.append(given[1] if path == spec["stdout"] else stdio(path, _WRITE))
        step, path = "exec", spec["executable"]
        return _popen(spec, given, busy_retries)
    except OSError as error:
        if step == "exec" and error.filename is None:
            raise  # no process could be made (fork failed): the machine's trouble, not the job's
        number = error.errno or 0
        if step == "exec" and not looked:  # the look at the directory, in its place
            try:
                _check_directory(spec["cwd"])
            except OSError as unusable:
                step, path, number = "cwd", spec["cwd"], unusable.errno or 0
        if step == "exec" and error.filename == spec["cwd"] != path:
            step, path = "cwd", spec["cwd"]  # removed between our look and the chdir
        report = {"step": step, "errno": number, "path": path}
        raise StartError(_launch_hold(report)) from None
    except ValueError as error:  # a NUL in a path, word or variable: the shim's "shim" step
        raise StartError(_launch_hold({"step": "shim", "errno": 0, "path": repr(error)})) from None
    finally:
        for fd in set(opened):
            os.close(fd)


def _popen(spec: dict, stdio: list[int], busy_retries: int) -> subprocess.Popen | Spawned:
    """Exec the job in a new session (through posix_spawn where the C library can, see
    spawn.py; else Popen). An executable this process has just copied in may be
    ETXTBSY for a moment: a process that another thread forked while the file was being
    written holds a copy of the write descriptor until it execs, so exec is tried again a few
    times (never for an executable used in place: the shim would not wait for that either)."""
    executable = spec["executable"]
    spawned = SPAWN_USABLE and os.path.isabs(executable)
    while True:
        try:
            if spawned:
                return spawn(executable, spec["argv"], spec["env"], spec["cwd"], stdio)
            return subprocess.Popen(
                spec["argv"],
                executable=executable,
                stdin=stdio[0],
                stdout=stdio[1],
                stderr=stdio[2],
                cwd=spec["cwd"],
                env=spec["env"],
                start_new_session=True,
                close_fds=True,
            )
        except OSError as error:
            if error.errno != errno.ETXTBSY or busy_retries <= 0:
                raise
            busy_retries -= 1
            time.sleep(BUSY_PAUSE)


def _check_directory(path: str) -> None:
    """What chdir would say, found without changing this process's directory."""
    if not stat.S_ISDIR(os.stat(path).st_mode):
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), path)
    if not os.access(path, os.X_OK, effective_ids=True):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)


def _open(path: str, flags: int) -> int:
    """Open for the job without waiting for the other end of a FIFO swapped in after
    ``_names_fifo`` looked; the job then gets the descriptor blocking, as usual."""
    fd = os.open(path, flags | os.O_NONBLOCK, 0o644)
    os.set_blocking(fd, True)
    return fd


def _null(flags: int) -> int:
    """This process's own descriptor of /dev/null for reading or writing, opened once
    and given to every job whose stdio it is (most jobs' stdin, many jobs' stdout and
    stderr): an open and a close less per stream and job. What a job could change of
    it, its file status flags, changes nothing /dev/null does."""
    with _NULL_LOCK:
        fd = _NULLS.get(flags)
        if fd is None:
            fd = _NULLS[flags] = _open(NULL, flags)
        return fd


_NULLS: dict[int, int] = {}  # open flags -> this process's descriptor of /dev/null
_NULL_LOCK = threading.Lock()


def _names_fifo(spec: dict) -> bool:
    """Whether stdin, stdout or stderr is an existing FIFO (the shim waits for those)."""
    for name in ("stdin", "stdout", "stderr"):
        if spec[name] == NULL:  # the null device, whatever it is
            continue
        try:
            if stat.S_ISFIFO(os.stat(spec[name]).st_mode):
                return True
        except (OSError, ValueError):  # absent, or not a path: the open will say
            continue
    return False


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
