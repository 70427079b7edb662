"""One job's process: spawned, signalled, noticed on exit, reaped, measured and finished.

The job runs in its own session, so its pid is also its process group: every signal goes to
the group, reaching the children the job started (those that did not leave the group with
``setsid``). The exit is noticed without polling through a pidfd, which becomes readable
when the process exits (``loop.add_reader(job.pidfd, ...)``, or ``await wait(job)``); the
exit status stays with the kernel until ``reap()`` collects it, so the pid, and with it the
process group id, cannot be reused by another process before then. After ``reap()`` no
signal is sent, since the ids may name someone else's processes. At reap the starter kills
what the job left behind in its group, as HTCondor's starter kills the job's family.

Calls are made from one thread, and nothing else in the process may reap children with
``waitpid(-1)`` (asyncio's old Safe/Fast child watchers do). ``spawn`` and ``finish`` copy
files and start processes (a millisecond or two for a job that runs as the starter's own
user, tens of milliseconds through the shim when a user switch is needed, longer for big
transfers): a daemon on asyncio runs them in an executor.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from ..classad import ClassAd
from .hold import StartError, TransferError
from .identity import job_user
from .launch import Exec, prepare
from .leftovers import start_time
from .messages import Start, from_slot
from .plan import JobPlan
from .sandbox import Sandbox
from .spares import Spares
from .spawn import Spawned
from .transfer import output_copies, run_copies
from .usage import Usage, sample_tree

__all__ = ["ExitRecord", "JobProcess", "Launch", "wait"]


@dataclass(frozen=True)
class ExitRecord:
    """How the job ended (a code, or a signal) and what it used, from ``wait4``.

    ``max_rss_kib`` is the kernel's figure, which also counts the image the process had
    before it exec'd the job (a copy of the starter's): an upper bound, not the job's own
    peak (``JobProcess.usage()`` has that)."""

    exit_code: int | None
    signal: int | None
    core_dumped: bool
    user_cpu: float
    sys_cpu: float
    max_rss_kib: int

    @classmethod
    def from_wait(cls, status: int, usage: resource.struct_rusage) -> ExitRecord:
        used = (usage.ru_utime, usage.ru_stime, usage.ru_maxrss)
        if os.WIFSIGNALED(status):
            return cls(None, os.WTERMSIG(status), os.WCOREDUMP(status), *used)
        return cls(os.WEXITSTATUS(status), None, False, *used)

    @property
    def by_signal(self) -> bool:
        return self.signal is not None

    def attrs(self) -> dict[str, bool | int]:
        """``ExitBySignal`` with ``ExitCode`` or ``ExitSignal``, as HTCondor's job ad has them."""
        if self.signal is not None:
            return {"ExitBySignal": True, "ExitSignal": self.signal}
        return {"ExitBySignal": False, "ExitCode": self.exit_code or 0}


class JobProcess:
    """A started job. Make one with ``JobProcess.spawn``. ``via_shim`` says whether the shim
    exec'd it (a user switch, a FIFO among its stdio, or ``spawn(via_shim=True)``) or the
    starter's own process did."""

    def __init__(
        self,
        popen: subprocess.Popen | Spawned,
        sandbox: Sandbox,
        plan: JobPlan,
        slot: str,
        *,
        via_shim: bool = False,
        copy_via_shim: bool = False,
        between: tuple[int, int] | None = None,
    ):
        """``between``: CLOCK_BOOTTIME nanoseconds before and after the process was made
        (its start time is then known without reading /proc, see ``start_time``)."""
        self._popen = popen
        self.pid: int = popen.pid
        self.sandbox = sandbox
        self.plan = plan
        self.slot = slot
        self.via_shim = via_shim
        self._copy_via_shim = copy_via_shim
        self.pidfd: int = os.pidfd_open(self.pid)
        self.create_time: float = start_time(self.pid, between)  # not reaped yet
        self._record: ExitRecord | None = None
        self._usage = Usage()
        self._suspended = False
        self._killed = False
        self._finished = False

    @classmethod
    def spawn(
        cls,
        ad: ClassAd,
        *,
        slot: str,
        execute_dir: str | os.PathLike[str],
        machine_ad: ClassAd | None = None,
        via_shim: bool = False,
        assigned: Mapping[str, str] | None = None,
        spares: Spares | None = None,
    ) -> JobProcess:
        """Prepare the sandbox under ``execute_dir`` (from ``spares`` when it has one) and
        start the job on ``slot`` (``"slot1_1@host"``). StartError: the job would be held
        (its ``hold`` says how); OSError: the machine's execute directory cannot be used,
        or no process can be made.

        ``via_shim`` starts the job and copies its files through the shim even when no user
        switch needs it: the tests run every start both ways."""
        start = Start.of(ad, slot=slot, machine_ad=machine_ad, assigned=dict(assigned or {}))
        return cls.prepare(start, execute_dir=execute_dir, via_shim=via_shim, spares=spares).run()

    @classmethod
    def prepare(
        cls,
        start: Start,
        *,
        execute_dir: str | os.PathLike[str],
        via_shim: bool = False,
        spares: Spares | None = None,
    ) -> Launch:
        """``spawn``'s first half, from a job already read into a ``Start`` (the starter
        process gets them so): the sandbox made and filled; ``Launch.run`` execs the job.
        The same errors, from the half that meets them."""
        try:
            user = job_user(start.plan.owner)
        except StartError as error:
            raise StartError(from_slot(error.hold, start.slot)) from None
        sandbox = Sandbox.create(execute_dir, user, spares)
        with _removed_on_failure(sandbox, start.slot):
            planned = prepare(start, sandbox, via_shim=via_shim)
        return Launch(start, sandbox, planned, via_shim)

    def suspend(self) -> None:
        """SIGSTOP to the job's process group."""
        if self._signal(signal.SIGSTOP):
            self._suspended = True

    def resume(self) -> None:
        """SIGCONT to the job's process group."""
        self._signal(signal.SIGCONT)
        self._suspended = False

    def soft_kill(self) -> None:
        """The job's ``KillSig`` (SIGTERM by default) to the group; a suspended job is
        continued after it, since a stopped process cannot act on the signal."""
        self._note_kill()
        self._signal(self.plan.kill_signal)
        if self._suspended:
            self.resume()

    def hard_kill(self) -> None:
        """SIGKILL to the group."""
        self._note_kill()
        self._signal(signal.SIGKILL)

    def reap(self) -> ExitRecord | None:
        """The exit record once the job has exited (None before; never blocks). The first
        call collects the status, kills what the job left in its group and takes the final
        figures; later calls return the same record.

        The final figures are wait4's, with no last psutil sample (that walks every process on
        the machine, milliseconds): the exited job is a zombie, with no memory left, no
        descendants (its children have gone to init) and CPU times that are wait4's own,
        rounded down to clock ticks."""
        if self._record is not None:
            return self._record
        if not self._exited():
            return None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)
        _, status, usage = os.wait4(self.pid, 0)  # a zombie already: returns at once
        self._popen.returncode = os.waitstatus_to_exitcode(status)  # subprocess: done with it
        self._record = ExitRecord.from_wait(status, usage)
        self._usage = self._usage.with_rusage(usage)
        return self._record

    def usage(self) -> Usage:
        """The figures so far: sampled from the live process tree, final after ``reap``."""
        if self._record is None:
            self._sample()
        if not self._finished:
            self._usage = self._usage.with_disk(self.sandbox.disk_usage_kib())
        return self._usage

    def finish(self, *, transfer_output: bool | None = None) -> None:
        """After ``reap``: transfer the output back to Iwd, then remove the sandbox and close
        the pidfd (remove any reader on it first). Output is transferred by default only when
        the job exited on its own, not when the starter killed it (HTCondor's ON_EXIT).
        TransferError when the output could not be transferred; the sandbox is removed
        anyway."""
        if self._record is None:
            raise RuntimeError("JobProcess.finish() before reap(): the job has not exited")
        if self._finished:
            return
        self._finished = True
        os.close(self.pidfd)
        transfer = not self._killed if transfer_output is None else transfer_output
        scratch = self.sandbox.where
        disk = None  # the sandbox's use as the job left it: before any copy, else at removal
        try:
            changed = self.sandbox.changed_files() if transfer and self.plan.transfer else []
            copies = output_copies(self.plan, scratch, changed) if transfer else []
            if copies:
                disk = self.sandbox.disk_usage_kib()
            hold = run_copies(copies, self.sandbox.user, "output", via_shim=self._copy_via_shim)
        finally:
            removed = self.sandbox.remove(measure=disk is None)
            self._usage = self._usage.with_disk(removed if disk is None else disk)
        if hold is not None:
            raise TransferError(from_slot(hold, self.slot))

    def _signal(self, number: int) -> bool:
        if self._record is not None:
            return False
        try:
            os.killpg(self.pid, number)
        except ProcessLookupError:
            return False
        return True

    def _note_kill(self) -> None:
        if self._record is None and not self._exited():
            self._killed = True

    def _exited(self) -> bool:
        return os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None

    def _sample(self) -> None:
        sample = sample_tree(self.pid)
        if sample is not None:
            self._usage = self._usage.with_sample(sample)


@dataclass(frozen=True)
class Launch:
    """A job's start prepared (``JobProcess.prepare``), to be exec'd by ``run``, in
    whatever thread may wait for the new process."""

    start: Start
    sandbox: Sandbox
    planned: Exec
    via_shim: bool

    def run(self) -> JobProcess:
        """Exec the job; StartError or OSError as ``JobProcess.spawn`` (the sandbox is
        removed then)."""
        before = time.clock_gettime_ns(time.CLOCK_BOOTTIME)
        with _removed_on_failure(self.sandbox, self.start.slot):
            popen, shimmed = self.planned.run()
        between = (before, time.clock_gettime_ns(time.CLOCK_BOOTTIME))
        return JobProcess(
            popen,
            self.sandbox,
            self.start.plan,
            self.start.slot,
            via_shim=shimmed,
            copy_via_shim=self.via_shim,
            between=between,
        )


@contextlib.contextmanager
def _removed_on_failure(sandbox: Sandbox, slot: str) -> Iterator[None]:
    """The sandbox removed when a start fails; a hold's reason says the slot, as
    HTCondor's starter says it."""
    try:
        yield
    except StartError as error:
        sandbox.remove()
        raise StartError(from_slot(error.hold, slot)) from None
    except BaseException:
        sandbox.remove()
        raise


async def wait(process: JobProcess) -> ExitRecord:
    """Wait on the pidfd (no polling) and reap: for tests and simple callers."""
    loop = asyncio.get_running_loop()
    while (record := process.reap()) is None:
        readable = loop.create_future()
        loop.add_reader(process.pidfd, _settle, readable)
        try:
            await readable
        finally:
            loop.remove_reader(process.pidfd)
    return record


def _settle(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)
