"""Slot ads from a configuration carry what a real startd publishes (issue 14).

Sources: HTCondor's manual, "Machine ClassAd Attributes" (FileSystemDomain, UidDomain,
Arch, OpSys*, Total<name>, Detected<name>, Assigned<name>) and "Startd Daemon
Configuration Options" (STARTD_ATTRS, SLOT<N>_STARTD_ATTRS, MACHINE_RESOURCE_<name>,
CONSUMPTION_POLICY and CONSUMPTION_<Resource> with their SLOT_TYPE_<N>_ overrides,
SLOT_WEIGHT, NUM_CPUS); the 8.9 release notes (ticket 7542: SLOT_TYPE_<N>_<ATTR>
overrides START, RANK, PREEMPT, SUSPEND, KILL and user-defined attributes)."""

import json
import os

import pytest
from click.testing import CliRunner

from fairpool.cli.main import main
from fairpool.config import parse_config_text
from fairpool.startd.layout import machine_ads
from knobs import TextKnobs


def _ads(text: str):
    return machine_ads(TextKnobs(text, "startd.config"))


def test_every_slot_publishes_the_machine_attributes():
    (slot,) = _ads("NUM_CPUS = 2\nFILESYSTEM_DOMAIN = cs.example\n")
    assert slot.eval("FileSystemDomain") == "cs.example"
    assert slot.eval("UidDomain") == "localhost"  # HTCondor's default: the host's name
    for name in ("Arch", "OpSys", "OpSysAndVer", "OpSysMajorVer", "OpSysName", "Disk"):
        assert name in slot, name
    assert (slot.eval("TargetType"), slot.eval("HasFileTransfer")) == ("Job", True)


def test_platform_knobs_set_the_platform():
    (slot,) = _ads("ARCH = AARCH64\nOPSYSANDVER = AlmaLinux9\nOPSYSMAJORVER = 9\n")
    assert (slot.eval("Arch"), slot.eval("OpSysAndVer"), slot.eval("OpSysMajorVer")) == (
        "AARCH64",
        "AlmaLinux9",
        9,
    )


def test_a_job_that_transfers_no_files_matches_the_configured_machine(tmp_path):
    # condor_submit gives should_transfer_files = NO jobs
    # TARGET.FileSystemDomain == MY.FileSystemDomain: the slot must publish the domain
    # the submit side uses (the same configuration's FILESYSTEM_DOMAIN).
    config = tmp_path / "pool.config"
    config.write_text("NUM_CPUS = 2\nNUM_SLOTS = 2\n")
    submit = tmp_path / "job.sub"
    submit.write_text("executable = /bin/true\nshould_transfer_files = NO\nqueue 2\n")
    out = tmp_path / "out.json"
    result = CliRunner().invoke(
        main,
        [
            "negotiate",
            *("--config", str(config), "--submit", str(submit), "--owner", "ann"),
            *("--state", str(tmp_path / "state"), "--start", "1750000000"),
            *("--json", str(out), "--quiet"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert len(json.loads(out.read_text())["cycles"][0]["matches"]) == 2


def test_startd_attrs_with_slot_and_slot_type_overrides():
    ads = _ads(
        "NUM_CPUS = 3\nNUM_SLOTS = 3\nSTARTD_ATTRS = Color, Size\n"
        'Color = "red"\nSize = Cpus * 10\nSLOT2_Color = "blue"\n'
        "SLOT3_STARTD_ATTRS = Extra\nExtra = 7\n"
    )
    assert [a.eval("Color") for a in ads] == ["red", "blue", "red"]
    assert [a.eval("Size") for a in ads] == [10, 10, 10]
    assert ["Extra" in a for a in ads] == [False, False, True]


def test_slot_type_knobs_override_the_global_ones():
    ads = _ads(
        "NUM_CPUS = 8\nMEMORY = 8192\n"
        "SLOT_TYPE_1 = cpus=4, 50%\nSLOT_TYPE_1_PARTITIONABLE = True\nNUM_SLOTS_TYPE_1 = 1\n"
        "SLOT_TYPE_1_CONSUMPTION_POLICY = True\nSLOT_TYPE_1_CONSUMPTION_MEMORY = 512\n"
        "SLOT_TYPE_1_SLOT_WEIGHT = Cpus * 2\n"
        'SLOT_TYPE_2 = cpus=1\nNUM_SLOTS_TYPE_2 = 4\nSLOT_TYPE_2_START = TARGET.Owner == "ann"\n'
        "SLOT_TYPE_2_RANK = 5\nSLOT_TYPE_2_PREEMPT = False\n"
    )
    pslot, *static = ads
    assert (pslot.eval("Cpus"), pslot.eval("Memory"), pslot.eval("SlotWeight")) == (4, 4096, 8)
    assert pslot.eval("ConsumptionMemory") == 512  # the type's own
    # the others are HTCondor's defaults for CONSUMPTION_CPUS and CONSUMPTION_DISK
    assert str(pslot.lookup("ConsumptionCpus")) == "quantize(target.RequestCpus,{ 1 })"
    assert "Consumption" not in str(static[0])  # the policy is type 1's only
    assert {str(a.lookup("START")) for a in static} == {'TARGET.Owner == "ann"'}
    assert {a.eval("Rank") for a in static} == {5}
    assert all(a.lookup("PREEMPT").eval() is False for a in static)
    assert str(pslot.lookup("START")) == "true" and "PREEMPT" not in pslot


def test_custom_machine_resources():
    # The manual's example: MACHINE_RESOURCE_Cogs = 16; a p-slot with half the cogs and
    # two static slots with a quarter each; GPUs given as ids are assigned per slot.
    ads = _ads(
        "NUM_CPUS = 4\nMACHINE_RESOURCE_Cogs = 16\nMACHINE_RESOURCE_GPUs = CUDA0, CUDA1, CUDA2\n"
        "SLOT_TYPE_1 = cogs=50%, gpus=1, 50%\nSLOT_TYPE_1_PARTITIONABLE = TRUE\n"
        "NUM_SLOTS_TYPE_1 = 1\n"
        "SLOT_TYPE_2 = cogs=25%, gpus=1, 25%\nNUM_SLOTS_TYPE_2 = 2\n"
    )
    assert [(a.eval("Cogs"), a.eval("TotalSlotCogs")) for a in ads] == [(8, 8), (4, 4), (4, 4)]
    assert {(a.eval("TotalCogs"), a.eval("DetectedCogs")) for a in ads} == {(16, 16)}
    assert [a.eval("AssignedGPUs") for a in ads] == ["CUDA0", "CUDA1", "CUDA2"]
    pslot = ads[0]
    for request, fits in ((8, True), (9, False)):
        job = {"RequestCpus": 1, "RequestMemory": 1, "RequestDisk": 1, "RequestCogs": request}
        assert pslot.eval("WithinResourceLimits", _job(job)) is fits


def _job(values):
    from fairpool.classad import ClassAd

    return ClassAd(values)


def test_machine_resource_names_filters_the_custom_resources():
    (slot,) = _ads(
        "MACHINE_RESOURCE_Cogs = 4\nMACHINE_RESOURCE_Gears = 2\nMACHINE_RESOURCE_NAMES = gears\n"
    )
    assert "Gears" in slot and "Cogs" not in slot


def test_nothing_is_detected_from_the_host(monkeypatch):
    # fairpool.config's host facts (DETECTED_CPUS = the host's cores) and the parameter
    # table (NUM_CPUS = $(DETECTED_CPUS)) do not make the machine: 1 core, 2048 MiB, on
    # any host. The live startd passes what it measured.
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    (slot,) = machine_ads(parse_config_text("", "empty.config"))
    assert (slot.eval("Cpus"), slot.eval("Memory"), slot.eval("Arch")) == (1, 2048, "X86_64")
    (measured,) = machine_ads(parse_config_text("", "x"), {"DETECTED_CPUS": "12"})
    assert (measured.eval("Cpus"), measured.eval("Memory")) == (12, 12 * 2048)
    (told,) = machine_ads(parse_config_text("NUM_CPUS = 6\n", "x"), {"DETECTED_CPUS": "12"})
    assert told.eval("Cpus") == 6


@pytest.mark.parametrize("text", ["SLOT_TYPE_1 = flux=2\nNUM_SLOTS_TYPE_1 = 1\n"])
def test_unknown_resources_in_a_slot_type_are_refused(text):
    from fairpool.errors import ConfigError

    with pytest.raises(ConfigError, match="SLOT_TYPE_1"):
        _ads(text)
