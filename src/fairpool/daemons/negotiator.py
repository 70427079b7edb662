"""The negotiator: a cycle every NEGOTIATOR_INTERVAL over the pool as the collector and
the schedds show it, with the accountant kept in the pool's database.

A cycle, as HTCondor's negotiator runs it: the slot ads (with their private ClaimIds)
and the Submitter ads from the collector; the significant attributes derived from the
slots, sent to each schedd that has submitters, which answers with its resource
requests (one per autocluster, with a count); ``run_cycle`` over them with the
accountant's priorities (aged to now); the accountant's usage saved (in one
transaction, before any match is sent, so a crash never charges twice); the matches
sent to their schedds, each with the slot's ClaimId and its startd's address.

Each cycle's matches and rejections are kept (the last ``NEGOTIATOR_CYCLES_KEPT``), so
"why is my job idle" has the negotiator's own answer; the statistics go into the
Negotiator ad (``LastNegotiationCycle*``). A schedd's submit asks for a cycle soon
(``reschedule``), no sooner than NEGOTIATOR_MIN_INTERVAL after the last one began.

Several negotiators may share a pool (seed 002, "Running Multiple Negotiators"): each
has its NEGOTIATOR_NAME, its own accountant (its own SPOOL, or its rows under its
NEGOTIATOR_NAME in a shared DATABASE_URL; the unnamed negotiator's are the pool's default
accountant, which the negotiators of two central managers share), and considers only the slots
of NEGOTIATOR_SLOT_CONSTRAINT, the submitters of NEGOTIATOR_SUBMITTER_CONSTRAINT (judged
on their Submitter ads) and the jobs of NEGOTIATOR_JOB_CONSTRAINT; it asks each schedd for
its own submitters' requests only, and names itself in what it asks and sends, so that a
schedd keeps each negotiator's offers apart.

The cycle runs in a worker thread on ads private to it, so the daemons sharing this
process keep answering; the accountant is changed only under the cycle's lock.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..accounting.accountant import Accountant
from ..accounting.records import Customer
from ..classad import ClassAd
from ..classad.jsonads import ad_from_json, ad_to_json
from ..classad.vector import SlotColumns
from ..negotiator import CycleResult, PoolSnapshot, run_cycle, significant_of
from ..negotiator.configure import accountant_policy, negotiator_params
from ..negotiator.groups import group_assigner
from ..negotiator.results import rejection_attributes
from ..negotiator.submitters import Request, SubmitterQueue, served
from ..store.accountant_store import LOG_NAME, AccountantStore
from .accounting_ads import accounting_ads
from .client import Api
from .context import Context, knob_float, knob_int
from .errors import BadRequest, Conflict, Forbidden, Unavailable
from .identity import Caller

__all__ = ["Negotiator"]

# edit_record's numeric edits: the accountant's setter, and the least value accepted
# (condor_userprio's own limits)
_EDITS = {
    "factor": Accountant.set_factor,
    "priority": Accountant.set_priority,
    "ceiling": lambda a, user, value: a.set_ceiling(user, int(value)),
    "floor": lambda a, user, value: a.set_floor(user, int(value)),
    "usage": Accountant.set_accumulated_usage,
    "begin": lambda a, user, value: a.set_begin_usage(user, int(value)),
    "last": lambda a, user, value: a.set_last_usage(user, int(value)),
}
_EDIT_MINIMUM = {
    "factor": 1.0,
    "priority": 0.0,
    "ceiling": -1.0,
    "floor": 0.0,
    "usage": 0.0,
    "begin": 0.0,
    "last": 0.0,
}


class Negotiator:
    """The pool's matchmaker and accountant."""

    name = "negotiator"

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.log = ctx.logger(self.name)
        self.reconfig()
        self.store = AccountantStore(
            ctx.engine,
            knob_int(ctx.config, "MAX_ACCOUNTANT_DATABASE_SIZE", 1_000_000, minimum=1),
            name=ctx.owner((ctx.config.get("NEGOTIATOR_NAME") or "").strip()),
            log=_log_path(ctx),
        )
        self.accountant = self.store.load(self.policy, group_assigner(self.params.groups))
        self.version = 0  # of the accountant, for edits made from a copy
        self.cycles: deque[dict[str, Any]] = deque(maxlen=self.kept)
        self.last_start = 0.0
        self.last_stats: dict[str, Any] = {}
        self.accounted: set[str] = set()  # records with an Accounting ad in the collector
        self.offered: dict[tuple[str, str], int] = {}  # (schedd, request's job) -> autocluster
        self.columns = SlotColumns([])  # the vector evaluator's columns, kept between cycles
        self._lock: asyncio.Lock | None = None
        self._next = None
        self._apis: dict[str, Api] = {}
        self._tasks: set[asyncio.Task] = set()
        self._plan(0.0)

    def reconfig(self) -> None:
        config = self.ctx.config
        self.params = negotiator_params(config, warn=lambda problem: self.log.info("%s", problem))
        self.policy = accountant_policy(config)
        self.interval = knob_float(config, "NEGOTIATOR_INTERVAL", 60.0, minimum=0.001)
        self.min_interval = knob_float(config, "NEGOTIATOR_MIN_INTERVAL", 5.0)
        self.kept = knob_int(config, "NEGOTIATOR_CYCLES_KEPT", 20, minimum=1)
        self.negotiator_name = (config.get("NEGOTIATOR_NAME") or "").strip() or self.ctx.host
        if hasattr(self, "accountant"):
            self.accountant.policy = self.policy
            self.accountant.assign_group = group_assigner(self.params.groups)
            self.cycles = deque(self.cycles, maxlen=self.kept)

    @property
    def lock(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    def api(self, url: str) -> Api:
        if url not in self._apis:
            self._apis[url] = Api(url)
        return self._apis[url]

    def spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- when cycles run ----------------------------------------------------------------
    def _plan(self, delay: float) -> None:
        """A cycle ``delay`` seconds from now (replacing a later one already planned)."""
        when = self.ctx.env.now + delay
        if self._next is not None and not self._next.cancelled:
            if self._next.time <= when:
                return
            self._next.cancel()
        self._next = self.ctx.env.at(when, lambda: self.spawn(self.cycle()))

    def reschedule(self) -> None:
        """A cycle soon: at once, or NEGOTIATOR_MIN_INTERVAL after the last one began."""
        self._plan(max(0.0, self.last_start + self.min_interval - self.ctx.env.now))

    # -- a cycle ------------------------------------------------------------------------
    async def cycle(self) -> CycleResult | None:
        self._next = None
        async with self.lock:
            started = time.monotonic()
            now = self.ctx.env.now
            self.last_start = now
            try:
                result = await self._negotiate(now)
            except Unavailable as err:
                self.log.info("no cycle: %s", err)
                result = None
            finally:
                self._plan(self.interval)
            if result is not None:
                self._record(result, time.monotonic() - started)
        self.spawn(self.advertise())
        return result

    async def _slots(self) -> list[ClassAd]:
        """The slot ads with their ClaimIds: straight from the collector when it runs in
        this process (the central manager's usual setup: no HTTP, no decoding, and only
        ads updated since the last cycle parsed again), else through its API."""
        local = self.ctx.local.get("collector")
        if local is not None:
            return local.slot_ads()
        machines = (
            await self.ctx.collectors.get(
                "/ads", type="Machine", private="true", constraint="Offline =!= true"
            )
        )["ads"]
        return [ad_from_json(obj, "a slot ad") for obj in machines]

    async def _negotiate(self, now: float) -> CycleResult:
        slots = await self._slots()
        submitters = [
            obj
            for obj in (await self.ctx.collectors.get("/ads", type="Submitter"))["ads"]
            if served(ad_from_json(obj, "a Submitter ad"), self.params.submitter_constraint, now)
        ]
        significant = significant_of(slots, self.params, now)
        queues, offered = await self._requests(submitters, significant)
        running = frozenset(
            str(ad.get("Name"))
            for ad in submitters
            if type(ad.get("RunningJobs")) is int and ad["RunningJobs"] > 0
        )
        self.accountant.update_priorities(now)
        snapshot = PoolSnapshot(slots, [], running=running, queues=queues)
        priorities = self.accountant.view().__getitem__
        result = await asyncio.to_thread(
            run_cycle, snapshot, priorities, self.params, now=now, columns=self.columns
        )
        self.accountant.set_usage(result.usage)
        for name in result.submitters:
            self.accountant.customer(name)
        self.store.save(self.accountant, result.groups if self.params.groups.enabled else None)
        self.version += 1
        await self._send(result, {ad.get("Name"): ad for ad in slots})
        self.offered = offered
        return result

    async def _requests(
        self, submitters: list[dict[str, Any]], significant: tuple[str, ...]
    ) -> tuple[dict[str, SubmitterQueue], dict[tuple[str, str], int]]:
        """Each schedd's resource requests, as the cycle's submitter queues; and the
        autocluster each request's job stands for."""
        schedds: dict[str, set[str]] = {}
        for ad in submitters:
            if isinstance(ad.get("ApiAddress"), str) and isinstance(ad.get("Name"), str):
                schedds.setdefault(ad["ApiAddress"], set()).add(ad["Name"])
        queues: dict[str, SubmitterQueue] = {}
        offered: dict[tuple[str, str], int] = {}
        for schedd in sorted(schedds):
            ask = {
                "significant": list(significant),
                "submitters": sorted(schedds[schedd]),
                "negotiator": self.negotiator_name,
            }
            try:
                reply = await self.api(schedd).post("/negotiate", ask)
            except Unavailable as err:
                self.log.info("schedd %s: %s", schedd, err)
                continue
            for submitter, requests in (reply.get("submitters") or {}).items():
                queue = queues.setdefault(submitter, SubmitterQueue(submitter))
                for request in requests:
                    job = ad_from_json(request.get("job"), f"a request of {schedd}")
                    count = int(request.get("count", 0))
                    cluster = int(request.get("autocluster", 0))
                    queue.requests.append(Request(cluster, [job], count=count, schedd=schedd))
                    cpus = job.eval("RequestCpus")
                    queue.weighted_idle += count * (cpus if type(cpus) in (int, float) else 1)
                    offered[(schedd, f"{job.get('ClusterId')}.{job.get('ProcId')}")] = cluster
        return queues, offered

    async def _send(self, result: CycleResult, slots: dict[Any, ClassAd]) -> None:
        """Each schedd its matches, with the slot's ClaimId and its startd's address."""
        by_schedd: dict[str, list[dict[str, Any]]] = {}
        for match in result.matches:
            slot = slots.get(match.slot)
            by_schedd.setdefault(match.schedd or "", []).append(
                {
                    "job": match.job,
                    "submitter": match.submitter,
                    "slot": match.slot,
                    "claim_id": slot.get("ClaimId") if slot is not None else None,
                    "startd": slot.get("ApiAddress") if slot is not None else None,
                    "preempting": match.preempting is not None,
                }
            )
        for schedd, matches in by_schedd.items():
            try:
                await self.api(schedd).post(
                    "/matches", {"matches": matches, "negotiator": self.negotiator_name}
                )
            except Unavailable as err:
                self.log.info("matches for %s not delivered: %s", schedd, err)

    def _record(self, result: CycleResult, seconds: float) -> None:
        summary = result.to_json()
        for rejection in summary["rejections"]:
            key = (rejection.get("schedd"), rejection["job"])
            rejection["autocluster"] = self.offered.get(key)
        for match in summary["matches"]:
            match["autocluster"] = self.offered.get((match.get("schedd"), match["job"]))
        summary["duration"] = seconds
        self.cycles.append(summary)
        self.last_stats = {
            **result.stats.to_ad_attributes(),
            **rejection_attributes(result.rejections),
            "LastNegotiationCycleDuration0": round(seconds, 3),
            "LastNegotiationCycleEnd0": int(self.ctx.env.now),
        }
        self.log.info(
            "cycle: %d matches, %d rejections, %.3f s",
            len(result.matches),
            len(result.rejections),
            seconds,
        )

    # -- the accountant, for userprio ---------------------------------------------------
    def accountant_state(self) -> dict[str, Any]:
        return {
            "policy": asdict(self.policy),
            "version": self.version,
            "last_update": self.accountant.last_update,
            "customers": [c.as_dict() for c in self.accountant.customers.values()],
            "groups": self.store.group_figures(),
        }

    async def edit_accountant(
        self, version: int, changed: list[Any], deleted: list[Any]
    ) -> dict[str, Any]:
        """Records changed by ``fairpool userprio`` on a copy of version ``version``."""
        async with self.lock:
            if version != self.version:
                raise Conflict("the accountant changed meanwhile: run the command again")
            records = []
            for number, fields in enumerate(changed):
                if not isinstance(fields, dict):
                    raise BadRequest(f"changed[{number}]: expected a record")
                try:
                    records.append(Customer(**fields))
                except TypeError as err:
                    raise BadRequest(f"changed[{number}]: {err}") from None
            for record in records:
                self.accountant.customers[record.name] = record
                self.accountant.changed.add(record.name)
            for name in deleted:
                if isinstance(name, str) and name in self.accountant.customers:
                    self.accountant.delete(name)
            self.store.save(self.accountant)
            self.version += 1
        return {"version": self.version}

    async def edit_record(self, caller: Caller, edit: str, user: str, value: float = 0.0) -> None:
        """One of condor_userprio's edits of one record (``factor``, ``priority``,
        ``ceiling``, ``floor``, ``usage``, ``begin``, ``last``, ``reset``, ``delete``), as
        HTCondor's own clients send them: ADMINISTRATOR only (the pool's user or root),
        a full ``user@domain`` name, and a value condor_userprio would accept."""
        if not caller.administrator:
            raise Forbidden(f"{caller.name or 'a remote caller'} may not edit the accountant")
        if "@" not in user:
            raise BadRequest(f"{user!r}: expected a full user@domain submitter name")
        minimum = _EDIT_MINIMUM.get(edit)
        if minimum is not None and not (math.isfinite(value) and value >= minimum):
            raise BadRequest(f"{edit} of {user}: {value} is not a number of {minimum} or more")
        async with self.lock:
            accountant, now = self.accountant, self.ctx.env.now
            if edit == "reset":
                accountant.reset_usage(user, now)
            elif edit == "delete":
                if user in accountant.customers:
                    accountant.delete(user)
            elif edit in _EDITS:
                _EDITS[edit](accountant, user, value)
            else:
                raise BadRequest(f"unknown accountant edit {edit!r}")
            self.store.save(accountant)
            self.version += 1
        self.log.info("%s: %s of %s set to %s", caller.name, edit, user, value)

    async def edit_all(self, caller: Caller, edit: str) -> None:
        """An edit of every record (``reset``: condor_userprio -resetall)."""
        if not caller.administrator:
            raise Forbidden(f"{caller.name or 'a remote caller'} may not edit the accountant")
        if edit != "reset":
            raise BadRequest(f"unknown accountant edit {edit!r} of every record")
        async with self.lock:
            self.accountant.reset_all_usage(self.ctx.env.now)
            self.store.save(self.accountant)
            self.version += 1
        self.log.info("%s: the usage of every record reset", caller.name)

    async def resources_of(self, user: str) -> list[dict[str, Any]]:
        """The slots a submitter holds now (condor_userprio -getreslist): each slot's
        name and when its job started."""
        held = []
        for slot in await self._slots():
            if user in (slot.get("RemoteUser"), slot.get("AccountingGroup")):
                start = slot.get("JobStart", slot.get("EnteredCurrentActivity", 0))
                held.append({"Name": slot.get("Name"), "StartTime": start})
        return held

    # -- the collector ------------------------------------------------------------------
    def ad(self) -> ClassAd:
        return ClassAd(
            {
                "MyType": "Negotiator",
                "Name": self.negotiator_name,
                "Machine": self.ctx.host,
                **self.ctx.identity(),
                "ApiAddress": self.ctx.daemon_url(self.name),
                "DaemonStartTime": int(self.ctx.started),
                "MyCurrentTime": int(self.ctx.env.now),
                **self.last_stats,
            }
        )

    def accounting(self) -> list[ClassAd]:
        """The Accounting ads: each record with the last cycle's share and limit."""
        common = {
            "NegotiatorName": self.negotiator_name,
            "Machine": self.ctx.host,
            "MyCurrentTime": int(self.ctx.env.now),
        }
        last = self.cycles[-1] if self.cycles else {}
        return accounting_ads(list(self.accountant.customers.values()), last, common)

    async def advertise(self) -> None:
        accounting = self.accounting()
        names = {str(ad["Name"]) for ad in accounting}
        await self.ctx.collectors.update([ad_to_json(ad) for ad in (self.ad(), *accounting)])
        gone = sorted(self.accounted - names)
        if gone:
            await self.ctx.collectors.invalidate("Accounting", names=gone)
        self.accounted = names

    async def close(self) -> None:
        if self._next is not None:
            self._next.cancel()
        for task in list(self._tasks):
            task.cancel()
        for api in self._apis.values():
            await api.close()


def _log_path(ctx: Context) -> Path:
    """ACCOUNTANT_DATABASE_FILE, the accountant's log in HTCondor's format (by default
    ``Accountantnew.log`` in SPOOL, wherever the database is)."""
    if ctx.config.is_set("ACCOUNTANT_DATABASE_FILE"):
        return Path((ctx.config.get("ACCOUNTANT_DATABASE_FILE") or "").strip())
    return ctx.paths.spool / LOG_NAME
