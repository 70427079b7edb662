"""Slot ads from a startd configuration (startd/layout.py)."""

import pytest

from fairpool.errors import ConfigError
from fairpool.startd.layout import machine_ads
from knobs import TextKnobs


def _ads(text: str):
    return machine_ads(TextKnobs(text, "startd.config"))


def test_one_partitionable_slot_by_default():
    # HTCondor's manual ("condor_startd policy configuration"): "Beginning with HTCondor
    # 23.0 the condor_startd will create a single partitionable slot by default."
    (pslot,) = _ads("NUM_CPUS = 4\nMEMORY = 8192\n")
    assert pslot.eval("PartitionableSlot") is True and pslot.eval("Name") == "slot1@localhost"
    assert (pslot.eval("Cpus"), pslot.eval("Memory"), pslot.eval("TotalSlotCpus")) == (4, 8192, 4)
    assert str(pslot.lookup("Requirements")) == "START && WithinResourceLimits"


def test_num_slots_gives_static_slots():
    # The same page: "To simply configure static slots in any version, configure NUM_SLOTS
    # to the integer number of slots desired." NUM_SLOTS = 4 on 4 cores, MEMORY 8192 MiB,
    # DISK 100 GiB: four slots of 1 core, 2048 MiB, 25 GiB.
    ads = _ads("NUM_CPUS = 4\nNUM_SLOTS = 4\nMEMORY = 8192\n")
    assert [a.eval("Name") for a in ads] == [f"slot{i}@localhost" for i in range(1, 5)]
    assert {(a.eval("Cpus"), a.eval("Memory"), a.eval("Disk")) for a in ads} == {
        (1, 2048, 100 * 1024 * 1024 // 4)
    }
    assert all(a.eval("SlotType") == "Static" and a.eval("TotalSlots") == 4 for a in ads)
    assert all(a.eval("START") is True and a.eval("SlotWeight") == 1 for a in ads)


def test_partitionable_slot_with_a_consumption_policy():
    ads = _ads(
        "NUM_CPUS = 8\nSLOT_TYPE_1 = cpus=8,memory=150,disk=100%\n"
        "SLOT_TYPE_1_PARTITIONABLE = True\nNUM_SLOTS_TYPE_1 = 1\nCONSUMPTION_POLICY = True\n"
        "CONSUMPTION_CPUS = 1\nCONSUMPTION_MEMORY = 25\nSLOT_WEIGHT = floor(Memory / 25)\n"
    )
    (pslot,) = ads
    assert pslot.eval("PartitionableSlot") is True
    assert (pslot.eval("Cpus"), pslot.eval("Memory")) == (8, 150)
    assert pslot.eval("SlotWeight") == 6  # floor(150 / 25)
    assert pslot.eval("ConsumptionMemory") == 25
    # CONSUMPTION_DISK is not set: HTCondor's default (manual, CONSUMPTION_<Resource>)
    assert str(pslot.lookup("ConsumptionDisk")) == "quantize(target.RequestDisk,{ 1024 })"


def test_typed_and_auto_shares():
    # type 1: two slots of a quarter each; type 2: the rest (auto) split in two
    ads = _ads(
        "NUM_CPUS = 8\nMEMORY = 16384\nSLOT_TYPE_1 = 1/4\nNUM_SLOTS_TYPE_1 = 2\n"
        "SLOT_TYPE_2 = cpus=auto, memory=25%\nNUM_SLOTS_TYPE_2 = 2\n"
    )
    assert [(a.eval("Cpus"), a.eval("Memory")) for a in ads] == [
        (2, 4096),
        (2, 4096),
        (2, 4096),
        (2, 4096),
    ]
    assert [a.eval("SlotTypeID") for a in ads] == [1, 1, 2, 2]


def test_policy_knobs_become_slot_expressions():
    ads = _ads('NUM_CPUS = 1\nSTART = Owner == "alice"\nRANK = TARGET.JobPrio\n')
    assert str(ads[0].lookup("START")) == 'Owner == "alice"'
    assert str(ads[0].lookup("Rank")) == "TARGET.JobPrio"


@pytest.mark.parametrize(
    "text, knob",
    [
        ("SLOT_TYPE_1 = cpus=two\nNUM_SLOTS_TYPE_1 = 1\n", "SLOT_TYPE_1"),
        ("SLOT_TYPE_1 = flux=2\nNUM_SLOTS_TYPE_1 = 1\n", "SLOT_TYPE_1"),
        ("NUM_CPUS = -3\n", "NUM_CPUS"),
        ("NUM_CPUS = 2\nSTART = (\n", "START"),
    ],
)
def test_bad_knobs_name_the_knob_and_line(text, knob):
    with pytest.raises(ConfigError) as caught:
        _ads(text)
    assert caught.value.knob == knob
    assert str(caught.value).startswith("startd.config:")
