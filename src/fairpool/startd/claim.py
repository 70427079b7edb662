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
