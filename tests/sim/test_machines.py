"""[[machines]] without an ad take their slots from the [config] startd knobs."""

from fairpool.sim.runner import simulate
from fairpool.sim.scenario import load_scenario

CONFIG = """
NUM_CPUS = 8
MEMORY = 16384
SLOT_TYPE_1 = cpus=100%
SLOT_TYPE_1_PARTITIONABLE = True
NUM_SLOTS_TYPE_1 = 1
"""


def test_slots_from_the_startd_configuration(write_scenario, helpers):
    text = '[simulation]\nduration = "2h"\nnegotiator_interval = "5m"\n'
    text += f'[config]\ntext = """{CONFIG}"""\n'
    text += '[[machines]]\ncount = 3\nname = "wn{n}"\n'
    text += helpers.jobs("ann", '"1h"', "count = 6", "request_cpus = 3\n")
    run = simulate(load_scenario(write_scenario(text)))
    pslots = [s for s in run.pool.slots if s.eval("PartitionableSlot") is True]
    assert [s.eval("Name") for s in pslots] == ["slot1@wn1", "slot1@wn2", "slot1@wn3"]
    assert run.cores() == 24
    # six 3-core jobs on three 8-core machines: two fit on each; all run within minutes
    records = list(run.recorder.jobs.values())
    assert len(records) == 6 and all(r.start <= 600 for r in records)
    assert all(r.end == r.start + 3600 for r in records)
    assert sum(r.good_seconds for r in records) == 6 * 3 * 3600
    assert {s.eval("Machine") for s in run.pool.slots if s.eval("DynamicSlot") is True} == set()
