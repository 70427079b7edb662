"""One live pool for the monitoring tests that need a real one (Prometheus scraping
/metrics, the dashboard in Chromium): started once, since each of those tools is
heavy, and left in a steady state the tests can check figures against.

Two slots; alice in accounting group group_physics (quota 1) with three jobs, bob with
two (one held), carol with one job no slot can take ("no match found"). Every job
sleeps far longer than the tests run, so the figures hold still while they look. The
dashboard also shows a small simulation's outputs (DASHBOARD_SIMULATIONS).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from livepool import LivePool, fairpool
from steady_pool import job_id, settled

SUBMIT = """
executable = /bin/sleep
arguments = 600
request_cpus = 1
request_memory = 64

accounting_group = group_physics
accounting_group_user = alice
queue 3

accounting_group_user = bob
accounting_group =
queue 2

accounting_group_user = carol
request_memory = 100000000
queue 1
"""


# The seed's two-user example made small (8 cores, 6 simulated hours, B from 2 h): the
# simulation whose outputs the dashboard shows beside the pool (DASHBOARD_SIMULATIONS).
SCENARIO = """
[simulation]
duration = "6h"
negotiator_interval = "60s"
sample_interval = "5m"
seed = 1

[config]
text = "DEFAULT_PRIO_FACTOR = 1.0"

[[machines]]
count = 8
name = "node{n:03d}"
ad = '''
Cpus = 1
Memory = 2048
Disk = 100000000
Arch = "X86_64"
OpSys = "LINUX"
HasFileTransfer = true
'''

[[jobs]]
owner = "A"
submit = '''
executable = /bin/work
queue
'''
runtime = { distribution = "uniform", low = "5m", high = "15m" }
keep_idle = 10

[[jobs]]
owner = "B"
at = "2h"
submit = '''
executable = /bin/work
queue
'''
runtime = { distribution = "uniform", low = "5m", high = "15m" }
keep_idle = 10
"""


@pytest.fixture(scope="package")
def steady_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LivePool]:
    base = tmp_path_factory.mktemp("monitoring")
    (base / "small.toml").write_text(SCENARIO)
    fairpool(
        "simulate", str(base / "small.toml"), "--out", str(base / "sim"), "--quiet", "--no-plots"
    )
    knobs = {
        "NUM_CPUS": 2,
        "GROUP_NAMES": "group_physics",
        "GROUP_QUOTA_group_physics": 1,
        "NEGOTIATOR_INTERVAL": 1,
        "NEGOTIATOR_CYCLES_KEPT": 8,  # all kept by the time the tests look: a steady count
        "DASHBOARD_SIMULATIONS": base / "sim",
    }
    with LivePool(base / "pool", **knobs) as pool:
        pool.submit(SUBMIT, base / "work")
        pool.wait(lambda: len(pool.jobs("JobStatus == 2")) == 2, 30, "two jobs running")
        bob_idle = pool.jobs('AcctGroupUser == "bob" && JobStatus == 1')
        if bob_idle:
            pool.post("/schedd/act", {"action": "hold", "jobs": [job_id(bob_idle[0])]})
        else:  # both of bob's jobs run: hold one of alice's idle ones instead
            idle = pool.jobs('AcctGroupUser == "alice" && JobStatus == 1')
            pool.post("/schedd/act", {"action": "hold", "jobs": [job_id(idle[0])]})
        pool.wait(lambda: pool.jobs("JobStatus == 5"), 10, "a held job")
        pool.wait(settled(pool), 30, "the collector to show the held job and a cycle")
        pool.wait(lambda: len(pool.get("/negotiator/cycles", last=100)["cycles"]) == 8, 30)
        yield pool
