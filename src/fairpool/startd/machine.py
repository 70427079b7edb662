"""The attributes a startd publishes about its machine (seed 004 §3.6.1; HTCondor's manual,
"Machine ClassAd Attributes").

Every slot ad carries the machine's platform (``Arch``, ``OpSys``, ``OpSysAndVer``,
``OpSysMajorVer``, ``OpSysName``, ``OpSysShortName``, ``OpSysLongName``, ``OpSysVer``,
``OpSysLegacy``), its domains (``FileSystemDomain``, ``UidDomain``: the configuration's
``FILESYSTEM_DOMAIN`` and ``UID_DOMAIN``; HTCondor defaults both to the host's full name,
fairpool's parameter table to ``localdomain``, the same for the jobs condor_submit makes
and the machines, whatever host reads the files; without a configuration, the host's
name), ``Machine``, ``TargetType``, ``HasFileTransfer`` and the startd's address. A job
that condor_submit gives ``should_transfer_files = NO`` requires
``TARGET.FileSystemDomain == MY.FileSystemDomain``, and every vanilla job the ``Arch``
and ``OpSys`` clauses, so a slot without them never matches such jobs.

Nothing is detected: where the configuration files do not set the platform knobs
(``ARCH``, ``OPSYS``, ``OPSYSANDVER``...), the platform is the one most of the OSPool
sample's slots publish (src/fairpool/data: ``X86_64``, ``LINUX``, ``CentOS9``), whatever
machine runs fairpool; condor_submit's defaults (submit/knobs.py) agree.

The startd publishes the rest itself: ``State``, ``Activity``, ``EnteredCurrentState``,
``EnteredCurrentActivity``, ``CurrentRank``, ``Requirements`` and ``START``, ``CurrentTime``
and ``LastHeardFrom``, the machine's measurements (``KeyboardIdle``, ``ConsoleIdle``,
``LoadAvg``, ``CondorLoadAvg``, ``ClockMin``, ``ClockDay``), ``CpuBusyTime``, the claim's
``RemoteUser``/``RemoteOwner``/``ClientMachine``, the job's ``JobId``/``JobStart``/
``LastPeriodicCheckpoint`` and the run and suspension totals (claim.py). A machine ad given
by the caller overrides these defaults.
"""

from __future__ import annotations

from ..classad import ClassAd, Expr
from ..config.knob_values import KnobSource

__all__ = ["PLATFORM", "configured", "machine_attributes", "machine_defaults"]

# The attribute each platform knob sets, with the value where no file sets the knob.
PLATFORM: dict[str, tuple[str, object]] = {
    "ARCH": ("Arch", "X86_64"),
    "OPSYS": ("OpSys", "LINUX"),
    "OPSYSANDVER": ("OpSysAndVer", "CentOS9"),
    "OPSYSMAJORVER": ("OpSysMajorVer", 9),
    "OPSYSNAME": ("OpSysName", "CentOS"),
    "OPSYSSHORTNAME": ("OpSysShortName", "CentOS"),
    "OPSYSLONGNAME": ("OpSysLongName", "CentOS Stream release 9"),
    "OPSYSVER": ("OpSysVer", 900),
    "OPSYSLEGACY": ("OpSysLegacy", "LINUX"),
}
_NOT_SET = ("<default>", "<host>")  # fairpool.config's table defaults and host facts
ADDRESS = "<127.0.0.1:9618>"


def configured(knobs: KnobSource | None, name: str) -> str | None:
    """A knob's text when the configuration sets it (files, environment, metaknobs, or a
    caller's own knobs); None when only the parameter table or the host facts give it:
    the machine a configuration describes is never the one fairpool runs on."""
    if knobs is None:
        return None
    text = knobs.get(name)
    if text is None or not text.strip():
        return None
    return None if knobs.where(name)[0] in _NOT_SET else text.strip()


def machine_attributes(knobs: KnobSource | None, host: str) -> dict[str, object]:
    """The machine attributes of every slot of ``host`` (see the module docstring)."""
    attributes: dict[str, object] = {
        "MyType": "Machine",
        "TargetType": "Job",
        "Machine": host,
        "FileSystemDomain": _domain(knobs, "FILESYSTEM_DOMAIN", host),
        "UidDomain": _domain(knobs, "UID_DOMAIN", host),
        "HasFileTransfer": True,
        "StartdIpAddr": ADDRESS,
        "MyAddress": ADDRESS,
    }
    for knob, (attribute, default) in PLATFORM.items():
        text = configured(knobs, knob)
        attributes[attribute] = default if text is None else _platform_value(text, default)
    return attributes


def _domain(knobs: KnobSource | None, name: str, host: str) -> str:
    """FILESYSTEM_DOMAIN / UID_DOMAIN as the configuration (or its table) gives it, else
    the host's name, HTCondor's default for both."""
    text = knobs.get(name) if knobs is not None else None
    return text.strip() if text and text.strip() else host


def _platform_value(text: str, default: object) -> object:
    if isinstance(default, int):
        try:
            return int(text)
        except ValueError:
            return Expr(text)
    return text


def machine_defaults(ad: ClassAd, number: int, start: int) -> None:
    """Fill in what ``ad`` leaves unset: a one-cpu machine called ``localhost``."""
    host = ad.get("Machine")
    if not isinstance(host, str):
        name = ad.get("Name")
        host = name.partition("@")[2] if isinstance(name, str) and "@" in name else "localhost"
    defaults: dict[str, object] = {
        **machine_attributes(None, host),
        "Name": f"slot{number}@{host}",
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
