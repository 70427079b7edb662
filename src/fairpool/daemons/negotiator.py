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
process keep answering; the accountant is changed only under the cycle's lock, and
saved in a worker thread too (a database across the network may be slow or gone).

With HAD in DAEMON_LIST the negotiator is one of a high-availability group (had.py):
it negotiates only while its central manager holds the lease; each cycle's save is
fenced by the lease and records the cycle's matches (store/match_records.py), and the
matches are sent only before the lease's local deadline.
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
from ..classad.unparse import quote_string
from ..classad.vector import SlotColumns
from ..config.knob_values import knob_error
from ..errors import StateError
from ..negotiator import CycleResult, PoolSnapshot, run_cycle, significant_of
from ..negotiator.configure import accountant_policy, negotiator_params
from ..negotiator.groups import group_assigner
from ..negotiator.results import rejection_attributes
from ..negotiator.submitters import Request, SubmitterQueue, served
from ..store.accountant_store import LOG_NAME, AccountantStore
from ..store.match_records import MatchRecord, finish_cycle, record_cycle
from .accounting_ads import accounting_ads
from .client import Api
from .context import Context, knob_float, knob_int
from .errors import BadRequest, Conflict, Forbidden, Unavailable
from .had import Had
from .had_config import had_settings
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
        self.had: Had | None = None
        if "HAD" in (name.upper() for name in ctx.config.get_list("DAEMON_LIST")):
            if not ctx.shared:
                raise knob_error(
                    ctx.config,
                    "DATABASE_URL",
                    "the database the central managers share (HAD is in DAEMON_LIST)",
                )
            port = int(ctx.url.rsplit(":", 1)[1])
            self.had = Had(ctx, self, had_settings(ctx.config, port), self.store.name)
        else:
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
        if self.had is not None and not self.had.may_start():
            return None  # standing by: becoming active plans the next cycle
        async with self.lock:
            started = time.monotonic()
            now = self.ctx.env.now
            self.last_start = now
            try:
                result = await self._negotiate(now)
            except (Unavailable, StateError) as err:
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

    async def significant(self) -> tuple[str, ...]:
        """The job attributes a cycle over the slots advertised now would tell apart."""
        return significant_of(await self._slots(), self.params, self.ctx.env.now)

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
        by_name = {ad.get("Name"): ad for ad in slots}
        recorded = await asyncio.to_thread(self._save_cycle, result, by_name, time.time())
        self.version += 1
        sent = await self._send(result, by_name)
        if recorded is not None and sent:
            self.spawn(asyncio.to_thread(self._finish, recorded, time.time()))
        self.offered = offered
        return result

    def _save_cycle(
        self, result: CycleResult, slots: dict[Any, ClassAd], started: float
    ) -> int | None:
        """The cycle's accounting, committed; with HAD, fenced by the lease and with the
        cycle's matches recorded (the record's id)."""
        groups = result.groups if self.params.groups.enabled else None
        if self.had is None:
            self.store.save(self.accountant, groups)
            return None
        had, term = self.had, self.had.term
        matches = [
            MatchRecord(
                str(m.slot),
                _claim_id(slots.get(m.slot)),
                str(m.job),
                str(m.schedd or ""),
                str(m.submitter),
            )
            for m in result.matches
        ]
        recorded: list[int] = []

        def fenced(conn) -> None:
            had.lease.fence(conn, term)
            group, me = had.lease.group, had.settings.me
            recorded.append(record_cycle(conn, group, me, term, started, matches, self.kept))

        self.store.save(self.accountant, groups, within=fenced)
        return recorded[0]

    def _finish(self, cycle: int, finished: float) -> None:
        try:
            finish_cycle(self.ctx.engine, cycle, finished, self.store.where)
        except StateError as err:
            self.log.info("cycle %d: its end not recorded: %s", cycle, err)

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

    async def _send(self, result: CycleResult, slots: dict[Any, ClassAd]) -> bool:
        """Each schedd its matches, with the slot's ClaimId and its startd's address
        (with HAD, only before the lease's deadline); whether all were sent."""
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
            if self.had is not None and not self.had.active():
                self.log.info("the lease ran out: %d matches not sent", len(result.matches))
                return False
            try:
                await self.api(schedd).post(
                    "/matches", {"matches": matches, "negotiator": self.negotiator_name}
                )
            except Unavailable as err:
                self.log.info("matches for %s not delivered: %s", schedd, err)
        return True

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
        self._must_be_active()
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
            self._must_be_active()
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
            await self._save_edits()
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
            self._must_be_active()
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
            await self._save_edits()
        self.log.info("%s: %s of %s set to %s", caller.name, edit, user, value)

    async def edit_all(self, caller: Caller, edit: str) -> None:
        """An edit of every record (``reset``: condor_userprio -resetall)."""
        if not caller.administrator:
            raise Forbidden(f"{caller.name or 'a remote caller'} may not edit the accountant")
        if edit != "reset":
            raise BadRequest(f"unknown accountant edit {edit!r} of every record")
        async with self.lock:
            self._must_be_active()
            self.accountant.reset_all_usage(self.ctx.env.now)
            await self._save_edits()
        self.log.info("%s: the usage of every record reset", caller.name)

    def _must_be_active(self) -> None:
        """A standby's accountant is not the pool's: its commands go to the active one."""
        if self.had is not None and not self.had.active():
            holder = self.had.holder or "none yet"
            raise Unavailable(
                f"this negotiator is standing by (HAD); the active central manager: {holder}"
            )

    async def _save_edits(self) -> None:
        """Save userprio's edits (with HAD, fenced by the lease, so that a holder whose
        lease ran out never overwrites its successor's accountant)."""
        had, within = self.had, None
        if had is not None:
            term = had.term
            within = lambda conn: had.lease.fence(conn, term)  # noqa: E731
        await asyncio.to_thread(self.store.save, self.accountant, None, None, within)
        self.version += 1

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
                **({"HadList": self.had.list_text} if self.had is not None else {}),
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
        """The Negotiator and Accounting ads (with HAD, the HAD ad, and the others only
        while active: a standby is no negotiator of the pool)."""
        ads = [self.had.ad()] if self.had is not None else []
        if self.had is not None and not self.had.active():
            await self.ctx.collectors.update([ad_to_json(ad) for ad in ads])
            return
        accounting = self.accounting()
        names = {str(ad["Name"]) for ad in accounting}
        ads += [self.ad(), *accounting]
        await self.ctx.collectors.update([ad_to_json(ad) for ad in ads])
        gone = sorted(self.accounted - names)
        if gone:
            await self.ctx.collectors.invalidate("Accounting", names=gone)
        self.accounted = names

    # -- high availability (had.py) -----------------------------------------------------
    async def reload(self) -> None:
        """The accountant as the database has it (the former active negotiator's last
        committed cycle), before this one's first cycle."""
        async with self.lock:
            self.accountant = await asyncio.to_thread(self._load)
            self.version += 1
            self.offered = {}

    def _load(self) -> Accountant:
        """The accountant from the database, and Accountantnew.log rewritten to match it
        (this central manager's copy missed what the other one committed)."""
        accountant = self.store.load(self.policy, group_assigner(self.params.groups))
        if self.store.log is not None:
            self.store.log.compact(accountant)
        return accountant

    def became_active(self) -> None:
        """A cycle at once; our ads, and no stale Negotiator ad of another member."""
        self.reschedule()
        self.spawn(self._replace_peers())

    def became_standby(self) -> None:
        """Our Negotiator ad withdrawn, the HAD ad saying so."""
        self.spawn(self._withdraw())

    async def _replace_peers(self) -> None:
        assert self.had is not None
        mine, address = quote_string(self.had.list_text), quote_string(self.ctx.address)
        await self._invalidate("Negotiator", f"HadList == {mine} && MyAddress != {address}")
        await self.advertise()

    async def _withdraw(self) -> None:
        await self._invalidate("Negotiator", f"MyAddress == {quote_string(self.ctx.address)}")
        await self.advertise()

    async def _invalidate(self, kind: str, constraint: str) -> None:
        await self.ctx.collectors.invalidate(kind, constraint=constraint)

    async def close(self) -> None:
        if self.had is not None:
            await self.had.close()
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


def _claim_id(slot: ClassAd | None) -> str | None:
    claim = slot.get("ClaimId") if slot is not None else None
    return claim if isinstance(claim, str) else None
