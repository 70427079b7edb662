"""What a schedd tells the collector: its Scheduler ad and one Submitter ad per
submitter with jobs, with the job counts by state that condor_status -schedd and
-submitters show and the negotiator reads (a submitter with no jobs has no ad)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ..classad import ClassAd
from ..schedd.queue import HELD, IDLE, RUNNING, SUSPENDED, JobQueue

__all__ = ["schedd_ads"]


def schedd_ads(
    queue: JobQueue,
    name: str,
    common: Mapping[str, Any],
    started: int,
    max_running: int,
    counters: Mapping[str, int],
) -> list[ClassAd]:
    """The Scheduler ad named ``name``, then a Submitter ad per submitter by name; each
    with the attributes of ``common`` (the schedd's address, time, version)."""
    counts: dict[str, Counter[int]] = {}
    for job_name, job in queue.jobs.items():
        counts.setdefault(queue.submitter[job_name], Counter())[job.get("JobStatus")] += 1
    totals: Counter[int] = Counter()
    submitters = []
    for submitter, count in sorted(counts.items()):
        totals.update(count)
        submitters.append(
            ClassAd(
                {
                    "MyType": "Submitter",
                    "Name": submitter,
                    **common,
                    "IdleJobs": count[IDLE],
                    "RunningJobs": count[RUNNING] + count[SUSPENDED],
                    "HeldJobs": count[HELD],
                }
            )
        )
    schedd = ClassAd(
        {
            "MyType": "Scheduler",
            "Name": name,
            **common,
            "DaemonStartTime": started,
            "TotalIdleJobs": totals[IDLE],
            "TotalRunningJobs": totals[RUNNING] + totals[SUSPENDED],
            "TotalHeldJobs": totals[HELD],
            "TotalJobAds": len(queue),
            "MaxJobsRunning": max_running,
            "NumUsers": len(counts),
            "TotalSuspendedJobs": totals[SUSPENDED],
            **counters,
        }
    )
    return [schedd, *submitters]
