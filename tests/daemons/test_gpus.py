"""GPUs on a live startd (``use FEATURE : GPUs``) with HTCondor's simulated discovery
(``GPU_DISCOVERY_EXTRA = -simulate:0,2``) and utilisation the test chooses
(``GPU_SIMULATED_USAGE``): each static slot gets one device (``AssignedGPUs``), a job that
asks for a GPU runs with its slot's device in ``CUDA_VISIBLE_DEVICES``, and each slot
publishes DeviceGPUsAverageUsage and DeviceGPUsMemoryPeakUsage from the readings. The NVML
path runs where a GPU and nvidia-ml-py are present."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from fairpool.classad import ClassAd
from fairpool.config import parse_config_text
from fairpool.daemons.gpus import GpuMonitor, NvmlDevices, discover
from fairpool.startd.partition import carve, release
from livepool import LivePool

PROGRAM = '#!/bin/sh\necho "$CUDA_VISIBLE_DEVICES $GPU_DEVICE_ORDINAL" > gpu.$1\nsleep 1\n'


def test_simulated_gpus_are_assigned_given_to_jobs_and_monitored(tmp_path: Path):
    feature = tmp_path / "gpus.config"
    # read after the main file: the period must follow the feature's own (300 s)
    feature.write_text("use FEATURE : GPUs\nSTARTD_CRON_GPUs_MONITOR_PERIOD = 0.5\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "gpu.sh").write_text(PROGRAM)
    (work / "gpu.sh").chmod(0o755)
    knobs = {
        "LOCAL_CONFIG_FILE": feature,
        "GPU_DISCOVERY_EXTRA": "-simulate:0,2",
        "GPU_SIMULATED_USAGE": "CUDA0=0.5/2048, CUDA1=1/512",
        "UPDATE_INTERVAL": 1,
    }
    with LivePool(tmp_path / "pool", **knobs) as pool:
        slots = {ad["Name"].split("@")[0]: ad for ad in pool.slots()}
        assert {n: (s["GPUs"], s["AssignedGPUs"]) for n, s in slots.items()} == {
            "slot1": (1, "CUDA0"),
            "slot2": (1, "CUDA1"),
        }
        pool.submit(
            "executable = gpu.sh\narguments = $(Process)\nrequest_gpus = 1\n"
            "should_transfer_files = NO\nqueue 2\n",
            work,
        )
        pool.wait(lambda: len(pool.history()) == 2, 60, "both jobs to finish")
        seen = sorted((work / f"gpu.{n}").read_text().split()[0] for n in range(2))
        assert seen == ["0", "1"]  # CUDA_VISIBLE_DEVICES: the slot's device, CUDA stripped

        def figures() -> dict:
            ads = {ad["Name"].split("@")[0]: ad for ad in pool.slots()}
            return {
                n: (ad.get("DeviceGPUsAverageUsage"), ad.get("DeviceGPUsMemoryPeakUsage"))
                for n, ad in ads.items()
            }

        found = pool.wait(
            lambda: (f := figures())["slot1"][0] is not None and f["slot1"][0] > 0.25 and f,
            30,
            "the GPU figures",
        )
        (usage1, peak1), (usage2, peak2) = found["slot1"], found["slot2"]
        assert 0.25 < usage1 <= 0.5 and 0.5 < usage2 <= 1.0  # busy seconds over the age
        assert (peak1, peak2) == (2048, 512)


def test_the_monitor_divides_busy_seconds_by_the_startds_age():
    config = parse_config_text(
        "use FEATURE : GPUs\nGPU_DISCOVERY_EXTRA = -simulate:0,3\n"
        "GPU_SIMULATED_USAGE = CUDA0=0.5/100 CUDA2=0.25/300\n",
        env={},
    )
    devices = discover(config, logging.getLogger("test"))
    assert devices is not None and devices.ids == ["CUDA0", "CUDA1", "CUDA2"]
    monitor = GpuMonitor(devices, started=1000.0)
    monitor.poll(1010.0)
    monitor.poll(1020.0)
    # CUDA0: 0.5 x 20 s busy in 20 s; CUDA2: 0.25 x 20 s; together 15 s over 20 s
    assert monitor.figures("CUDA0", 1020.0) == {
        "DeviceGPUsAverageUsage": 0.5,
        "DeviceGPUsMemoryPeakUsage": 100.0,
    }
    assert monitor.figures("CUDA0, CUDA2", 1020.0)["DeviceGPUsAverageUsage"] == 0.75
    assert monitor.figures("CUDA1", 1020.0)["DeviceGPUsMemoryPeakUsage"] == 0.0
    assert monitor.figures("", 1020.0) == {}
    assert discover(parse_config_text("", env={}), logging.getLogger("test")) is None


def test_nvml_discovery_where_a_gpu_is_present():
    pynvml = pytest.importorskip("pynvml", reason="nvidia-ml-py (fairpool[gpu]) not installed")
    try:
        pynvml.nvmlInit()
        count = pynvml.nvmlDeviceGetCount()
    except pynvml.NVMLError as err:
        pytest.skip(f"no NVIDIA driver or GPU here: {err}")
    if count == 0:
        pytest.skip("no NVIDIA GPU on this machine")
    devices = NvmlDevices(pynvml)
    assert len(devices.ids) == count and all(i.startswith("GPU-") for i in devices.ids)
    readings = devices.read()
    assert all(0.0 <= r.busy <= 1.0 and r.memory >= 0 for r in readings.values())


def test_a_dynamic_slot_takes_its_gpus_by_id_and_gives_them_back():
    pslot = ClassAd(
        {"Name": "slot1@h", "SlotID": 1, "PartitionableSlot": True, "Cpus": 4, "Memory": 4096,
         "Disk": 10**6, "GPUs": 3, "AssignedGPUs": "CUDA0, CUDA1, CUDA2", "Requirements": True}
    )  # fmt: skip
    two = ClassAd({"RequestCpus": 1, "RequestMemory": 128, "RequestDisk": 1, "RequestGPUs": 2})
    none = ClassAd({"RequestCpus": 1, "RequestMemory": 128, "RequestDisk": 1})
    first = carve(pslot, two, 0, 1)
    second = carve(pslot, none, 0, 2)
    assert first is not None and second is not None
    assert (first["AssignedGPUs"], second["AssignedGPUs"]) == ("CUDA0, CUDA1", "")
    assert (pslot["GPUs"], pslot["AssignedGPUs"]) == (1, "CUDA2")
    release(pslot, second)
    release(pslot, first)
    assert (pslot["GPUs"], pslot["AssignedGPUs"]) == (3, "CUDA2, CUDA0, CUDA1")
