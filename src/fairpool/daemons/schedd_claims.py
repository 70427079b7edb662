"""The schedd's half of matchmaking: the resource requests it gives the negotiator, the
matches it takes back, and the claims that run its jobs (claim the slot from its
startd, activate the job, run more jobs on a partitionable slot's leftovers, release).

``Claiming`` is that part of ``Schedd`` (schedd.py); it works on the schedd's queue,
claims and counters, which schedd.py keeps and saves.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from ..classad import ClassAd
from ..classad.jsonads import ad_from_json, ad_to_json
from ..classad.match_memo import MatchMemo
from ..negotiator.concurrency import LimitConfig, LimitCounter, job_limits
from ..negotiator.submitters import job_id
from ..schedd import shadow
from ..schedd.claims import leftover_jobs
from .errors import BadRequest

__all__ = ["Claim", "Claiming"]


@dataclass
class Claim:
    """A slot the schedd holds: who it runs jobs for, and the job it runs now."""

    id: str
    slot: str
    startd: str  # the startd's API
    submitter: str
    slot_ad: ClassAd
    since: float
    job: str | None = None
    waiting: str | None = None  # a job waiting for the slot (a preempting claim)
    matches: MatchMemo = field(default_factory=MatchMemo)  # its next jobs' matches


class Claiming:
    """Requests, matches and claims, for ``Schedd``."""

    def requests(
        self,
        significant: list[str],
        submitters: set[str] | None = None,
        negotiator: str = "",
    ) -> dict[str, list[dict[str, Any]]]:
        """Resource requests for a negotiator: one per autocluster and submitter (of
        ``submitters``, the ones it serves, when it says), with its count of idle jobs, no
        more in all than MAX_JOBS_RUNNING leaves room for. Each negotiator's offers are
        kept apart, for its matches."""
        room = self.max_running - self._busy()
        offered = self.offered[negotiator] = {}
        out: dict[str, list[dict[str, Any]]] = {}
        for submitter, queue in self.index.requests(significant).items():
            if submitters is not None and submitter not in submitters:
                continue
            for request in queue.requests:
                if room <= 0:
                    return out
                job = request.jobs[0]
                count = min(request.count or 0, room)
                offered[job_id(job)] = (submitter, request.autocluster)
                job["AutoClusterId"] = request.autocluster
                out.setdefault(submitter, []).append(
                    {"autocluster": request.autocluster, "count": count, "job": ad_to_json(job)}
                )
        return out

    def _busy(self) -> int:
        return sum(self.queue.running.values()) + len(self.starting)

    def take_matches(self, matches: list[Any], negotiator: str = "") -> int:
        """The negotiator's matches: each claims its slot and starts a job of its
        autocluster (in the background); how many were taken."""
        taken = unused = 0
        for match in matches:
            if not isinstance(match, dict):
                raise BadRequest("each match must be a JSON object")
            if self._busy() >= self.max_running:
                unused += 1
                continue
            name = self._job_for(negotiator, match)
            if name is None:
                continue
            self.queue.reserve(name)
            self.starting.add(name)
            self.spawn(self._claim(name, match))
            taken += 1
        if unused:
            self.log.info(
                "MAX_JOBS_RUNNING (%d) reached: %d matches not used", self.max_running, unused
            )
        return taken

    def _job_for(self, negotiator: str, match: dict[str, Any]) -> str | None:
        negotiator = str(match.get("negotiator", negotiator) or "")
        offered = self.offered.get(negotiator, {}).get(str(match.get("job")))
        if offered is None:
            return None
        return self.index.pick(*offered)

    @property
    def contacts(self) -> asyncio.Semaphore:
        """MAX_PENDING_STARTD_CONTACTS: claims under way at once (a cycle may hand over
        thousands of matches)."""
        if self._contacts is None:
            self._contacts = asyncio.Semaphore(self.max_contacts)
        return self._contacts

    async def _claim(self, name: str, match: dict[str, Any]) -> None:
        async with self.contacts:
            await self._claim_now(name, match)

    async def _claim_now(self, name: str, match: dict[str, Any]) -> None:
        startd = str(match.get("startd"))
        job = self.queue.jobs.get(name)
        request = ad_to_json(job) if job is not None else {}
        if isinstance(match.get("submitter"), str):
            # the slot's AccountingGroup names whom the negotiator charges: the submitter
            # (group.user@domain, as the simulator's pool and HTCondor's slots have it),
            # not the job's AccountingGroup attribute, which lacks the domain
            request["AccountingGroup"] = match["submitter"]
        try:
            reply = await self.api(startd).post(
                "/claim",
                {
                    "slot": match.get("slot"),
                    "claim_id": match.get("claim_id"),
                    "preempting": bool(match.get("preempting")),
                    "schedd": self.url,
                    "request": request,
                },
            )
        except Exception as err:
            self.log.info("claiming %s for %s failed: %s", match.get("slot"), name, err)
            reply = {"accepted": False}
        if job is None or not reply.get("accepted") or name not in self.queue.jobs:
            self._not_starting(name)
            return
        claim = Claim(
            str(reply["claim"]),
            str(reply["slot"]),
            startd,
            str(match.get("submitter")),
            ad_from_json(reply.get("slot_ad", {})),
            self.ctx.env.now,
        )
        self.claims[claim.id] = claim
        self.claim_of[name] = claim.id
        if match.get("preempting"):
            claim.waiting = name  # until the startd says the slot is ours
            return
        await self._activate(claim, name)
        leftover = reply.get("leftover")
        if self.leftovers and isinstance(leftover, dict):
            await self._leftovers(claim.submitter, startd, leftover)

    async def _leftovers(self, submitter: str, startd: str, leftover: dict[str, Any]) -> None:
        """Run more of the submitter's jobs on what is left of a partitionable slot
        (jobs with concurrency limits wait for the negotiator, as in HTCondor)."""
        pslot = ad_from_json(leftover.get("slot_ad", {}))
        now = self.ctx.env.now
        free = LimitCounter(LimitConfig())
        for job in leftover_jobs(self.queue, submitter, pslot, free, now):
            if job_limits(job, pslot, now) or self._busy() >= self.max_running:
                continue
            name = job_id(job)
            self.queue.reserve(name)
            self.starting.add(name)
            match = {
                "slot": leftover.get("slot"),
                "claim_id": leftover.get("claim_id"),
                "startd": startd,
                "submitter": submitter,
                "preempting": False,
            }
            await self._claim_now(name, match)  # within its caller's contact
            return  # the claim's reply brings the next leftover, if any

    async def _activate(self, claim: Claim, name: str) -> None:
        """Start ``name`` under ``claim``. The run is recorded (Running, the execute
        event, saved) before the startd is asked, so that a crash in between leaves a
        job that may have run recorded as running: the next start says it was evicted,
        never that it did not run."""
        job = self.queue.jobs.get(name)
        if job is None:
            self._not_starting(name)
            await self._release(claim)
            return
        claim.job = name
        self.claim_of[name] = claim.id
        sent = job.copy()  # as it stands before this run (its starts not yet counted)
        saved = self._started(name, claim)
        if saved is not None:
            await saved  # on disk before the job can run
        startd = self.ctx.in_process(claim.startd, "startd")
        try:
            if startd is not None:
                reply = await startd.activate(claim.id, sent)
            else:
                reply = await self.api(claim.startd).post(
                    "/activate", {"claim": claim.id, "job": ad_to_json(sent)}
                )
        except Exception as err:
            reply = {"accepted": False, "reason": str(err)}
        if reply.get("accepted") or name not in self.queue.jobs or claim.job != name:
            return  # running; or removed, held or ended meanwhile
        await self._refused(claim, name, reply)

    async def _refused(self, claim: Claim, name: str, reply: dict[str, Any]) -> None:
        """The startd would not run the job: held when its starter said why (a missing
        executable...), else back to idle."""
        now = self.ctx.env.now
        job = self.queue.jobs[name]
        claim.job = None
        self.claim_of.pop(name, None)
        hold = reply.get("hold")
        if isinstance(hold, dict):  # the held event says why (after the execute event)
            shadow.run_ended(job, {}, claim.slot_ad, now)
            self.queue.vacate(name, now)
            code, subcode = int(hold.get("code", 0)), int(hold.get("subcode", 0))
            self._hold(name, str(hold.get("reason")), code, subcode, now)
        else:  # the execute event was written: the log says the run ended
            reason = f"the startd refused the job: {reply.get('reason')}"
            self._log(job, shadow.vacated(job, {}, claim.slot_ad, now, reason), now)
            self.queue.vacate(name, now)
        self.dirty.add(name)
        self._save()
        await self._release(claim)

    def _started(self, name: str, claim: Claim) -> asyncio.Future[None] | None:
        """The run recorded: Running, the execute event; its save, to await."""
        self.starting.discard(name)
        now = self.ctx.env.now
        job = self.queue.begin(name, claim.slot, now)
        self.counts["JobsStarted"] += 1
        address = f"<{claim.startd.split('://')[-1].split('/')[0]}>"
        self._log(job, shadow.started(job, claim.slot, address, now), now)
        self.dirty.add(name)
        self._advertise_soon()
        return self._save()

    def _not_starting(self, name: str) -> None:
        self.starting.discard(name)
        self.claim_of.pop(name, None)
        if name in self.queue.jobs:
            self.queue.unreserve(name)

    async def _release(self, claim: Claim) -> None:
        self.claims.pop(claim.id, None)
        try:
            await self.api(claim.startd).post("/release", {"claim": claim.id})
        except Exception as err:
            self.log.info("releasing %s failed: %s", claim.slot, err)
