"""The CPU each of the pool's steps takes per call, measured inside the running pool
(``python benchmarks/job_start_costs.py --calls``).

Python imports this module at start-up when its directory is on PYTHONPATH (in place of
any other ``sitecustomize`` of the installation, for the benchmark's processes only). With
``FAIRPOOL_CALL_COSTS`` naming a directory, a pool process (not its starter, nor the
commands) wraps the functions of ``STEPS`` once its event loop runs its first callback
(every module is imported by then); each call adds its thread's CPU time (and nothing
of the time it waited) to its step. At exit the totals go to ``<directory>/<pid>.json``
as ``{"steps": {"Class.method": [nanoseconds, calls]}, "missing": [...]}``, the steps
the code no longer has among the missing.

Why inside the pool: a step measured alone, its code and data in the caches, takes a
third or a quarter of what it takes in a pool whose two cores also run a thousand new
processes a second; and a sampling profiler charges the wait for the interpreter's lock
to the line that waits. Nested steps count their callees too; each wrapped call adds
about half a microsecond.
"""

from __future__ import annotations

import asyncio.events
import atexit
import functools
import importlib
import json
import os
import sys
import time
from collections import defaultdict

STEPS = [
    ("fairpool.daemons.schedd", "Schedd", "_leave"),
    ("fairpool.daemons.schedd", "Schedd", "_save"),
    ("fairpool.daemons.schedd", None, "next_job"),
    ("fairpool.schedd.shadow", None, "exited"),
    ("fairpool.schedd.shadow", None, "started"),
    ("fairpool.schedd.queue", "JobQueue", "begin"),
    ("fairpool.schedd.queue", "JobQueue", "reserve"),
    ("fairpool.schedd.queue", "JobQueue", "leave"),
    ("fairpool.store.jobs", "JobStore", "leaving"),
    ("fairpool.store.jobs", "JobStore", "saving"),
    ("fairpool.store.group_commit", "GroupCommit", "write"),
    ("fairpool.daemons.startd", "StartdDaemon", "_heard_from_starter"),
    ("fairpool.daemons.startd", "StartdDaemon", "_exited"),
    ("fairpool.daemons.startd", "StartdDaemon", "start"),
    ("fairpool.daemons.startd", "StartdDaemon", "_after"),
    ("fairpool.daemons.startd", "StartdDaemon", "_changed"),
    ("fairpool.startd.node", "ExecuteNode", "activate"),
    ("fairpool.startd.node", "ExecuteNode", "exited"),
    ("fairpool.startd.node", "ExecuteNode", "settle"),
    ("fairpool.startd.startd", "Startd", "activate"),
    ("fairpool.startd.startd", "Startd", "starter_exit"),
    ("fairpool.startd.startd", "Startd", "_prepare"),
    ("fairpool.startd.engine", "Engine", "event"),
    ("fairpool.startd.engine", "Engine", "change"),
    ("fairpool.startd.engine", "Engine", "effect"),
    ("fairpool.starter.messages", "Start", "of"),
    ("fairpool.classad.adtext", "OldText", "write"),
    ("fairpool.store.adjson", "JsonText", "write"),
    ("fairpool.classad.match_memo", None, "symmetric_match"),  # a claim memo's misses
    ("fairpool.daemons.starter_link", "StarterLink", "start"),
    ("fairpool.starter.messages", "Frames", "feed"),
    ("fairpool.daemons.logs", "DaemonLog", "_log"),
]

_totals: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0])
_missing: list[str] = []


def _timed(name: str, function):
    clock = time.thread_time_ns

    @functools.wraps(function)
    def timed(*args, **kwargs):
        began = clock()
        try:
            return function(*args, **kwargs)
        finally:
            total = _totals[name]
            total[0] += clock() - began
            total[1] += 1

    return timed


def step_function(module_name: str, owner_name: str | None, attribute: str):
    """The class (or module) that holds a step and the step as found there; LookupError
    when the code no longer has it (renamed or moved)."""
    try:
        module = importlib.import_module(module_name)
        owner = getattr(module, owner_name) if owner_name else module
        found = owner.__dict__[attribute] if owner_name else getattr(module, attribute)
    except (ImportError, AttributeError, KeyError) as error:
        raise LookupError(f"{module_name}.{owner_name or ''}.{attribute}: {error}") from None
    return owner, found


def _wrap_steps() -> None:
    for module_name, owner_name, attribute in STEPS:
        name = f"{owner_name or module_name.rsplit('.', 1)[1]}.{attribute}"
        try:
            owner, found = step_function(module_name, owner_name, attribute)
        except LookupError:
            _missing.append(name)  # the table says so; the pool runs on
            continue
        if isinstance(found, classmethod):
            setattr(owner, attribute, classmethod(_timed(name, found.__func__)))
        else:
            setattr(owner, attribute, _timed(name, found))


def _install(directory: str) -> None:
    run = asyncio.events.Handle._run
    wrapped = []

    def first_run(handle: asyncio.events.Handle) -> None:
        if not wrapped:
            wrapped.append(True)
            _wrap_steps()
        run(handle)

    asyncio.events.Handle._run = first_run

    def write() -> None:
        if _totals or _missing:
            with open(os.path.join(directory, f"{os.getpid()}.json"), "w") as out:
                json.dump({"steps": dict(_totals), "missing": _missing}, out)

    atexit.register(write)


_where = os.environ.get("FAIRPOOL_CALL_COSTS")
if _where and sys.argv[1:3] == ["pool", "start"]:
    _install(_where)
