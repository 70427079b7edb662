"""The ads a job finds in its sandbox (``_CONDOR_JOB_AD``, ``_CONDOR_MACHINE_AD``) are
its own and its slot's as they stand at its start, also for the jobs that follow on the
same slot (the startd writes each ad from the last one written: classad/adtext.py)."""

from __future__ import annotations

from pathlib import Path

from fairpool.classad import parse_ad
from livepool import LivePool

SCRIPT = '#!/bin/sh\ncp "$_CONDOR_JOB_AD" "job.$1.ad"\ncp "$_CONDOR_MACHINE_AD" "machine.$1.ad"\n'


def test_each_job_reads_its_own_ad_and_its_slots(tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    script = work / "ads.sh"
    script.write_text(SCRIPT)
    script.chmod(0o755)
    submit = "executable = ads.sh\narguments = $(Process)\nshould_transfer_files = NO\nqueue 3\n"
    with LivePool(tmp_path / "pool", NUM_CPUS=1) as live:
        live.submit(submit, work)
        live.wait(lambda: len(live.history()) == 3, 60, "the three jobs done")
    for proc in range(3):
        job = parse_ad((work / f"job.{proc}.ad").read_text(), fmt="old")
        machine = parse_ad((work / f"machine.{proc}.ad").read_text(), fmt="old")
        assert (job["ClusterId"], job["ProcId"]) == (1, proc)
        assert machine["JobId"] == f"1.{proc}"
        assert (machine["State"], machine["Activity"]) == ("Claimed", "Busy")
        assert machine["Name"].startswith("slot1@")
