"""File transfer between ``Iwd`` and the sandbox, as HTCondor's vanilla universe does it.

In: the executable (unless ``TransferExecutable`` is false) as ``condor_exec.exe``, made
executable by its owner as HTCondor does, and each ``TransferInput`` item (relative to Iwd or
absolute) under its base name; an item ending in ``/`` is a directory whose contents are
copied. URLs are not transferred (fairpool has no transfer plug-ins).

Out: stdout and stderr to ``Out`` and ``Err``; then, with ``TransferOutput`` unset, every
regular file at the top of the sandbox that the job created or modified, else exactly the
listed files and directories (a missing one is an error). Each lands in Iwd under its base
name, or where ``TransferOutputRemaps`` sends it (relative to Iwd; directories created).

Copies run in the shim as the job's user (shim.py says why), so a job can neither read nor
write through the starter what its owner could not; when the job runs as the starter's own
user there is nothing to switch, and the same copying code runs in the starter's process.
"""

from __future__ import annotations

import json
import os
import posixpath
import subprocess
import sys
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path

from .hold import TRANSFER_INPUT_ERROR, TRANSFER_OUTPUT_ERROR, Hold, StartError
from .identity import JobUser
from .plan import EXECUTABLE_NAME, NULL, STDERR_NAME, STDOUT_NAME, JobPlan, resolve_path
from .shim import copy_all

__all__ = ["SHIM", "Copy", "input_copies", "output_copies", "run_copies", "shim_command"]

SHIM = Path(__file__).with_name("shim.py")


@dataclass(frozen=True)
class Copy:
    """One file or directory to copy as the job's user."""

    source: str
    target: str
    executable: bool = False  # the transferred executable: make it executable
    make_parents: bool = False  # a remapped output: create the directories it lands in
    contents: bool = False  # ``dir/``: copy what the directory holds, not the directory


def shim_command(*args: str) -> list[str]:
    """The shim run by path in isolated mode: nothing imported from the job's reach."""
    return [sys.executable, "-I", "-S", str(SHIM), *args]


def input_copies(plan: JobPlan, scratch: str) -> list[Copy]:
    """What goes into the sandbox before the job starts (nothing without file transfer);
    StartError for an item fairpool cannot transfer."""
    if not plan.transfer:
        return []
    copies = []
    if plan.transfer_executable:
        copies.append(Copy(plan.command, posixpath.join(scratch, EXECUTABLE_NAME), executable=True))
    for item in plan.transfer_input:
        if "://" in item:
            reason = f"Transfer input files failure: cannot transfer {item}: no URL transfers"
            raise StartError(Hold(reason, TRANSFER_INPUT_ERROR))
        source = resolve_path(plan.iwd, item)
        if item.endswith("/"):
            copies.append(Copy(source, scratch, contents=True))
        else:
            copies.append(Copy(source, posixpath.join(scratch, posixpath.basename(source))))
    return copies


def output_copies(plan: JobPlan, scratch: str, changed: list[str]) -> list[Copy]:
    """What goes back to Iwd after the job exits; ``changed`` lists the top-level files the
    job created or modified (used only when ``TransferOutput`` is unset)."""
    if not plan.transfer:
        return []
    copies = []
    if plan.stdout != NULL:
        copies.append(Copy(posixpath.join(scratch, STDOUT_NAME), plan.stdout))
    if plan.stderr not in (NULL, plan.stdout):
        copies.append(Copy(posixpath.join(scratch, STDERR_NAME), plan.stderr))
    remaps = dict(plan.remaps)
    for name in changed if plan.transfer_output is None else plan.transfer_output:
        base = posixpath.basename(posixpath.normpath(name))
        target = remaps.get(name, remaps.get(base))
        copies.append(
            Copy(
                resolve_path(scratch, name),
                resolve_path(plan.iwd, target or base),
                make_parents=target is not None,
            )
        )
    return copies


def run_copies(
    copies: list[Copy], user: JobUser, direction: str, *, via_shim: bool = False
) -> Hold | None:
    """Copy in order as ``user``; the hold HTCondor would give for the first failure.

    In the shim when ``user`` must be switched to (or ``via_shim``: tests run both ways),
    else here. ``direction`` is ``"input"`` or ``"output"``: it picks the hold code (13 or
    12). Not bounded in time: a big transfer takes what it takes (daemons run it in an
    executor)."""
    code = TRANSFER_INPUT_ERROR if direction == "input" else TRANSFER_OUTPUT_ERROR
    if not copies:
        return None
    spec = {"user": user.spec(), "copies": [asdict(copy) for copy in copies]}
    failure = _copy_in_shim(spec) if user.switch or via_shim else _copy_here(spec)
    if isinstance(failure, str):
        return Hold(f"Transfer {direction} files failure: {failure}", code)
    if failure is None:
        return None
    number, path = failure["errno"], failure["path"]
    verb = "reading from" if failure["reading"] else "writing to"
    return Hold(
        f"Transfer {direction} files failure: {verb} file {path}: "
        f"(errno {number}) {os.strerror(number)}",
        code,
        number,
    )


def _copy_in_shim(spec: dict) -> dict | str | None:
    """The shim's report: its failure, None, or the last line it wrote when it crashed."""
    done = subprocess.run(
        shim_command("copy"),
        input=json.dumps(spec).encode(),
        capture_output=True,
        env={},
        cwd="/",
        check=False,
    )
    try:
        return json.loads(done.stdout)
    except ValueError:
        text = done.stderr.decode(errors="replace").strip().splitlines()
        return text[-1] if text else "no report"


def _copy_here(spec: dict) -> dict | str | None:
    """``copy_all`` in this process; an exception that would have crashed the shim is worded
    as the last line of the shim's traceback."""
    try:
        return copy_all(spec)
    except Exception as error:
        return traceback.format_exception_only(error)[-1].strip()
