"""The startd: one machine's slots, its policy, and the starters that run its jobs.

The slots come from the configuration (startd/layout.py: NUM_CPUS, MEMORY, SLOT_TYPE_<N>
...; cores and memory detected from the machine when unset), the policy from its knobs
over current HTCondor's defaults (START, SUSPEND, CONTINUE, PREEMPT, KILL, RANK,
WANT_SUSPEND, WANT_VACATE, MaxJobRetirementTime, CLAIM_WORKLIFE...). The machine runs
through an ``ExecuteNode`` (startd/node.py), the same as a simulated machine: this
daemon is its starter (real processes, fairpool.starter) and its messenger.

* Each slot has a private ``ClaimId`` that only the negotiator sees (through the
  collector); a schedd's claim must present the one its match carried, and the claim
  then gets a ClaimId of its own for activating, releasing, and the startd's reports.
* A claim on a partitionable slot carves a dynamic slot; the reply hands the schedd
  what is left of the partitionable slot, with a fresh ClaimId, so that it can start
  more jobs there (``CLAIM_PARTITIONABLE_LEFTOVERS``).
* Its starter is a process of its own (fairpool.starter.service, started at the first
  job), so that the jobs' processes are made, watched and cleaned up beside the daemons'
  work rather than in turn with it. The startd's decisions are carried out there on the
  job's process group: suspend (SIGSTOP), continue (SIGCONT), soft kill (the job's
  KillSig, SIGTERM by default) and, once ``MaxVacateTime`` is over, hard kill (SIGKILL).
  A job's activation is answered once the starter has started it, or said why not; the
  job's schedd hears of each step after.
* The slot ads go to the collector at every change (a moment later, together) and every
  ``UPDATE_INTERVAL``.
* The starter records each job it starts in ``SPOOL/starters`` (starter/records.py): a
  startd starting after a crash kills the jobs its last run left behind (their schedd
  puts them back to idle). Should the starter process die, its jobs are killed the same
  way and their schedds told they were vacated; the next job starts another.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import secrets
from dataclasses import dataclass, field
from typing import Any

import psutil

from ..classad import ClassAd, Expr
from ..classad.adtext import OldText
from ..classad.jsonads import ad_to_json
from ..errors import ClassAdSyntaxError, FairpoolError
from ..startd import MODERN, Activity, Change, Startd, StartdPolicy, State
from ..startd.layout import machine_ads
from ..startd.node import (
    CLAIM_LOST,
    CLAIM_READY,
    EXITED,
    VACATED,
    ExecuteNode,
    NodeEvent,
)
from ..starter import StartError, kill_leftover, remove_stale_sandboxes
from ..starter.messages import Exited, Refused, Start, Started
from ..starter.records import read_records
from .client import Api
from .context import Context, filesystem_domain, knob_float
from .errors import BadRequest, Forbidden, NotFound
from .gpus import GpuMonitor, discover, resource_environment, with_gpus
from .measures import MachineMeasures
from .starter_link import StarterLink

__all__ = ["StartdDaemon"]

_UPDATE_DELAY = 0.2  # seconds: changes close together go to the collector in one update


@dataclass
class _Claim:
    slot: str
    schedd: str  # the schedd's API, which hears of the claim's jobs
    job: str | None = None  # the job running under it


@dataclass
class _Run:
    number: int  # the starter's messages name it
    job: str
    claim: str
    started: asyncio.Future[Started | Refused]
    pid: int = 0  # once started (the machine's measures read the jobs' processes)
    exit: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, float] = field(default_factory=dict)
    hold: dict[str, Any] | None = None


class StartdDaemon:
    """One execute node."""

    name = "startd"

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.log = ctx.logger(self.name)
        self.claims: dict[str, _Claim] = {}  # ClaimId -> claim
        self.pending: dict[str, str] = {}  # slot -> ClaimId of a preempting claim waiting
        self.runs: dict[str, _Run] = {}  # slot -> its starter
        self.secret: dict[str, str] = {}  # slot -> the ClaimId a match must bring
        self.published: set[str] = set()
        self.refusals: dict[str, StartError] = {}  # slot -> why its job cannot start
        self._apis: dict[str, Api] = {}
        self._tasks: set[asyncio.Task] = set()
        self._update_due = False
        self._activating = ""  # the claim whose job the node is starting
        self._numbers = itertools.count(1)  # of runs
        self._job_text = OldText()  # the ads a start writes into the sandbox (adtext.py)
        self._slot_texts: dict[str, OldText] = {}
        self._claims_unsure = True  # a claim may have ended (see _forget_ended_claims)
        self._slot_count = 0
        self._wake = None
        self.records = ctx.paths.spool / "starters"  # the starter's record of its jobs
        self._clean_up_after_crash()
        self.starter = StarterLink(
            ctx.paths.execute,
            self.records,
            self._heard_from_starter,
            self._starter_lost,
            self.log.gathered,
        )
        now = int(ctx.env.now)
        self.policy = StartdPolicy.from_knobs(ctx.config, profile=MODERN)
        detected = {  # the machine's own, for NUM_CPUS and MEMORY left unset
            "DETECTED_CPUS": str(os.cpu_count() or 1),
            "DETECTED_MEMORY": str(psutil.virtual_memory().total // (1024 * 1024)),
        }
        self.gpus = discover(ctx.config, self.log)
        ads = machine_ads(with_gpus(ctx.config, self.gpus), detected)
        self.gpu_monitor: GpuMonitor | None = None
        jobs = {name.upper() for name in ctx.config.get_list("STARTD_CRON_JOBLIST")}
        if self.gpus is not None and "GPUS_MONITOR" in jobs:
            self.gpu_monitor = GpuMonitor(self.gpus, ctx.started or ctx.env.now)
        for ad in ads:  # the domains the schedds' jobs compare with theirs
            ad["FileSystemDomain"] = filesystem_domain(ctx)
            ad["UidDomain"] = (ctx.config.get("UID_DOMAIN") or "").strip() or ctx.host
        measures = MachineMeasures(lambda: [r.pid for r in self.runs.values() if r.pid])
        self.node = ExecuteNode(Startd(self.policy, ads, measures, start=now), self, self._changed)
        self.node.advance(now)
        self._after()
        ctx.env.process(self._updating())
        if self.gpu_monitor is not None:
            ctx.env.process(self._monitoring())

    @property
    def startd(self) -> Startd:
        return self.node.startd

    @property
    def url(self) -> str:
        return self.ctx.daemon_url(self.name)

    def api(self, url: str) -> Api:
        if url not in self._apis:
            self._apis[url] = Api(url)
        return self._apis[url]

    def spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def reconfig(self) -> None:
        """Policy knobs are read again (slot layout changes need a restart, as in HTCondor)."""
        self.policy = StartdPolicy.from_knobs(self.ctx.config, profile=MODERN)
        self.startd.policy = self.policy
        for slot in self.startd.slots.values():
            for attribute, expr in self.policy.expressions.items():
                slot.ad[attribute] = expr
            self.startd.publish_requirements(slot)
        self._after()

    # -- the starter (the node calls these) ---------------------------------------------
    def start(self, slot: str, job: ClassAd) -> None:
        """Hand the job to the starter process; ``activate`` awaits its answer. A job
        whose ad cannot run anywhere is refused here (StartError, a hold), and so is any
        job while no starter process can be made (FairpoolError: back to idle)."""
        machine = self.startd.slots[slot].ad
        try:
            message = Start.of(
                job,
                slot=slot,
                machine_ad=machine,
                assigned=resource_environment(self.ctx.config, machine),
                run=next(self._numbers),
                job_text=self._job_text,
                machine_text=self._slot_text(slot),
            )
        except StartError as err:
            self.refusals[slot] = err
            raise
        try:
            self.starter.start(message)
        except OSError as err:
            raise FairpoolError(f"the starter process could not be started: {err}") from None
        claim = self._activating
        started = asyncio.get_running_loop().create_future()
        self.runs[slot] = _Run(message.run, message.job, claim, started)
        self.claims[claim].job = message.job

    def _slot_text(self, slot: str) -> OldText:
        """The writer of the slot's ad for its starts (made at its first)."""
        text = self._slot_texts.get(slot)
        if text is None:
            text = self._slot_texts[slot] = OldText()
        return text

    def signal(self, slot: str, action: str) -> bool:
        run = self.runs.get(slot)
        if run is None:
            return False
        self.starter.signal(slot, action)
        self.log.info("%s: %s job %s", slot, action, run.job)
        return False

    def _heard_from_starter(self, message: Started | Refused | Exited) -> None:
        run = self.runs.get(message.slot)
        if run is None or run.number != message.run:  # a run the startd has let go of
            return
        if isinstance(message, Exited):
            self._exited(message.slot, run, message)
        elif not run.started.done():
            if isinstance(message, Started):
                run.pid = message.pid
                self.log.info("starting job %s on %s (pid %d)", run.job, message.slot, run.pid)
            run.started.set_result(message)

    def _exited(self, slot: str, run: _Run, message: Exited) -> None:
        """The job's process is gone and its sandbox cleaned up: the startd told."""
        run.exit, run.usage = message.exit, message.usage
        if message.hold is not None:
            reason, code, subcode = message.hold
            run.hold = {"reason": reason, "code": code, "subcode": subcode}
        self.log.info("job %s on %s exited: %s", run.job, slot, run.exit)
        self.node.exited(int(self.ctx.env.now), slot)
        self._after()

    def _starter_lost(self) -> None:
        """The starter process died: what it ran is killed (by its records), each job
        reported vacated, and the next start begins another starter."""
        self.log.error("the starter process ended; its jobs are killed and go back to idle")
        self._clean_up_after_crash()
        now = int(self.ctx.env.now)
        for slot, run in list(self.runs.items()):
            if not run.started.done():
                run.started.set_result(Refused(slot, run.number, "the starter process ended"))
            else:
                self.node.lost(now, slot)
        self._after()

    # -- the schedd's requests ----------------------------------------------------------
    def claim(
        self, slot: str, claim_id: str, request: ClassAd, preempting: bool, schedd: str
    ) -> dict[str, Any]:
        if slot not in self.startd.slots:
            raise NotFound(f"no slot {slot} here")
        if not claim_id or claim_id != self.secret.get(slot):
            raise Forbidden(f"the claim id for {slot} is not the one the negotiator gave")
        request["ScheddApiAddress"] = schedd
        reply = self.node.claim(int(self.ctx.env.now), slot, request, preempting)
        answer: dict[str, Any] = {"accepted": reply.accepted, "reason": reply.reason}
        if reply.accepted and reply.slot is not None:
            new_id = self._new_claim_id()
            self.claims[new_id] = _Claim(reply.slot, schedd)
            if preempting:
                self.pending[reply.slot] = new_id
            answer.update(
                {
                    "claim": new_id,
                    "slot": reply.slot,
                    "slot_ad": ad_to_json(self.startd.slots[reply.slot].ad),
                }
            )
            self.secret[slot] = self._new_claim_id()  # a match is good for one claim
            leftover = self._leftover(slot, reply.slot)
            if leftover is not None:
                answer["leftover"] = leftover
        self._after()
        return answer

    def _leftover(self, matched: str, claimed: str) -> dict[str, Any] | None:
        """What is left of a partitionable slot, for the schedd to claim more of."""
        if matched == claimed:
            return None
        pslot = self.startd.slots.get(matched)
        cpus = pslot.ad.get("Cpus") if pslot is not None else None
        if pslot is None or type(cpus) not in (int, float) or cpus <= 0:
            return None
        return {"slot": matched, "claim_id": self.secret[matched], "slot_ad": ad_to_json(pslot.ad)}

    async def activate(self, claim_id: str, job: ClassAd) -> dict[str, Any]:
        """Start the job under the claim; answered once it runs, or with why not (a
        ``hold`` when the starter says the job cannot start, as for a missing
        executable)."""
        claim = self._known(claim_id)
        if claim.job is not None:
            raise BadRequest(f"a job already runs under this claim on {claim.slot}")
        slot = claim.slot
        self._activating = claim_id
        reply = self.node.activate(int(self.ctx.env.now), slot, job)
        answer: dict[str, Any] = {"accepted": reply.accepted, "reason": reply.reason}
        refusal = self.refusals.pop(slot, None)
        if refusal is not None:
            answer["hold"] = _hold(refusal.reason, refusal.code, refusal.subcode)
        run = self.runs.get(slot) if reply.accepted else None
        self._after()
        if run is None:
            return answer
        started = await run.started
        if isinstance(started, Refused):
            answer = {"accepted": False, "reason": started.reason}
            if started.hold is not None:
                answer["hold"] = _hold(*started.hold)
            if self.runs.get(slot) is run:
                del self.runs[slot]
                claim.job = None
                self.node.refused(int(self.ctx.env.now), slot)
                self._after()
        return answer

    def release(self, claim_id: str) -> dict[str, Any]:
        claim = self.claims.pop(claim_id, None)
        if claim is None:
            return {"released": False}
        target = self.startd.slots.get(claim.slot)
        if target is not None and target.state is State.CLAIMED:
            self.node.release(int(self.ctx.env.now), claim.slot)
        self._after()
        return {"released": True}

    def drain(
        self, how: str, start: str | None, check: str | None, reason: str, resume: bool = False
    ) -> dict:
        """condor_drain: graceful, quick or fast; ``start`` while draining; ``check``;
        ``resume``: back to accepting jobs once drained (-resume-on-completion)."""
        now = int(self.ctx.env.now)
        reply = self.startd.drain(
            now,
            how,
            resume=resume,
            start=_expr(start, "start"),
            check=_expr(check, "check"),
            reason=reason,
        )
        self.node.settle(now)
        self._after()
        if not reply.accepted:
            raise BadRequest(reply.reason)
        return {"accepted": True, "request_id": self.startd.draining.request_id}

    def cancel_drain(self, request_id: str | None) -> dict[str, Any]:
        now = int(self.ctx.env.now)
        reply = self.startd.cancel_drain(now, request_id)
        self.node.settle(now)
        self._after()
        if not reply.accepted:
            raise BadRequest(reply.reason)
        return {"accepted": True}

    def _known(self, claim_id: str) -> _Claim:
        claim = self.claims.get(claim_id)
        if claim is None:
            raise NotFound("no such claim here (it ended, or never was)")
        return claim

    @staticmethod
    def _new_claim_id() -> str:
        return secrets.token_urlsafe(24)

    # -- after every step: reports, timers, ads -----------------------------------------
    def _after(self) -> None:
        for event in self.node.take_events():
            self._report(event)
        self._forget_ended_claims()
        self._rearm()
        self._update_soon()

    def _report(self, event: NodeEvent) -> None:
        """Tell the job's schedd what the node reported."""
        name = f"{event.job.get('ClusterId')}.{event.job.get('ProcId')}"
        body: dict[str, Any] = {"kind": event.kind, "job": name}
        if event.kind in (CLAIM_READY, CLAIM_LOST):
            claim_id = self.pending.pop(event.slot, None)
            self._claims_unsure = True
        elif event.kind in (EXITED, VACATED):
            run = self.runs.pop(event.slot, None)
            target = self.startd.slots.get(event.slot)
            # a claim of a slot that left Claimed ends with its run (a job's exit on a
            # slot still Claimed ends none: the usual case, which needs no look)
            if target is None or target.state is not State.CLAIMED:
                self._claims_unsure = True
            claim_id = run.claim if run is not None else None
            if run is not None:
                body.update({"usage": run.usage, "exit": run.exit})
                if run.hold is not None:
                    body["hold"] = run.hold
            # whether the claim can run another job (not when CLAIM_WORKLIFE is over)
            body["reusable"] = target is not None and target.pair == (State.CLAIMED, Activity.IDLE)
        else:  # suspended, resumed
            run = self.runs.get(event.slot)
            claim_id = run.claim if run is not None else None
        claim = self.claims.get(claim_id or "")
        if claim_id is None or claim is None:
            return
        body["claim"] = claim_id
        if event.kind in (EXITED, VACATED):
            claim.job = None
        if event.kind in (VACATED, CLAIM_LOST):
            del self.claims[claim_id]  # the slot has left this claim
        self.spawn(self._tell(claim.schedd, body))

    async def _tell(self, schedd: str, event: dict[str, Any]) -> None:
        local = self.ctx.in_process(schedd, "schedd")
        for attempt in range(10):
            try:
                if local is not None:
                    await local.heard([event])
                else:
                    await self.api(schedd).post("/events", {"events": [event]})
                return
            except Exception as err:
                self.log.info("telling %s of %s failed (%s); trying again", schedd, event, err)
                await asyncio.sleep(min(30.0, 0.5 * 2**attempt))

    def _forget_ended_claims(self) -> None:
        """Claims whose slot has left them (vacated, worklife over, machine owner). Only
        after a slot left Claimed or went away, a run ended or a preempting claim stopped
        waiting: a job's start and exit (Claimed/Idle <-> Claimed/Busy) end no claim."""
        if not self._claims_unsure and len(self.startd.slots) == self._slot_count:
            return
        self._claims_unsure, self._slot_count = False, len(self.startd.slots)
        for claim_id, claim in list(self.claims.items()):
            target = self.startd.slots.get(claim.slot)
            waiting = self.pending.get(claim.slot) == claim_id
            ended = target is None or (target.state is not State.CLAIMED and not waiting)
            if ended and claim.slot not in self.runs:
                del self.claims[claim_id]

    def _rearm(self) -> None:
        when = self.startd.next_moment()
        if self._wake is not None:
            if self._wake.time == when and not self._wake.cancelled:
                return
            self._wake.cancel()
        self._wake = self.ctx.env.at(when, self._tick)

    def _tick(self) -> None:
        self._wake = None
        self.node.advance(int(self.ctx.env.now))
        self._after()

    def _changed(self, change: Change) -> None:
        if change.target[0] is not State.CLAIMED:
            self._claims_unsure = True
        self.log.info(
            "%s: %s/%s -> %s/%s (%s, %s)",
            change.slot,
            *change.source,
            *change.target,
            change.number,
            change.cause,
        )

    # -- the collector ------------------------------------------------------------------
    def ads(self) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The slot ads and each one's private ClaimId."""
        now = int(self.ctx.env.now)
        common = {  # the same in every slot's ad (the duty cycle reads this process's CPU)
            "ApiAddress": self.url,
            **self.ctx.identity(),
            "StartdIpAddr": self.ctx.address,
            "LastHeardFrom": now,
            "MyCurrentTime": now,
            "DaemonStartTime": int(self.ctx.started),
        }
        ads, private = [], {}
        for name, slot in self.startd.slots.items():
            if name not in self.secret:
                self.secret[name] = self._new_claim_id()
            ad = ad_to_json(slot.ad)
            ad.update(common)
            if self.gpu_monitor is not None:
                ad.update(self.gpu_monitor.figures(slot.ad.get("AssignedGPUs"), self.ctx.env.now))
            ads.append(ad)
            private[name] = {"ClaimId": self.secret[name]}
        for name in [n for n in self.secret if n not in self.startd.slots]:
            del self.secret[name]
        for name in [n for n in self._slot_texts if n not in self.startd.slots]:
            del self._slot_texts[name]
        return ads, private

    def _update_soon(self) -> None:
        if not self._update_due:
            self._update_due = True
            self.ctx.env.schedule(_UPDATE_DELAY, lambda: self.spawn(self.advertise()))

    async def advertise(self) -> None:
        self._update_due = False
        ads, private = self.ads()
        names = {ad["Name"] for ad in ads}
        gone = sorted(self.published - names)
        if gone:
            await self.ctx.collectors.invalidate("Machine", names=gone)
        await self.ctx.collectors.update(ads, private)
        self.published = names

    def _monitoring(self):
        """The GPUs' utilisation and memory, every STARTD_CRON_GPUs_MONITOR_PERIOD."""
        period = knob_float(self.ctx.config, "STARTD_CRON_GPUs_MONITOR_PERIOD", 300.0, 0.001)
        assert self.gpu_monitor is not None
        while True:
            yield period
            self.gpu_monitor.poll(self.ctx.env.now)

    def _updating(self):
        while True:
            yield float(self.policy.update_interval)
            self.spawn(self.advertise())

    # -- start and stop -----------------------------------------------------------------
    def _clean_up_after_crash(self) -> None:
        """Kill the jobs a starter that ended left running (by its records), and remove
        their sandboxes and its spares."""
        for record in read_records(self.records, remove=True):
            if kill_leftover(record.pid, record.create_time):
                self.log.info("killed job %s (pid %d) left by the last run", record.job, record.pid)
        for path in remove_stale_sandboxes(self.ctx.paths.execute):
            self.log.info("removed %s, left by the last run", path)

    async def close(self) -> None:
        """The pool stops: jobs are killed (their schedd finds them idle when it starts
        again), and the slot ads withdrawn."""
        await self.starter.stop()
        for slot, run in self.runs.items():  # activations still waiting: refused
            if not run.started.done():
                run.started.set_result(Refused(slot, run.number, "the startd stops"))
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(Exception):
            names = sorted(self.published)
            if names:
                await self.ctx.collectors.invalidate("Machine", names=names)
        for api in self._apis.values():
            await api.close()


def _hold(reason: str, code: int, subcode: int) -> dict[str, Any]:
    return {"reason": reason, "code": code, "subcode": subcode}


def _expr(text: str | None, what: str) -> Expr | None:
    if text is None or not text.strip():
        return None
    try:
        return Expr(text)
    except ClassAdSyntaxError as err:
        raise BadRequest(f"{what}: {err.message}") from None
