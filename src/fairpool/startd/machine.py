"""The attributes a slot ad starts with (seed 004 §3.6.1, and current HTCondor's).

The startd publishes the rest itself: ``State``, ``Activity``, ``EnteredCurrentState``,
``EnteredCurrentActivity``, ``CurrentRank``, ``Requirements`` and ``START``, ``CurrentTime``
and ``LastHeardFrom``, the machine's measurements (``KeyboardIdle``, ``ConsoleIdle``,
``LoadAvg``, ``CondorLoadAvg``, ``ClockMin``, ``ClockDay``), ``CpuBusyTime``, the claim's
``RemoteUser``/``RemoteOwner``/``ClientMachine`` and the job's ``JobId``/``JobStart``/
``LastPeriodicCheckpoint``. A machine ad given by the caller overrides these defaults.
"""

from __future__ import annotations

from ..classad import ClassAd

__all__ = ["machine_defaults"]


def machine_defaults(ad: ClassAd, number: int, start: int) -> None:
    """Fill in what ``ad`` leaves unset: a one-cpu Linux machine called ``localhost``."""
    host = ad.get("Machine")
    if not isinstance(host, str):
        name = ad.get("Name")
        host = name.partition("@")[2] if isinstance(name, str) and "@" in name else "localhost"
    defaults: dict[str, object] = {
        "Machine": host,
        "Name": f"slot{number}@{host}",
        "MyType": "Machine",
        "TargetType": "Job",
        "Arch": "X86_64",
        "OpSys": "LINUX",
        "FileSystemDomain": host,
        "UidDomain": host,
        "StartdIpAddr": "<127.0.0.1:9618>",
        "Cpus": 1,
        "Memory": 1024,
        "Disk": 1048576,
        "VirtualMemory": 1048576,
        "GPUs": 0,
        "KFlops": 0,
        "Mips": 0,
        "SlotID": number,
        "VirtualMachineID": number,
        "DaemonStartTime": start,
        "LastBenchmark": 0,
    }
    for attribute, value in defaults.items():
        ad.setdefault(attribute, value)
    for resource in ("Cpus", "Memory", "Disk"):
        ad.setdefault(f"TotalSlot{resource}", ad[resource])
        ad.setdefault(f"Total{resource}", ad[resource])
