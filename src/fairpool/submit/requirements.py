"""How condor_submit extends a job's Requirements (condor_submit manual, "requirements").

For jobs that run on execute machines (vanilla, docker, parallel) the user's expression, in
parentheses, is followed by these clauses, each left out when the user's expression already
names the machine attribute it tests:

    (TARGET.Arch == "<ARCH>") && (TARGET.OpSys == "<OPSYS>")   vanilla and parallel
    TARGET.HasDocker                                             docker
    (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory)
    (TARGET.Cpus >= RequestCpus)          only when request_cpus is given
    (TARGET.GPUs >= RequestGPUs)          only when request_gpus is given
    (TARGET.<Name> >= Request<Name>)      for each custom resource request_<name>
    (TARGET.HasFileTransfer)              should_transfer_files = YES
    ((TARGET.HasFileTransfer) || (TARGET.FileSystemDomain == MY.FileSystemDomain))  IF_NEEDED
    (TARGET.FileSystemDomain == MY.FileSystemDomain)                                NO

Scheduler and local universe jobs match the schedd's own ad, so nothing is added
(``true`` when the user gave nothing).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..classad import Expr
from ..classad.nodes import AttrRef, Node, children

__all__ = ["RequirementsInput", "extend_requirements"]

_OPSYS_NAMES = frozenset(
    n.lower()
    for n in ("OpSys", "OpSysAndVer", "OpSysLongName", "OpSysShortName", "OpSysName", "OpSysLegacy")
)
_TRANSFER = {
    "YES": "(TARGET.HasFileTransfer)",
    "IF_NEEDED": "((TARGET.HasFileTransfer) || (TARGET.FileSystemDomain == MY.FileSystemDomain))",
    "NO": "(TARGET.FileSystemDomain == MY.FileSystemDomain)",
}


@dataclass(frozen=True)
class RequirementsInput:
    """What the extension depends on."""

    user: Expr | None
    universe: str
    arch: str
    opsys: str
    cpus_requested: bool
    gpus_requested: bool
    transfer: str  # YES, IF_NEEDED or NO
    custom: tuple[str, ...] = ()  # custom resources requested (request_<name>)


def extend_requirements(given: RequirementsInput) -> Expr:
    """The Requirements expression condor_submit would store."""
    if given.universe in ("scheduler", "local"):
        return given.user if given.user is not None else Expr("true")
    named = _names(given.user.node) if given.user is not None else set()
    parts = [f"({given.user})"] if given.user is not None else []
    parts += [clause for test, clause in _clauses(given) if test not in named]
    return Expr(" && ".join(parts))


def _clauses(given: RequirementsInput) -> list[tuple[str, str]]:
    """(attribute the clause tests, clause) in condor_submit's order."""
    found: list[tuple[str, str]] = []
    if given.universe == "docker":
        found.append(("hasdocker", "TARGET.HasDocker"))
    else:
        found.append(("arch", f'(TARGET.Arch == "{given.arch}")'))
        found.append(("opsys", f'(TARGET.OpSys == "{given.opsys}")'))
    found.append(("disk", "(TARGET.Disk >= RequestDisk)"))
    found.append(("memory", "(TARGET.Memory >= RequestMemory)"))
    if given.cpus_requested:
        found.append(("cpus", "(TARGET.Cpus >= RequestCpus)"))
    if given.gpus_requested:
        found.append(("gpus", "(TARGET.GPUs >= RequestGPUs)"))
    for name in given.custom:
        found.append((name.lower(), f"(TARGET.{name} >= Request{name})"))
    found.append(("hasfiletransfer", _TRANSFER[given.transfer]))
    return found


def _names(node: Node) -> set[str]:
    """Attribute names (lower case) an expression refers to, in any scope; the OpSys
    family all count as ``opsys``."""
    names: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, AttrRef):
            names.add("opsys" if current.lname in _OPSYS_NAMES else current.lname)
        stack.extend(children(current))
    return names
