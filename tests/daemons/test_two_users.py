"""Must-show 1 of the live pool: two users' jobs run as real processes in a 4-slot pool,
each job finishes with its output, exit code, user-log events and history record, and
while both users have idle jobs each holds about half the pool (equal priority factors:
the pie is cut in two at every cycle).

One submit file queues 40 jobs for each user (``accounting_group_user`` names the user
each job is charged to, seed "Group Accounting"), so the first cycle sees both. With
CLAIM_WORKLIFE = 0 no claim runs a second job: every start goes through the negotiator.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from livepool import LivePool, events

JOBS = 40
PROGRAM = """#!/bin/sh
# a small real program: a little work, an answer, and an exit code of its own
sleep 1
echo "job $1 of $2"
exit $(( $1 % 3 ))
"""


SUBMIT = f"""
executable = work.sh
request_cpus = 1
request_memory = 64
arguments = $(Process) $(accounting_group_user)
output = out/$(accounting_group_user).$(Process)
error = err/$(accounting_group_user).$(Process)
log = $(accounting_group_user).log

accounting_group_user = alice
queue {JOBS}

accounting_group_user = bob
queue {JOBS}
"""


def test_two_users_share_a_four_slot_pool(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "out").mkdir(parents=True)
    (work / "err").mkdir()
    (work / "work.sh").write_text(PROGRAM)
    (work / "work.sh").chmod(0o755)
    knobs = {"NUM_CPUS": 4, "MEMORY": 4096, "CLAIM_WORKLIFE": 0, "NEGOTIATOR_INTERVAL": 1}
    with LivePool(tmp_path / "pool", **knobs) as pool:
        out = pool.submit(SUBMIT, work, "two_users.sub")
        assert out.endswith(f"{2 * JOBS} job(s) submitted to cluster 1.\n")
        shares = []
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            jobs = pool.jobs()
            if not jobs:
                break
            idle = Counter(j["AcctGroupUser"] for j in jobs if j["JobStatus"] == 1)
            running = Counter(j["AcctGroupUser"] for j in jobs if j["JobStatus"] == 2)
            if idle["alice"] and idle["bob"] and sum(running.values()) == 4:
                shares.append((running["alice"], running["bob"]))
            time.sleep(0.2)
        assert not pool.jobs(), "every job finished within the time allowed"
        history = pool.history()
    assert len(history) == 2 * JOBS
    assert len(shares) >= 10, "the pool was sampled full while both users waited"
    # each held about half the pool: never all of it, and two slots each on average
    assert all(1 <= a <= 3 and 1 <= b <= 3 for a, b in shares), shares
    mean_alice = sum(a for a, _ in shares) / len(shares)
    assert 1.5 <= mean_alice <= 2.5, shares
    for user, first in (("alice", 0), ("bob", JOBS)):
        log = events(work / f"{user}.log")
        for proc in range(first, first + JOBS):
            name = f"1.{proc}"
            assert (work / "out" / f"{user}.{proc}").read_text() == f"job {proc} of {user}\n"
            record = next(h for h in history if (h["ClusterId"], h["ProcId"]) == (1, proc))
            assert record["JobStatus"] == 4 and record["ExitCode"] == proc % 3
            assert record["ExitBySignal"] is False
            assert record["AccountingGroup"] == user
            assert record["NumJobStarts"] == 1
            # submitted, executing, terminated (and nothing else: no evictions here)
            assert log[name] == [0, 1, 5], (name, log[name])
