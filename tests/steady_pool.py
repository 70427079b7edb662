"""Helpers of the monitoring tests' shared pool (tests/monitor/conftest.py)."""

from __future__ import annotations

from livepool import LivePool


def job_id(job) -> str:
    return f"{job['ClusterId']}.{job['ProcId']}"


def settled(pool: LivePool):
    """The steady state as the collector shows it: one held job, the Accounting ads."""

    def check() -> bool:
        schedd = pool.get("/collector/ads", type="Scheduler")["ads"]
        accounting = pool.get("/collector/ads", type="Accounting")["ads"]
        return bool(schedd) and schedd[0].get("TotalHeldJobs") == 1 and len(accounting) >= 3

    return check
