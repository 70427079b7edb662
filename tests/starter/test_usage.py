"""What a job uses, measured over its whole process tree, in HTCondor's attributes and units."""

from __future__ import annotations

import sys

import pytest
from starter_jobs import until, wait_for

from fairpool.starter import Spares, Usage
from fairpool.starter.spares import SPARE_PREFIX
from fairpool.starter.usage import TreeSample

BURN = (  # ~0.5 s of user CPU, arithmetic between rare looks at the clock
    "import os, time\n"
    "while os.times().user < 0.5:\n"
    "    sum(range(20000))\n"
    "open('burnt', 'w').close()\n"
    "time.sleep(30)\n"
)
HOLD_MEMORY = (
    "import time; block = bytearray(40 * 1024 * 1024); open('{0}', 'w').close(); time.sleep(30)"
)


def test_cpu_seconds_of_a_burning_job(jobs):
    job = jobs.spawn(jobs.ad(jobs.python("burn.py", BURN)))
    assert until((job.sandbox.path / "burnt").exists)
    running = job.usage()
    assert running.remote_user_cpu + running.remote_sys_cpu > 0.2
    assert running.remote_user_cpu > 0.2
    job.hard_kill()
    record = wait_for(job)
    final = job.usage()
    assert record.user_cpu >= 0.5 and final.remote_user_cpu >= running.remote_user_cpu
    assert final.remote_user_cpu >= record.user_cpu


def test_memory_is_summed_over_the_process_tree(jobs):
    (jobs.iwd / "hold.py").write_text(HOLD_MEMORY.format("ready-a") + "\n")
    (jobs.iwd / "hold_b.py").write_text(HOLD_MEMORY.format("ready-b") + "\n")
    jobs.script(
        "two.sh",
        f'"{sys.executable}" hold.py &\n"{sys.executable}" hold_b.py &\nwait\n',
    )
    job = jobs.spawn(jobs.ad("executable = two.sh\ntransfer_input_files = hold.py, hold_b.py"))
    sandbox = job.sandbox.path
    assert until(lambda: (sandbox / "ready-a").exists() and (sandbox / "ready-b").exists())
    usage = job.usage()
    assert usage.resident_set_size >= 80 * 1024  # KiB: two children of 40 MiB each
    assert usage.memory_usage == (usage.resident_set_size + 1023) // 1024  # MiB
    assert usage.image_size >= usage.resident_set_size
    job.hard_kill()
    wait_for(job)
    after = job.usage()
    assert after.resident_set_size >= usage.resident_set_size  # a peak: it stays


def test_disk_usage_is_the_sandbox_in_kib(jobs):
    jobs.script("fill.sh", "head -c 307200 /dev/zero > big\necho done > done\nsleep 30\n")
    job = jobs.spawn(jobs.ad("executable = fill.sh"))
    assert until((job.sandbox.path / "done").exists)
    assert 300 <= job.usage().disk_usage < 400
    job.hard_kill()
    wait_for(job)
    job.finish()
    assert 300 <= job.usage().disk_usage < 400  # the last figure survives the sandbox


def test_attrs_use_htcondor_names():
    usage = Usage(1.5, 0.25, 2048, 1025, 12)
    assert usage.attrs() == {
        "RemoteUserCpu": 1.5,
        "RemoteSysCpu": 0.25,
        "ImageSize": 2048,
        "ResidentSetSize": 1025,
        "MemoryUsage": 2,
        "DiskUsage": 12,
    }


def test_each_figure_is_kept_by_the_others_updates():
    usage = Usage(1.0, 0.5, 100, 50, 7).with_sample(TreeSample(0.5, 0.75, 60, 80))
    assert usage == Usage(1.0, 0.75, 100, 60, 7)
    assert usage.with_disk(9) == Usage(1.0, 0.75, 100, 60, 9)


@pytest.mark.parametrize("kept", [True, False], ids=["kept as a spare", "removed"])
@pytest.mark.parametrize("transfer", ["NO", "YES"])
def test_the_last_disk_usage_is_the_sandbox_as_the_job_left_it(jobs, kept, transfer):
    """Measured while the sandbox is emptied (a spare) or before it is removed, or before
    the output is copied back: the same figure as a look at the sandbox just before."""
    jobs.script(
        "leave.sh",
        'cd "$_CONDOR_SCRATCH_DIR" && head -c 20000 /dev/zero > big && mkdir -p d/e\n'
        "echo x > d/e/f\n",
    )
    description = f"executable = leave.sh\nshould_transfer_files = {transfer}"
    spares = Spares(jobs.execute) if kept else None
    job = jobs.spawn(jobs.ad(description), spares=spares)
    wait_for(job)
    before = job.sandbox.disk_usage_kib()
    assert before >= 20  # the file, the directories and the ad
    job.finish()
    assert job.usage().disk_usage == before
    assert not job.sandbox.path.exists()
    assert any(p.name.startswith(SPARE_PREFIX) for p in jobs.execute.iterdir()) is kept
