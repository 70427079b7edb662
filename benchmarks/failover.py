"""How long a standby central manager takes to take over after kill -9 of the active one.

Two central managers (collector, negotiator, HAD) share one PostgreSQL database, an
execute-and-submit host reports to both, jobs run and wait; the active central manager
is killed with kill -9. The take-over time runs from the kill to the standby's first
committed cycle (its commit time in the database's records). It is printed beside the
goal, two negotiation intervals, and the stabilization period (12 * central managers *
HAD_CONNECTION_TIMEOUT), which the dead one's lease lasts. The first central manager is
started again before the next run, and takes over again (HAD_USE_PRIMARY).

The pool is the failover tests' own (tests/failover_pool.py: NEGOTIATOR_INTERVAL 2 s,
HAD_CONNECTION_TIMEOUT 0.08 s), on a PostgreSQL server this script starts as the tests
do (tests/postgres.py: the distribution's binaries, a cluster in a temporary directory,
127.0.0.1 only).

Run: ``python benchmarks/failover.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from failover_pool import INTERVAL, FailoverPool
from postgres import PostgresServer, find_binaries

JOBS = 400
SUBMIT = (
    "executable = /bin/sleep\narguments = 3\nrequest_memory = 64\n"
    f"should_transfer_files = NO\naccounting_group_user = alice\nqueue {JOBS}\n"
)


def takeovers(root: Path, database: str, runs: int) -> list[float]:
    """Kill the active central manager ``runs`` times; each take-over's seconds."""
    measured = []
    with FailoverPool(root, database) as pool:
        pool.start_cms(HAD_USE_PRIMARY=True)
        execute = pool.start_execute(NUM_CPUS=4, NUM_SLOTS=4, MEMORY=4096)
        pool.hosts.submit("sub1", SUBMIT, root / "work")
        execute.wait(lambda: execute.jobs("JobStatus == 2"), 30, "jobs running")
        for run in range(runs):
            time.sleep(INTERVAL)  # a few cycles of the primary first
            pool.cm[0].kill()
            killed = time.time()
            first = execute.wait(lambda k=killed: pool.first_cycle_of(1, k), 30, "the take-over")
            measured.append(first.committed - killed)
            print(f"run {run + 1}: the standby's first cycle {measured[-1]:.2f} s after kill -9")
            pool.hosts.start(pool.cm[0])
            pool.wait_active(0, 30)
        stabilization = pool.stabilization
    print(
        f"take-over after kill -9: median {statistics.median(measured):.2f} s,"
        f" max {max(measured):.2f} s; goal <= {2 * INTERVAL} s (two negotiation intervals);"
        f" stabilization period {stabilization:.2f} s"
    )
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="kill -9 of the active one")
    args = parser.parse_args()
    binaries = find_binaries()
    if binaries is None:
        sys.exit("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    root = Path(tempfile.mkdtemp(prefix="fairpool-failover-"))
    # a directory of its own: as root, the server runs as another user
    server = PostgresServer(binaries, Path(tempfile.mkdtemp(prefix="fairpool-postgres-")))
    try:
        server.start()
        takeovers(root, server.create_database("failover"), args.runs)
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(server.directory, ignore_errors=True)


if __name__ == "__main__":
    main()
