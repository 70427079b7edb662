"""Helpers for the starter tests: real jobs from real submit files, bounded in time.

``Jobs`` submits a description (through fairpool's condor_submit) with Iwd in a temporary
directory and starts it, through the shim when made with ``via_shim``; its ``cleanup`` kills
and reaps whatever a test left running.
"""

from __future__ import annotations

import asyncio
import select
import sys
import time
from pathlib import Path

from fairpool.classad import ClassAd
from fairpool.starter import ExitRecord, JobProcess, wait
from fairpool.submit import parse_submit

SLOT = "slot1_1@test.example"
WAIT = 10.0  # seconds any one job may take in these tests


class Jobs:
    """Submit, start and wait for jobs in one Iwd and one EXECUTE directory."""

    def __init__(self, root: Path, owner: str, *, via_shim: bool = False) -> None:
        self.iwd = root / "iwd"
        self.execute = root / "execute"
        self.iwd.mkdir()
        self.owner = owner
        self.via_shim = via_shim
        self.started: list[JobProcess] = []

    def script(self, name: str, body: str, mode: int = 0o755) -> Path:
        """A /bin/sh script in Iwd."""
        path = self.iwd / name
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(mode)
        return path

    def python(self, name: str, code: str) -> str:
        """Submit lines for a Python program in Iwd, transferred in and run by this Python
        (used in place: fairpool's submit has no ``transfer_executable``, so ``+``)."""
        (self.iwd / name).write_text(code)
        return (
            f"executable = {sys.executable}\narguments = {name}\n"
            f"transfer_input_files = {name}\n+TransferExecutable = false\n"
        )

    def ad(self, description: str, **attrs: object) -> ClassAd:
        """The job ad condor_submit makes of ``description`` (``queue`` added), submitted
        from Iwd, with ``attrs`` set on top (``+Attr`` style)."""
        text = description if "queue" in description else description + "\nqueue\n"
        ad = parse_submit(text, "job.sub").job_ads(owner=self.owner, cwd=self.iwd)[0]
        for name, value in attrs.items():
            ad[name] = value
        return ad

    def spawn(self, ad: ClassAd, **options: object) -> JobProcess:
        options.setdefault("via_shim", self.via_shim)
        job = JobProcess.spawn(ad, slot=SLOT, execute_dir=self.execute, **options)
        self.started.append(job)
        return job

    def run(self, ad: ClassAd, *, finish: bool = True) -> tuple[JobProcess, ExitRecord]:
        """Start, wait (bounded) and, by default, finish a job."""
        job = self.spawn(ad)
        record = wait_for(job)
        if finish:
            job.finish()
        return job, record

    def cleanup(self) -> None:
        for job in self.started:
            if job.reap() is None:
                job.hard_kill()
                assert wait_readable(job.pidfd, WAIT), f"job {job.pid} survived SIGKILL"
                job.reap()
            job.finish(transfer_output=False)


def wait_for(job: JobProcess, timeout: float = WAIT) -> ExitRecord:
    """``starter.wait`` under a deadline."""
    return asyncio.run(asyncio.wait_for(wait(job), timeout))


def wait_readable(fd: int, timeout: float) -> bool:
    return bool(select.select([fd], [], [], timeout)[0])


def until(predicate, timeout: float = WAIT, step: float = 0.02) -> bool:
    """Poll ``predicate`` until true or ``timeout`` seconds pass (a bounded loop)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
