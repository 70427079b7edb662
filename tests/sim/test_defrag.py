"""The defrag daemon in the simulator (DAEMON_LIST with DEFRAG): the live daemon's poll on
the simulated clock. In a small pool of partitionable machines kept busy by single-core
jobs, 4-core jobs start only once machines are drained; without the daemon they starve.
"""

from __future__ import annotations

from fairpool.sim.runner import simulate
from fairpool.sim.scenario import load_scenario
from fairpool.sim.summary import summarize

PSLOT = """
Cpus = 4
Memory = 16384
Disk = 100000000
Arch = "X86_64"
OpSys = "LINUX"
HasFileTransfer = true
PartitionableSlot = true
"""
DEFRAG = """
DAEMON_LIST = MASTER, STARTD, DEFRAG
DEFRAG_INTERVAL = 600
DEFRAG_DRAINING_MACHINES_PER_HOUR = 6
DEFRAG_MAX_CONCURRENT_DRAINING = 1
DEFRAG_MAX_WHOLE_MACHINES = 1
"""


def _scenario(helpers, config: str) -> str:
    text = '[simulation]\nduration = "8h"\nseed = 3\nstartd = "always"\n'
    text += 'negotiator_interval = 300\nsample_interval = "30m"\n'
    text += f'[config]\ntext = """\nMAXJOBRETIREMENTTIME = 4 * 3600\n{config}"""\n'
    text += helpers.machines(3, PSLOT, "m{n}")
    spread = '{ distribution = "uniform", low = "2h", high = "4h" }'
    text += helpers.jobs("single", spread, "keep_idle = 12", "request_memory = 512\n")
    text += helpers.jobs(
        "whole", '"1h"', "keep_idle = 2", "request_cpus = 4\nrequest_memory = 4096\n"
    )
    return text


def _run(write_scenario, helpers, config: str, name: str) -> dict:
    scenario = load_scenario(write_scenario(_scenario(helpers, config), name))
    return summarize(simulate(scenario))


def test_the_defrag_daemon_drains_so_whole_machine_jobs_start(write_scenario, helpers):
    off = _run(write_scenario, helpers, "", "off.toml")
    on = _run(write_scenario, helpers, DEFRAG, "on.toml")
    assert "defrag" not in off
    defrag = on["defrag"]
    assert defrag["polls"] == 8 * 6  # every DEFRAG_INTERVAL, up to the end
    assert defrag["DrainSuccesses"] >= 3 and defrag["DrainFailures"] == 0
    assert defrag["MachinesDrainingPeak"] <= 1  # DEFRAG_MAX_CONCURRENT_DRAINING
    assert defrag["AvgDrainingUnclaimed"] > 0  # the cores left idle while draining
    whole_off = off["submitters"]["whole@localdomain"]["started"]
    whole_on = on["submitters"]["whole@localdomain"]["started"]
    assert whole_on > whole_off
    # and the single-core jobs pay for it
    single = "single@localdomain"
    assert on["submitters"][single]["core_hours"] < off["submitters"][single]["core_hours"]
