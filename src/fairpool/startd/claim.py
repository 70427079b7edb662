"""A claim on a slot, and the job running under it (spec startd.md §1.2, §7, §8).

A slot in Claimed or Preempting has a current claim; while Claimed it may also hold a
*preempting* claim that won a RANK or priority preemption and waits for the current job to
leave. ``job`` is set while a starter runs (from activation to the starter's exit).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..classad import ClassAd

__all__ = ["Claim"]

VANILLA = 5


@dataclass
class Claim:
    """What the startd remembers about one claim."""

    request: ClassAd
    rank: float
    started: int
    accepted_while_draining: bool = False
    activations: int = 0
    job: ClassAd | None = None
    job_start: int | None = None
    last_checkpoint: int | None = None
    run_time: int = 0
    running_since: int | None = None
    suspend_time: int = 0
    suspended_since: int | None = None
    earlier_run_time: int = 0  # of the claim's finished jobs
    earlier_suspend_time: int = 0
    may_unretire: bool = True
    preempt_was_true: bool = False
    evicted_by_draining: bool = False

    @property
    def ad(self) -> ClassAd:
        """The ad policy expressions see as TARGET: the job while one runs, else the request."""
        return self.job if self.job is not None else self.request

    @property
    def vanilla(self) -> bool:
        return self.ad.get("JobUniverse") == VANILLA

    def job_age(self, now: int) -> int:
        """Seconds the job has run under this claim, suspension excluded."""
        if self.running_since is None:
            return self.run_time
        return self.run_time + (now - self.running_since)

    def pause(self, now: int) -> None:
        """The job stopped running (suspended, evicted or gone): bank its run time."""
        if self.running_since is not None:
            self.run_time += now - self.running_since
            self.running_since = None

    def suspend(self, now: int) -> None:
        self.pause(now)
        self.suspended_since = now

    def unsuspend(self, now: int) -> None:
        """The suspension is over (the job continues, or leaves): bank its length."""
        if self.suspended_since is not None:
            self.suspend_time += now - self.suspended_since
            self.suspended_since = None

    def end_job(self, now: int) -> None:
        """The job left: its run and suspension count towards the claim's totals."""
        self.pause(now)
        self.unsuspend(now)
        self.earlier_run_time += self.run_time
        self.earlier_suspend_time += self.suspend_time
        self.run_time = self.suspend_time = 0

    def times(self, now: int) -> dict[str, int]:
        """TotalClaimRunTime and TotalClaimSuspendTime, and while a job is there
        TotalJobRunTime and TotalJobSuspendTime: running totals of the time spent
        Claimed/Busy and Claimed/Suspended by all the claim's jobs and by the current one
        (manual, "Machine ClassAd Attributes"). Each is there once it is above 0, as in a
        real startd's ad (HTCondor's regression-test ad small1slot: TotalClaimRunTime and
        TotalJobRunTime 9, no suspension totals)."""
        suspended = self.suspend_time
        if self.suspended_since is not None:
            suspended += now - self.suspended_since
        running = self.job_age(now)
        times = {
            "TotalClaimRunTime": self.earlier_run_time + running,
            "TotalClaimSuspendTime": self.earlier_suspend_time + suspended,
        }
        if self.job is not None:
            times.update(TotalJobRunTime=running, TotalJobSuspendTime=suspended)
        return {name: value for name, value in times.items() if value > 0}

    def user(self) -> str | None:
        """RemoteUser: the request's ``User`` (user@domain), else its ``Owner``."""
        for name in ("User", "Owner"):
            value = self.request.get(name)
            if isinstance(value, str):
                return value
        return None

    def job_id(self) -> str | None:
        job = self.job
        if job is None:
            return None
        cluster, proc = job.get("ClusterId"), job.get("ProcId")
        if type(cluster) is int and type(proc) is int:
            return f"{cluster}.{proc}"
        return None
