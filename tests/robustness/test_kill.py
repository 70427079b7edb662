"""kill -9 at any moment leaves whole outputs: ``simulate``'s result directory is complete
(the earlier result or the new one) or absent, never a mix; ``negotiate --json``'s file and
its state describe the same cycles once the state is opened again.

Each test kills a real ``fairpool`` process at a few moments spread over its run (the
moments are chosen, not random, so a failure repeats), a bounded number of times.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from builders import jobs_of, slots
from cycles import NOW
from fairpool.classad import write_old
from fairpool.store.accountant_store import AccountantStore

COMMAND = [sys.executable, "-m", "fairpool.cli"]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}

SCENARIO = """[simulation]
duration = "{duration}"
seed = 3
[[machines]]
count = 10
ad = "Cpus = 1\\nMemory = 1024"
[[jobs]]
owner = "alice"
count = 60
submit = "executable = x\\nqueue"
runtime = {{ distribution = "exponential", mean = "20m" }}
[[jobs]]
owner = "bob"
count = 60
submit = "executable = x\\nqueue"
runtime = {{ distribution = "exponential", mean = "20m" }}
"""


def _result(directory: Path) -> dict | None:
    """The summary of a complete result directory; None if absent. Fails if partial."""
    if not directory.exists():
        return None
    summary = json.loads((directory / "summary.json").read_text())
    with (directory / "jobs.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    with (directory / "timeseries.csv").open() as handle:
        samples = list(csv.DictReader(handle))
    assert len(rows) == summary["pool"]["jobs"]["submitted"]
    assert samples, "a complete result has samples"
    return summary


def _simulate(scenario: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [*COMMAND, "simulate", str(scenario), "--out", str(out), "--no-plots", "--quiet"],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_a_killed_simulate_leaves_a_complete_result_or_none(tmp_path):
    earlier, later = tmp_path / "earlier.toml", tmp_path / "later.toml"
    earlier.write_text(SCENARIO.format(duration="30m"))
    later.write_text(SCENARIO.format(duration="3h"))
    out = tmp_path / "out"
    started = time.monotonic()
    assert _simulate(later, out).wait(timeout=300) == 0
    full_run = time.monotonic() - started
    new = _result(out)
    assert _simulate(earlier, out).wait(timeout=300) == 0
    old = _result(out)
    assert old != new
    for fraction in (0.6, 0.95, 1.05):  # the last ones land in the writing
        process = _simulate(later, out)
        time.sleep(full_run * fraction)
        process.send_signal(signal.SIGKILL)
        process.wait()
        found = _result(out)
        assert found in (old, new, None)
        if found is None:  # killed between the two renames: the next run puts it back
            assert _simulate(earlier, out).wait(timeout=300) == 0
            assert _result(out) == old
        if found == new:
            assert _simulate(earlier, out).wait(timeout=300) == 0


def test_a_killed_negotiate_leaves_json_and_state_agreeing(tmp_path):
    slot_file = tmp_path / "slots.ads"
    slot_file.write_text("".join(write_old(ad) + "\n" for ad in slots(100)))
    job_file = tmp_path / "jobs.ads"
    jobs = jobs_of("alice", 200, 1) + jobs_of("bob", 200, 2)
    job_file.write_text("".join(write_old(ad) + "\n" for ad in jobs))
    for kill_after in (2, 5, 9):  # completed cycles seen on standard output
        state, out = tmp_path / f"state{kill_after}", tmp_path / f"cycles{kill_after}.json"
        process = subprocess.Popen(
            [*COMMAND, "negotiate", "--slots", str(slot_file), "--jobs", str(job_file),
             "--state", str(state), "--json", str(out), "--cycles", "100000", "--quiet",
             "--interval", "60", "--start", str(NOW)],
            stdout=subprocess.PIPE,
            env=ENV,
        )  # fmt: skip
        seen = b""
        while seen.count(b"Cycle ") < kill_after:
            chunk = process.stdout.read1(4096)
            assert chunk, f"the run ended early: {seen!r}"
            seen += chunk
        process.send_signal(signal.SIGKILL)
        process.wait()
        accountant = AccountantStore(state, create=False).load()  # opening finishes a rename
        cycles = json.loads(out.read_text())["cycles"]
        assert cycles[-1]["time"] == accountant.last_update
        assert len(cycles) == round((accountant.last_update - NOW) / 60) + 1 >= kill_after
        assert [c["time"] for c in cycles] == [NOW + 60 * n for n in range(len(cycles))]
