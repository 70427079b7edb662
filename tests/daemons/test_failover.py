"""Must-show 3 of issue 17: high availability of the central manager (seed 002, "High
Availability of the Central Manager"), with two central managers sharing one PostgreSQL
database (failover_pool.py), an execute-and-submit host reporting to both.

* kill -9 of the active central manager during a busy run: the standby becomes active
  within two negotiation intervals, with the accountant as the dead one last committed
  it, and jobs keep starting; the primary, started again, takes over again
  (HAD_USE_PRIMARY); every job runs once.
* the active central manager's database connection cut (a proxy stops forwarding, the
  sockets stay open, as in a partition): it stops negotiating before the other starts.

Both check the match records of the whole run: the cycles of two central managers never
overlap in time, and no claim was handed out twice.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from failover_pool import INTERVAL, FailoverPool, claims_matched_twice, overlaps
from fairpool.store.accountant_store import AccountantStore
from tcp_proxy import TcpProxy

pytestmark = pytest.mark.usefixtures("postgres_server")

USERS = ("alice", "bob")


def submit_text(jobs: int, seconds: float) -> str:
    per_user = "".join(f"accounting_group_user = {user}\nqueue {jobs}\n" for user in USERS)
    return (
        f"executable = /bin/sleep\narguments = {seconds}\nrequest_memory = 64\n"
        f"should_transfer_files = NO\n{per_user}"
    )


def committed_accountant(url: str) -> dict[str, dict]:
    store = AccountantStore(url)
    try:
        return {c.name: c.as_dict() for c in store.load().customers.values()}
    finally:
        store.engine.dispose()


def test_kill_9_of_the_active_central_manager_then_the_primary_returns(
    tmp_path: Path, postgres_url: str
) -> None:
    jobs = 8
    with FailoverPool(tmp_path / "pool", postgres_url, PRIORITY_HALFLIFE=600) as pool:
        pool.start_cms(HAD_USE_PRIMARY=True)
        execute = pool.start_execute(NUM_CPUS=4, NUM_SLOTS=4, MEMORY=4096)
        pool.hosts.submit("sub1", submit_text(jobs, 3), tmp_path / "work")
        execute.wait(lambda: len(execute.history()) >= 4, 60, "some jobs to finish")
        execute.wait(lambda: execute.jobs("JobStatus == 2"), 10, "jobs running")
        assert execute.jobs("JobStatus == 1"), "jobs idle too: a busy run"
        assert pool.active(0) and not pool.active(1)

        pool.cm[0].kill()
        killed = time.time()
        before = committed_accountant(postgres_url)  # what the dead one last committed
        done_before = len(execute.history())
        first = execute.wait(lambda: pool.first_cycle_of(1, killed), 4 * INTERVAL, "cm2's cycle")
        takeover = first.committed - killed
        assert takeover <= 2 * INTERVAL, f"cm2 took {takeover:.1f} s to take over"
        assert takeover >= pool.stabilization - 1.0  # not before the dead one's lease ran out
        after = committed_accountant(postgres_url)
        assert {name.split("@")[0] for name in before} == set(USERS)
        for name, record in before.items():
            assert record["accumulated_usage"] > 0
            assert after[name]["accumulated_usage"] >= record["accumulated_usage"]
            assert after[name]["priority"] == pytest.approx(record["priority"], abs=0.2)
            assert after[name]["factor"] == record["factor"]
        execute.wait(lambda: len(execute.history()) > done_before + 2, 30, "jobs to keep going")

        pool.hosts.start(pool.cm[0])  # the primary returns, and takes over again
        returned = time.time()
        pool.wait_active(0, 20)
        assert not pool.active(1)
        execute.wait(lambda: pool.first_cycle_of(0, returned), 4 * INTERVAL, "cm1's cycle")
        execute.wait(lambda: len(execute.history()) == 2 * jobs, 90, "every job to finish")
        history = execute.history()
        cycles = pool.cycles()

    assert all(h["NumJobStarts"] == 1 and h["ExitCode"] == 0 for h in history)  # each once
    holders = [c.holder for c in cycles]
    assert holders[0] == pool.entries[0] and holders[-1] == pool.entries[0]
    assert pool.entries[1] in holders
    assert max(c.end for c in cycles if c.holder == pool.entries[0] and c.started < killed) < (
        min(c.started for c in cycles if c.holder == pool.entries[1])
    )
    assert not overlaps(cycles)
    assert not claims_matched_twice(cycles)


def test_a_central_manager_cut_off_from_the_database_stops_before_the_other_starts(
    tmp_path: Path, postgres_server, postgres_url: str
) -> None:
    jobs = 10
    port = int(postgres_url.rsplit(":", 1)[1].split("/")[0])
    with (
        TcpProxy(port) as proxy,
        FailoverPool(tmp_path / "pool", postgres_url) as pool,
    ):
        through_proxy = postgres_url.replace(f":{port}/", f":{proxy.port}/")
        pool.start_cms(through_proxy, None)
        execute = pool.start_execute(NUM_CPUS=4, NUM_SLOTS=4, MEMORY=4096)
        pool.hosts.submit("sub1", submit_text(jobs, 1.0), tmp_path / "work")
        execute.wait(lambda: len(execute.history()) >= 4, 60, "some jobs to finish")

        proxy.cut()
        cut = time.time()
        standing_by = execute.wait(
            lambda: pool.standing_by(0), 2 * pool.stabilization, "cm1 to stop"
        )
        stopped = standing_by["since"]  # when cm1 says it stopped
        takeover = pool.first_cycle_of(1, cut)
        assert takeover is None or takeover.started > stopped
        first = execute.wait(lambda: pool.first_cycle_of(1, cut), 4 * INTERVAL, "cm2's cycle")
        assert stopped < first.started
        assert pool.active(1) and not pool.active(0)
        execute.wait(lambda: len(execute.history()) == 2 * jobs, 90, "every job to finish")
        proxy.heal()  # what cm1 had under way reaches the database, fenced
        execute.wait(lambda: pool.had(0)["holder"] == pool.entries[1], 10, "cm1 to see cm2")
        assert not pool.active(0)
        time.sleep(1)
        cycles = pool.cycles()

    mine = [c for c in cycles if c.holder == pool.entries[0]]
    theirs = [c for c in cycles if c.holder == pool.entries[1]]
    assert mine and theirs
    shown = [(c.holder, c.term, c.started - cut, c.end - cut) for c in cycles]
    assert max(c.end for c in mine) < stopped, (stopped - cut, shown)
    assert stopped < min(c.started for c in theirs), (stopped - cut, shown)
    assert not overlaps(cycles), shown
    assert not claims_matched_twice(cycles)
