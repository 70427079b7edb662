"""``fairpool reconfig``: knobs read live take effect without a restart (the startd's
policy, the schedd's MAX_JOBS_RUNNING, the negotiator's interval)."""

from __future__ import annotations

import time
from pathlib import Path

from livepool import LivePool


def test_reconfig_changes_start_and_max_jobs_running(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    submit = "executable = /bin/sleep\narguments = 1\nrequest_memory = 64\nqueue 3\n"
    with LivePool(tmp_path / "pool", NUM_CPUS=2, START="False") as pool:
        pool.submit(submit, work)
        time.sleep(3)  # cycles come and go: START is False
        assert len(pool.jobs("JobStatus == 1")) == 3
        assert all(slot["START"] is False for slot in pool.slots())
        pool.set_knobs(START="True", MAX_JOBS_RUNNING=1)
        pool.wait(lambda: pool.jobs("JobStatus == 2"), 30, "a job to start after reconfig")
        most, deadline = 0, time.monotonic() + 60
        while pool.jobs() and time.monotonic() < deadline:
            most = max(most, len(pool.jobs("JobStatus == 2")))
            time.sleep(0.1)
        history = pool.history()
    assert most == 1  # MAX_JOBS_RUNNING = 1, read again
    assert len(history) == 3
