"""GPUs on the live startd (seed 002, "GPU utilization monitoring"; ``use FEATURE : GPUs``).

**Discovery.** ``use FEATURE : GPUs`` sets ``MACHINE_RESOURCE_INVENTORY_GPUs`` to HTCondor's
``condor_gpu_discovery`` command line. fairpool does not run that program: it reads the
command line's options and discovers the devices itself, through NVML (the
``nvidia-ml-py`` package, the ``gpu`` extra, imported only here and only then). A machine
without the package, without a driver or without devices has no GPUs, and the startd's
log says why. ``-simulate[:D[,N]]`` (in ``GPU_DISCOVERY_EXTRA``, as HTCondor's own test
mode) gives N simulated devices (default 1; D, the device model, is ignored) named
``CUDA0``... whose utilisation and memory come from ``GPU_SIMULATED_USAGE``
(``CUDA0=0.5/2048, CUDA1=1/512``: the fraction of time busy and MiB used; default idle).
The devices found become ``MACHINE_RESOURCE_GPUs``: the slots get ``GPUs`` and
``AssignedGPUs`` as for any custom resource listed by id (startd/layout.py).

**Environment.** ``ENVIRONMENT_FOR_Assigned<Res>`` (the feature's: ``GPU_DEVICE_ORDINAL=
/(CUDA|OCL)// CUDA_VISIBLE_DEVICES=/CUDA//``) names the variables set to the slot's
assigned ids in the job's environment, each optionally rewritten by a ``/regex/
replacement/``; a slot without any gets ``ENVIRONMENT_VALUE_FOR_UnAssigned<Res>``.

**Monitoring.** With ``GPUs_MONITOR`` in ``STARTD_CRON_JOBLIST`` (the feature puts it
there), every ``STARTD_CRON_GPUs_MONITOR_PERIOD`` seconds each device's utilisation and
memory are read, and each slot publishes the seed's two figures:
``DeviceGPUsAverageUsage``, the seconds its GPUs were busy divided by the seconds since
the startd started, and ``DeviceGPUsMemoryPeakUsage``, the most memory (MiB) they used
since then.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..classad import ClassAd
from ..config import Config

__all__ = ["GpuMonitor", "discover", "resource_environment", "with_gpus"]

_SIMULATE = re.compile(r"-simulate(?::(\d+)(?:,(\d+))?)?")


@dataclass(frozen=True)
class Reading:
    busy: float  # fraction of the interval the device was busy
    memory: float  # MiB in use


class Devices(Protocol):
    ids: list[str]

    def read(self) -> dict[str, Reading]: ...


@dataclass
class SimulatedDevices:
    """``condor_gpu_discovery -simulate``: devices with the usage the configuration gives."""

    ids: list[str]
    usage: dict[str, Reading] = field(default_factory=dict)

    def read(self) -> dict[str, Reading]:
        return {i: self.usage.get(i, Reading(0.0, 0.0)) for i in self.ids}


class NvmlDevices:
    """The machine's NVIDIA GPUs, through NVML."""

    def __init__(self, nvml: Any) -> None:
        self.nvml = nvml
        self.handles = {}
        for index in range(nvml.nvmlDeviceGetCount()):
            handle = nvml.nvmlDeviceGetHandleByIndex(index)
            uuid = nvml.nvmlDeviceGetUUID(handle)
            uuid = uuid.decode() if isinstance(uuid, bytes) else str(uuid)
            self.handles[uuid[:12]] = handle  # GPU-xxxxxxxx, as HTCondor names them
        self.ids = list(self.handles)

    def read(self) -> dict[str, Reading]:
        found = {}
        for name, handle in self.handles.items():
            rates = self.nvml.nvmlDeviceGetUtilizationRates(handle)
            memory = self.nvml.nvmlDeviceGetMemoryInfo(handle)
            found[name] = Reading(rates.gpu / 100.0, memory.used / 2**20)
        return found


def discover(config: Config, log: logging.Logger) -> Devices | None:
    """The GPUs ``MACHINE_RESOURCE_INVENTORY_GPUs`` asks for (None: it is not set)."""
    command = (config.get("MACHINE_RESOURCE_INVENTORY_GPUs") or "").strip()
    if not command:
        return None
    simulated = _SIMULATE.search(command)
    if simulated is not None:
        count = int(simulated.group(2) or 1)
        ids = [f"CUDA{n}" for n in range(count)]
        return SimulatedDevices(ids, _usage(config.get("GPU_SIMULATED_USAGE") or ""))
    try:
        import pynvml  # the nvidia-ml-py package: the gpu extra
    except ImportError:
        log.info("no GPUs: the nvidia-ml-py package (fairpool[gpu]) is not installed")
        return SimulatedDevices([])
    try:
        pynvml.nvmlInit()
        devices = NvmlDevices(pynvml)
    except pynvml.NVMLError as err:
        log.info("no GPUs: NVML says %s", err)
        return SimulatedDevices([])
    log.info("GPUs: %s", ", ".join(devices.ids) or "none")
    return devices


def _usage(text: str) -> dict[str, Reading]:
    usage = {}
    for entry in re.split(r"[\s,]+", text.strip()):
        name, _, figures = entry.partition("=")
        if not figures:
            continue
        busy, _, memory = figures.partition("/")
        usage[name] = Reading(float(busy), float(memory or 0))
    return usage


class _WithGpus:
    """The configuration with ``MACHINE_RESOURCE_GPUs`` the devices found."""

    def __init__(self, config: Config, ids: list[str]) -> None:
        self.config = config
        self.value = ", ".join(ids) if ids else "0"

    def get(self, name: str) -> str | None:
        return self.value if name.upper() == "MACHINE_RESOURCE_GPUS" else self.config.get(name)

    def where(self, name: str) -> tuple[str | None, int | None]:
        if name.upper() == "MACHINE_RESOURCE_GPUS":
            return ("<gpu discovery>", None)
        return self.config.where(name)

    def names(self) -> list[str]:
        return [*self.config.names(), "MACHINE_RESOURCE_GPUs"]


def with_gpus(config: Config, devices: Devices | None) -> Any:
    """The knobs the slot layout reads: the configuration, and the devices found."""
    return config if devices is None else _WithGpus(config, devices.ids)


def resource_environment(config: Config, slot: ClassAd) -> dict[str, str]:
    """The variables ``ENVIRONMENT_FOR_Assigned<Res>`` sets for a job on ``slot``, for
    each resource the machine has (``Total<Res>`` more than 0)."""
    found: dict[str, str] = {}
    for knob in _resource_knobs(config):
        resource = knob[len("ENVIRONMENT_FOR_ASSIGNED") :]
        total = slot.get(f"Total{resource}")
        if type(total) not in (int, float) or total <= 0:
            continue
        assigned = slot.get(f"Assigned{resource}")
        ids = [i for i in re.split(r"[\s,]+", assigned) if i] if isinstance(assigned, str) else []
        empty = config.get(f"ENVIRONMENT_VALUE_FOR_UnAssigned{resource}")
        for spec in (config.get(knob) or "").split():
            name, _, rewrite = spec.partition("=")
            if ids:
                found[name] = ",".join(_rewritten(i, rewrite) for i in ids)
            elif empty is not None and empty.strip():
                found[name] = empty.strip()
    return found


@functools.lru_cache(maxsize=8)
def _resource_knobs(config: Config) -> tuple[str, ...]:
    """The ENVIRONMENT_FOR_Assigned<Res> knobs a configuration sets, and the GPUs' one
    (a configuration never changes: a reconfig makes a new one; asked at every start)."""
    knobs = {k for k in config.names() if k.upper().startswith("ENVIRONMENT_FOR_ASSIGNED")}
    return tuple(sorted(knobs | {"ENVIRONMENT_FOR_AssignedGPUs"}))


def _rewritten(value: str, rewrite: str) -> str:
    """``/regex/replacement/`` applied to one id (no rewrite: the id)."""
    parts = rewrite.split("/")
    if len(parts) != 4 or parts[0] or parts[3]:
        return value
    return re.sub(parts[1], parts[2], value)


@dataclass
class GpuMonitor:
    """Each device's busy seconds and peak memory since the startd started."""

    devices: Devices
    started: float
    busy: dict[str, float] = field(default_factory=dict)
    peak: dict[str, float] = field(default_factory=dict)
    last: float | None = None

    def poll(self, now: float) -> None:
        readings = self.devices.read()
        elapsed = now - (self.last if self.last is not None else self.started)
        self.last = now
        for name, reading in readings.items():
            self.busy[name] = self.busy.get(name, 0.0) + reading.busy * max(elapsed, 0.0)
            self.peak[name] = max(self.peak.get(name, 0.0), reading.memory)

    def figures(self, assigned: object, now: float) -> Mapping[str, float]:
        """The slot's DeviceGPUsAverageUsage and DeviceGPUsMemoryPeakUsage."""
        if not isinstance(assigned, str) or self.last is None:
            return {}
        ids = [i for i in re.split(r"[\s,]+", assigned) if i]
        if not ids:
            return {}
        age = max(now - self.started, 1e-9)
        return {
            "DeviceGPUsAverageUsage": sum(self.busy.get(i, 0.0) for i in ids) / age,
            "DeviceGPUsMemoryPeakUsage": max(self.peak.get(i, 0.0) for i in ids),
        }
