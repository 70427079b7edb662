"""The schedd: the job queue of one submit host, and the claims that run its jobs.

It keeps the queue (schedd/queue.py) in memory and in the pool's database
(store/jobs.py), its idle jobs in autoclusters (schedd/autoclusters.py), and for each
job its user log (schedd/userlog.py). It carries a job through its life:

* **submit**: a whole submission (the clusters and jobs ``fairpool submit`` made of a
  submit file) is numbered and written in one transaction, then the negotiator is asked
  to run a cycle soon (as condor_submit's reschedule does);
* **negotiation**: the negotiator asks for resource requests (one per autocluster and
  submitter, with a count) and sends back matches; for each match the schedd takes the
  autocluster's first idle job, claims the slot from its startd and activates the job
  there; a match on a partitionable slot may run more of the submitter's jobs on what
  is left (``CLAIM_PARTITIONABLE_LEFTOVERS``);
* **runs**: the startd reports what happened to the job (exited, vacated, suspended,
  resumed; a preempting claim ready or lost) and the shadow's rules (schedd/shadow.py)
  set the job's attributes and write its user-log event; a completed job's claim runs
  the submitter's next matching job (claim reuse) until the startd ends it;
* **commands**: remove, hold, release, qedit, queries of the queue and history.

``MAX_JOBS_RUNNING`` caps the jobs running and starting at once. After a crash, the
jobs the database shows running are put back to idle and their user logs say they were
evicted (their runs died with the pool's startd, which kills what its last run left).

Its parts elsewhere: a submission's clusters (submission.py), the requests, matches and
claims (schedd_claims.py, the ``Claiming`` half of ``Schedd``), its ads (schedd_ads.py).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from ..classad import ClassAd, Expr
from ..classad.ad import node_of
from ..classad.jsonads import ad_to_json
from ..classad.match import evaluate, satisfied
from ..classad.unparse import unparse
from ..negotiator.submitters import job_id
from ..schedd import shadow
from ..schedd.autoclusters import AutoclusterIndex
from ..schedd.claims import next_job
from ..schedd.queue import (
    COMPLETED,
    HELD,
    REMOVED,
    RUNNING,
    SUSPENDED,
    TRANSFERRING_OUTPUT,
    JobQueue,
)
from ..schedd.userlog import (
    Aborted,
    Held,
    LogFormat,
    Released,
    Submitted,
    Suspended,
    Unsuspended,
    UserLogError,
    UserLogEvent,
    job_log_path,
    write_job_event,
)
from ..store.group_commit import GroupCommit, Write
from ..store.jobs import JobStore
from .client import Api
from .context import Context, configured_name, filesystem_domain, knob_int
from .errors import BadRequest, Conflict, Forbidden, NotFound, Unavailable
from .identity import Caller
from .schedd_ads import schedd_ads
from .schedd_claims import Claim, Claiming
from .submission import cluster_of

__all__ = ["Schedd"]

HELD_BY_USER, PERIODIC_HOLD = 1, 3  # HoldReasonCode (JobHeldByUser, a job policy expression)
_ACTIVE = (RUNNING, SUSPENDED, TRANSFERRING_OUTPUT)
_ADVERTISE_DELAY = 0.2  # seconds: changes close together go to the collector in one update
_COUNTED = ("JobsSubmitted", "JobsStarted", "JobsExited", "JobsCompleted")
# qedit may not change these (HTCondor's protected and immutable job attributes)
_PROTECTED = frozenset(
    n.lower()
    for n in (
        "ClusterId",
        "ProcId",
        "Owner",
        "User",
        "JobStatus",
        "MyType",
        "TargetType",
        "GlobalJobId",
        "QDate",
        "NumJobStarts",
        "RemoteHost",
    )
)


class Schedd(Claiming):
    """One submit host's job queue."""

    name = "schedd"

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.log = ctx.logger(self.name)
        self.reconfig()
        self.store = JobStore(ctx.engine, ctx.owner(self.schedd_name))
        stored = self.store.load()
        self.next_cluster = stored.next_cluster
        self.clusters: dict[int, ClassAd] = stored.clusters
        self.index = AutoclusterIndex()
        self.queue = JobQueue(self.domain, self.index)
        self.queue.add(stored.jobs)
        self.per_cluster: Counter[int] = Counter(j["ClusterId"] for j in stored.jobs)
        self.claims: dict[str, Claim] = {}
        self.claim_of: dict[str, str] = {}  # job -> the claim running or starting it
        self.starting: set[str] = set()  # jobs being claimed and activated
        # negotiator -> request's job -> (submitter, autocluster)
        self.offered: dict[str, dict[str, tuple[str, int]]] = {}
        self.dirty: set[str] = set()
        self.advertised: set[str] = set()  # submitters with an ad in the collector
        self._advertised_at = -float("inf")
        self._advert_due = False
        # JobsSubmitted, JobsStarted, JobsExited, JobsCompleted since the schedd started,
        # as HTCondor's schedd statistics count them (counters for monitoring)
        self.counts: Counter[str] = Counter()
        self._apis: dict[str, Api] = {}
        self._tasks: set[asyncio.Task] = set()
        self.writer = GroupCommit(ctx.engine, self._write_failed)
        self._recover()
        ctx.env.process(self._advertising())
        ctx.env.process(self._periodic())

    def reconfig(self) -> None:
        config = self.ctx.config
        self.domain = (config.get("UID_DOMAIN") or "").strip() or self.ctx.host
        # a master of its own name names its schedd (HTCondor: MASTER_NAME wins)
        named = "MASTER_NAME" if (config.get("MASTER_NAME") or "").strip() else "SCHEDD_NAME"
        self.schedd_name = configured_name(self.ctx, named)
        self.max_running = knob_int(config, "MAX_JOBS_RUNNING", 10_000)
        self.max_per_submission = knob_int(config, "MAX_JOBS_PER_SUBMISSION", 20_000, minimum=1)
        self.interval = knob_int(config, "SCHEDD_INTERVAL", 300, minimum=1)
        self.periodic_interval = knob_int(config, "PERIODIC_EXPR_INTERVAL", 60, minimum=1)
        self.min_interval = knob_int(config, "SCHEDD_MIN_INTERVAL", 5, minimum=0)
        leftovers = config.get_bool("CLAIM_PARTITIONABLE_LEFTOVERS", True)
        self.leftovers = True if leftovers is None else leftovers
        self.log_format = LogFormat.parse(config.get("DEFAULT_USERLOG_FORMAT_OPTIONS"))
        self.max_contacts = knob_int(config, "MAX_PENDING_STARTD_CONTACTS", 64, minimum=1)
        self._contacts: asyncio.Semaphore | None = None

    @property
    def url(self) -> str:
        return self.ctx.daemon_url(self.name)

    def api(self, url: str) -> Api:
        if url not in self._apis:
            self._apis[url] = Api(url)
        return self._apis[url]

    def spawn(self, work: Any) -> None:
        """Run a coroutine in the background, keeping it until it ends."""
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.log.error("background work failed: %r", task.exception())

    # -- submitting ---------------------------------------------------------------------
    def submit(self, caller: Caller, first: int, clusters: list[Any]) -> dict[str, Any]:
        """Queue a whole submission: ``clusters`` of JSON cluster ads and their jobs'
        own attributes, numbered from ``first`` (the number ``submit_info`` gave; a
        submission made against an older number is refused, to be made again)."""
        if caller.name is None:
            raise Forbidden("an unauthenticated caller cannot submit: present a token")
        if first != self.next_cluster:
            raise Conflict(f"cluster {first} is taken: the next cluster is {self.next_cluster}")
        if not clusters:
            raise BadRequest("clusters: expected at least one cluster")
        total = sum(len(c.get("procs", ())) for c in clusters if isinstance(c, dict))
        if total > self.max_per_submission:
            raise BadRequest(
                f"{total} jobs in one submission: more than MAX_JOBS_PER_SUBMISSION"
                f" ({self.max_per_submission})"
            )
        now = self.ctx.env.now
        made = [
            cluster_of(given, first + n, caller, now, self.domain, self.schedd_name)
            for n, given in enumerate(clusters)
        ]
        self.store.submit([(c, rows) for c, _, rows in made], first + len(made))
        self.next_cluster = first + len(made)
        self.counts["JobsSubmitted"] += sum(len(procs) for _, procs, _ in made)
        for cluster_ad, procs, _ in made:
            self.clusters[cluster_ad["ClusterId"]] = cluster_ad
            self.per_cluster[cluster_ad["ClusterId"]] = len(procs)
            self.queue.add(procs)
            self._log_all(procs, Submitted(self.ctx.address), now)
        self.spawn(self.reschedule())
        total = sum(len(p) for _, p, _ in made)
        self.log.info(
            "%s submitted %d jobs to clusters %d-%d",
            caller.name,
            total,
            first,
            first + len(made) - 1,
        )
        return {"clusters": [c["ClusterId"] for c, _, _ in made], "jobs": total}

    def submit_info(self, caller: Caller) -> dict[str, Any]:
        return {
            "next_cluster": self.next_cluster,
            "owner": caller.name,
            "uid_domain": self.domain,
            "filesystem_domain": filesystem_domain(self.ctx),
            "max_jobs_per_submission": self.max_per_submission,
            "schedd": self.schedd_name,
        }

    # -- queries and commands -----------------------------------------------------------
    def jobs(self, constraint: Expr | None) -> list[ClassAd]:
        now = self.ctx.env.now
        return [
            job
            for job in self.queue.jobs.values()
            if constraint is None or satisfied(evaluate(constraint, job, now=now))
        ]

    def select(
        self, ids: list[str] | None, owner: str | None, constraint: Expr | None
    ) -> tuple[list[str], list[str]]:
        """The jobs a command names (by id or cluster, owner or constraint), and the ids
        it named that are not in the queue."""
        if ids is not None:
            chosen, missing = [], []
            for text in ids:
                found = self._by_id(text)
                (chosen.extend(found) if found else missing.append(text))
            return chosen, missing
        if owner is not None:
            return [n for n, j in self.queue.jobs.items() if j.get("Owner") == owner], []
        if constraint is not None:
            return [job_id(j) for j in self.jobs(constraint)], []
        raise BadRequest("name jobs by id, owner or constraint")

    def _by_id(self, text: str) -> list[str]:
        if "." in text:
            return [text] if text in self.queue.jobs else []
        if not text.isdigit():
            raise BadRequest(f"{text!r} is not a job id (cluster or cluster.proc)")
        return [n for n, j in self.queue.jobs.items() if j["ClusterId"] == int(text)]

    async def act(
        self, caller: Caller, action: str, names: list[str], reason: str | None
    ) -> dict[str, str]:
        """Remove, hold or release jobs; each job's result (``ok``, ``permission denied``,
        ``bad status``)."""
        now = self.ctx.env.now
        results = {}
        for name in names:
            job = self.queue.jobs.get(name)
            if job is None:
                results[name] = "not found"
            elif not caller.owns(job.get("Owner")):
                results[name] = "permission denied"
            else:
                results[name] = await self._act(caller, action, name, reason, now)
        self._save()
        await self._on_disk()
        self._advertise_soon()
        return results

    async def _act(
        self, caller: Caller, action: str, name: str, reason: str | None, now: float
    ) -> str:
        job = self.queue.jobs[name]
        status = job.get("JobStatus")
        who = f"via condor_{'rm' if action == 'remove' else action} (by user {caller.name})"
        if action == "remove":
            await self._stop_run(name, now)
            self._log(job, Aborted(reason or who), now)
            self._leave([name], REMOVED, now)
        elif action == "hold":
            if status == HELD:
                return "bad status"
            await self._stop_run(name, now)
            self._hold(name, reason or who, HELD_BY_USER, 0, now)
        elif action == "release":
            if status != HELD:
                return "bad status"
            self.queue.release(name, now)
            self._log(job, Released(reason or who), now)
            self.dirty.add(name)
        else:
            raise BadRequest(f"unknown action {action!r}: remove, hold or release")
        return "ok"

    def edit(self, caller: Caller, names: list[str], attribute: str, value: str) -> int:
        """condor_qedit: set ``attribute`` to the expression ``value`` in each job."""
        if attribute.lower() in _PROTECTED:
            raise Forbidden(f"{attribute} cannot be changed")
        try:
            expr = Expr(value)
        except Exception as err:
            raise BadRequest(f"value: {err}") from None
        for name in names:
            if not caller.owns(self.queue.jobs[name].get("Owner")):
                raise Forbidden(f"job {name} is not {caller.name}'s")
        for name in names:
            self.queue.jobs[name].insert_expr(attribute, expr)
            self.queue.edited(name)
            self.dirty.add(name)
        self._save()
        self.writer.flush()  # on disk before the user is told
        return len(names)

    def history(
        self, constraint: Expr | None, limit: int | None, since: Expr | None = None
    ) -> list[ClassAd]:
        self.writer.flush()
        return list(self.store.history(constraint, limit, self.ctx.env.now, since))

    # -- what the startds report ---------------------------------------------------------
    async def heard(self, events: list[Any]) -> None:
        """A startd's news of the jobs it runs for this schedd."""
        for event in events:
            if not isinstance(event, dict):
                raise BadRequest("each event must be a JSON object")
            claim = self.claims.get(str(event.get("claim")))
            if claim is None:
                continue  # a claim this schedd gave up (its job was removed or held)
            await self._event(claim, event)
        self._save()

    async def _event(self, claim: Claim, event: dict[str, Any]) -> None:
        kind, now = event.get("kind"), self.ctx.env.now
        usage = event.get("usage") if isinstance(event.get("usage"), dict) else {}
        name = claim.job
        if kind == "claim ready" and claim.waiting is not None:
            waiting, claim.waiting = claim.waiting, None
            self.starting.add(waiting)
            await self._activate(claim, waiting)
        elif kind == "claim lost":
            if claim.waiting is not None:
                self._not_starting(claim.waiting)
            self.claims.pop(claim.id, None)
        elif name is None or name not in self.queue.jobs:
            return
        elif kind == "exited":
            reusable = event.get("reusable") is not False  # the claim can take another job
            exit = event.get("exit") or {}
            await self._exited(claim, name, exit, usage, now, reusable, event.get("hold"))
        elif kind == "vacated":
            self._vacated(claim, name, usage, str(event.get("reason") or ""), now)
        elif kind == "suspended":
            self.queue.suspend(name, now)
            self._log(self.queue.jobs[name], Suspended(1), now)
            self.dirty.add(name)
        elif kind == "resumed":
            self.queue.resume(name, now)
            self._log(self.queue.jobs[name], Unsuspended(), now)
            self.dirty.add(name)

    async def _exited(
        self,
        claim: Claim,
        name: str,
        exit: dict[str, Any],
        usage: dict[str, Any],
        now: float,
        reusable: bool,
        hold: Any = None,
    ) -> None:
        """The job's process ended by itself; ``hold``: its output could not be brought
        back (the starter's reason), which holds the job instead."""
        job = self.queue.jobs[name]
        claim.job = None
        self.claim_of.pop(name, None)
        if isinstance(hold, dict):
            shadow.run_ended(job, usage, claim.slot_ad, now)
            self.queue.vacate(name, now)
            code, subcode = int(hold.get("code", 0)), int(hold.get("subcode", 0))
            self._hold(name, str(hold.get("reason")), code, subcode, now)
            self._save()
            self._advertise_soon()
            await self._release(claim)
            return
        outcome = shadow.exited(job, exit, usage, claim.slot_ad, now)
        if job_log_path(job) is not None:  # its event made only for a log to hold it
            self._log(job, outcome.event, now)
        self.counts["JobsExited"] += 1
        if outcome.status == COMPLETED:
            self.counts["JobsCompleted"] += 1
            self._leave([name], COMPLETED, now)
        else:
            self.queue.vacate(name, now)
            if outcome.status == HELD:
                self._hold(name, outcome.hold_reason, shadow.ON_EXIT_HOLD, 0, now)
            self.dirty.add(name)
        self._save()
        self._advertise_soon()
        following = next_job(self.queue, claim.submitter, claim.slot_ad, job, now, claim.matches)
        if not reusable or following is None or self._busy() >= self.max_running:
            await self._release(claim)
            return
        reused = job_id(following)
        self.queue.reserve(reused)
        self.starting.add(reused)
        await self._activate(claim, reused)

    def _vacated(
        self, claim: Claim, name: str, usage: dict[str, Any], reason: str, now: float
    ) -> None:
        job = self.queue.jobs[name]
        self._log(job, shadow.vacated(job, usage, claim.slot_ad, now, reason), now)
        self.queue.vacate(name, now)
        self.claims.pop(claim.id, None)
        self.claim_of.pop(name, None)
        self.dirty.add(name)
        self._advertise_soon()

    async def _stop_run(self, name: str, now: float) -> None:
        """A running (or starting) job is stopped for rm or hold: its claim is released,
        which makes its startd end the run; the run counts as it stood."""
        claim = self.claims.get(self.claim_of.pop(name, ""))
        if name in self.starting:
            self.starting.discard(name)
        job = self.queue.jobs[name]
        if job.get("JobStatus") in _ACTIVE:
            shadow.run_ended(job, {}, claim.slot_ad if claim else None, now)
            self.queue.vacate(name, now)
        if claim is not None:
            claim.job = claim.waiting = None
            await self._release(claim)

    def _hold(self, name: str, reason: str, code: int, subcode: int, now: float) -> None:
        self.queue.hold(name, reason, code, subcode, now)
        self._log(self.queue.jobs[name], Held(reason, code, subcode), now)
        self.dirty.add(name)

    def _leave(self, names: list[str], status: int, now: float) -> None:
        """Jobs leave the queue for the history (completed or removed)."""
        gone, empty = [], []
        for name in names:
            cluster = self.queue.jobs[name]["ClusterId"]
            job = self.queue.leave(name)
            job["JobStatus"] = status
            job["EnteredCurrentStatus"] = int(now)
            if status == COMPLETED:
                job.setdefault("CompletionDate", int(now))
            gone.append((job, self.clusters[cluster]))
            self.dirty.discard(name)
            self.per_cluster[cluster] -= 1
            if self.per_cluster[cluster] <= 0:
                del self.per_cluster[cluster]
                empty.append(cluster)
        changed = self._changed()
        self._write(self.store.leaving(gone, empty, changed))
        for cluster in empty:
            self.clusters.pop(cluster, None)

    # -- keeping state ------------------------------------------------------------------
    def _changed(self) -> list[tuple[ClassAd, ClassAd]]:
        jobs = self.queue.jobs
        changed = [(jobs[n], self.clusters[jobs[n]["ClusterId"]]) for n in self.dirty if n in jobs]
        self.dirty.clear()
        return changed

    def _save(self) -> asyncio.Future[None] | None:
        """The changed jobs handed to the writer; a future done once they are on disk
        (None when no job changed: most of a job's exit saves nothing more)."""
        if not self.dirty:
            return None
        return self._write(self.store.saving(self._changed()))

    def _write(self, write: Write | None) -> asyncio.Future[None] | None:
        """Writes commit in the order handed over, on the writer's thread, several in one
        transaction (group_commit.py): the schedd goes on meanwhile. What must be on disk
        before something else happens (a job's start, a user's reply) awaits the future."""
        if write is None:
            return None
        return self.writer.write(write)

    def _write_failed(self, error: Exception) -> None:
        self.log.error("saving the job queue failed: %s", error)

    async def _on_disk(self) -> None:
        """Every write handed over so far is on disk."""
        await self.writer.write(lambda conn: None)

    def _recover(self) -> None:
        """Jobs the database shows running died with the last run's startd: idle again,
        their user logs told they were evicted."""
        now = self.ctx.env.now
        lost = [n for n, j in self.queue.jobs.items() if j.get("JobStatus") in _ACTIVE]
        for name in lost:
            job = self.queue.jobs[name]
            reason = "the pool restarted while the job ran: its run was lost"
            self._log(job, shadow.vacated(job, {}, None, now, reason), now)
            self.queue.vacate(name, now)
            self.dirty.add(name)
        if lost:
            self.log.info(
                "%d jobs that were running when the pool stopped are idle again", len(lost)
            )
        self.store.save(self._changed())  # before the event loop runs

    # -- user logs ----------------------------------------------------------------------
    def _log(self, job: ClassAd, event: UserLogEvent, now: float) -> None:
        self._log_all([job], event, now)

    def _log_all(self, jobs: list[ClassAd], event: UserLogEvent, now: float) -> None:
        for job in jobs:
            path = job_log_path(job)
            if path is None:
                continue
            try:
                write_job_event(path, job, event, now, self.log_format)
            except (OSError, UserLogError) as err:
                self.log.info("user log %s of job %s: %s", path, job_id(job), err)

    # -- the collector and the negotiator -------------------------------------------------
    def ads(self, now: float) -> list[ClassAd]:
        """The Scheduler ad and one Submitter ad per submitter with jobs."""
        common = {
            "ScheddName": self.schedd_name,
            "Machine": self.ctx.host,
            **self.ctx.identity(),
            "ApiAddress": self.url,
            "MyCurrentTime": int(now),
        }
        counters = {n: self.counts[n] for n in _COUNTED}
        started = int(self.ctx.started)
        return schedd_ads(self.queue, self.schedd_name, common, started, self.max_running, counters)

    def _advertise_soon(self) -> None:
        """Advertise the changed counts, at most once per SCHEDD_MIN_INTERVAL: a busy
        schedd changes with every job start and end, and each ad counts every job."""
        if self._advert_due:
            return
        self._advert_due = True
        now = self.ctx.env.now
        delay = max(_ADVERTISE_DELAY, self._advertised_at + self.min_interval - now)
        self.ctx.env.schedule(delay, self._advertise_due)

    def _advertise_due(self) -> None:
        """The advertisement ``_advertise_soon`` asked for. Only this one clears the
        request: when any advertisement cleared it (the periodic one, a reschedule's),
        the next change asked for another while this one was still on its way."""
        self._advert_due = False
        self.spawn(self.advertise())

    async def advertise(self) -> None:
        self._advertised_at = self.ctx.env.now
        ads = self.ads(self.ctx.env.now)
        names = {a["Name"] for a in ads[1:]}
        await self.ctx.collectors.update([ad_to_json(a) for a in ads])
        gone = sorted(self.advertised - names)
        if gone:
            await self.ctx.collectors.invalidate("Submitter", constraint=self._mine(gone))
        self.advertised = names

    def _mine(self, submitters: list[str]) -> str:
        """A constraint naming this schedd's Submitter ads of ``submitters``."""
        names = " || ".join(f"Name == {_literal(n)}" for n in submitters)
        return f"ScheddName == {_literal(self.schedd_name)} && ({names})"

    async def reschedule(self) -> None:
        """Group the jobs just queued, advertise at once and ask the negotiator for a
        cycle soon (condor_reschedule)."""
        negotiators: list[str] = []
        try:
            found = await self.ctx.collectors.get(
                "/ads", type="Negotiator", projection="ApiAddress"
            )
            ads = found.get("ads", [])
            negotiators = [a["ApiAddress"] for a in ads if isinstance(a.get("ApiAddress"), str)]
        except Unavailable as err:
            self.log.info("cannot ask for a negotiation cycle: %s", err)
        await self._group_idle(negotiators)
        await self.advertise()
        try:
            for address in negotiators:
                await self.api(address).post("/reschedule")
        except Unavailable as err:
            self.log.info("cannot ask for a negotiation cycle: %s", err)

    async def _group_idle(self, negotiators: list[str]) -> None:
        """Group the newly idle jobs into autoclusters now, by the significant attributes
        of the last cycle or, before any, of the first negotiator that answers: the next
        cycle then reads its requests without a pass over a large submission."""
        significant = self.index.significant
        for address in negotiators if significant is None else ():
            try:
                reply = await self.api(address).get("/autocluster-attrs")
            except Unavailable as err:
                self.log.info("negotiator %s: %s", address, err)
                continue
            names = reply.get("AutoClusterAttrs")
            if isinstance(names, list) and all(isinstance(n, str) for n in names):
                significant = tuple(names)
                break
        if significant is not None:
            self.index.group(significant)

    def _advertising(self):
        while True:
            self.spawn(self.advertise())
            yield float(self.interval)

    def _periodic(self):
        """PeriodicHold, PeriodicRelease and PeriodicRemove, every PERIODIC_EXPR_INTERVAL."""
        while True:
            yield float(self.periodic_interval)
            self.spawn(self._periodic_policy())

    async def _periodic_policy(self) -> None:
        now = self.ctx.env.now
        for name, job in list(self.queue.jobs.items()):
            status = job.get("JobStatus")
            if status == HELD and _true(job, "PeriodicRelease", now):
                self.queue.release(name, now)
                self._log(job, Released(_policy_reason("PeriodicRelease")), now)
                self.dirty.add(name)
            elif _true(job, "PeriodicRemove", now):
                await self._stop_run(name, now)
                self._log(job, Aborted(_policy_reason("PeriodicRemove")), now)
                self._leave([name], REMOVED, now)
            elif status != HELD and _true(job, "PeriodicHold", now):
                await self._stop_run(name, now)
                self._hold(name, _policy_reason("PeriodicHold"), PERIODIC_HOLD, 0, now)
        self._save()

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for api in self._apis.values():
            await api.close()
        self.writer.close()

    def require(self, name: str) -> ClassAd:
        job = self.queue.jobs.get(name)
        if job is None:
            raise NotFound(f"job {name} is not in the queue")
        return job


def _policy_reason(attribute: str) -> str:
    return f"The job attribute {attribute} expression evaluated to TRUE"


def _literal(text: str) -> str:
    return unparse(node_of(text))


def _true(job: ClassAd, name: str, now: float) -> bool:
    return name in job and satisfied(evaluate(job.lookup(name), job, now=now))
