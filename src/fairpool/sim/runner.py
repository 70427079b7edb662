"""The simulator: a scenario run on one event heap (runtime/env.py) with the negotiator,
accountant, group quotas and concurrency limits fairpool uses everywhere else.

Processes on the heap: the negotiator (a cycle every ``negotiator_interval`` from the
start, the step negotiation.py shares with ``fairpool negotiate``, then a sample when one
is due), one per job source and trace (submissions at their times), one event per job
completion, the scenario's ``[[events]]``, and the defrag daemon's polls when the
configuration runs one (defrag.py). Events due at the same time run in the order they were
scheduled, so scenario events and completions at a cycle's time come before it.

What happens to a job: it is submitted (idle); a cycle matches it and ``Pool.apply`` starts
it; it completes ``runtime`` seconds later and its slot is released at once (every job
goes through the negotiator), or, with ``claim_reuse``, its claim starts the submitter's
next matching job, as the schedd does, until ``CLAIM_WORKLIFE`` is over. A preempted job
goes back to idle and starts again from the beginning (no checkpoints). Machines whose
startd policy can do anything a dedicated machine does not (startd_policy.py) run it:
each is a ``Startd`` on the heap (startds.py), which may suspend, evict or refuse jobs;
the others are always willing, as a dedicated pool's machines are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Generator
from dataclasses import replace

from ..accounting.accountant import Accountant, Usage
from ..classad import ClassAd, Expr
from ..classad.match import evaluate, satisfied
from ..errors import ScenarioError
from ..negotiator.groups import group_assigner
from ..negotiator.submitters import job_id
from ..runtime.collection import batch_collection
from ..runtime.env import Environment
from ..startd import MachineInputs, Startd
from .arrivals import JobFactory, NewJob, submission_times, trace_jobs
from .defrag import SimDefrag, wanted
from .events import apply_event
from .machines import MachineSpec, machine_slots
from .negotiation import negotiate
from .pool import Pool, Started
from .queue_file import QueueSpec
from .recorder import Recorder
from .sampling import take_sample
from .scenario import Scenario, Settings
from .shortcuts import preemption_possible, ranks_vary
from .startd_policy import EPOCH_WEEKDAY
from .startds import Startds
from .unmatchable import Unmatchable, unmatchable
from .workload import JobSpec, TraceSpec

__all__ = ["Simulation", "simulate"]

RUNNING = 2


class Simulation:
    """One run of a scenario; ``run()`` fills ``recorder`` and leaves the accountant."""

    def __init__(self, scenario: Scenario, progress: Callable[[float], None] | None = None):
        self.scenario = scenario
        sim = scenario.simulation
        self.settings = scenario.settings
        self.domain = self.settings.params.accounting_domain
        self.env = Environment(sim.start)
        self.end = sim.start + sim.duration
        self.pool = Pool([], [], self.domain, self.settings.params.concurrency)
        self.pool.claim_leftovers = self.settings.claim_leftovers
        self.pool.claim_reuse = sim.claim_reuse
        last_update, records = scenario.accountant or (0.0, ())
        self.accountant = Accountant(
            self.settings.policy,
            [replace(record) for record in records],  # the run's own copies
            last_update,
            assign_group=group_assigner(self.settings.params.groups),
        )
        self.factory = JobFactory(self.domain, sim.seed)
        self.recorder = Recorder(sim.start)
        self.progress = progress
        self.runtime: dict[str, float] = {}
        self.source: dict[str, str] = {}
        self.idle_by_source: Counter[str] = Counter()
        self.idle_by_submitter: Counter[str] = Counter()
        self.submitters: dict[str, str] = {}  # every submitter seen -> its group
        self.quotas: dict[str, float] = {}  # group quotas of the last negotiated cycle
        self.new_submitters: list[str] = []
        self.stopped: set[str] = set()
        self.keep_idle: list[JobSpec] = []
        self.made: Counter[str] = Counter()  # machines (per table) and submissions (per source)
        self.ranked = False
        self.unmatchable: list[Unmatchable] | None = None
        self._cores: float | None = None  # cores(), until machines change
        self.startds = Startds(self.pool, self.env, self._report, self._suspended, self._resumed)
        knobs = self.settings.knobs
        self.defrag = (
            SimDefrag(knobs, self.startds, self.startds.changed) if wanted(knobs) else None
        )

    # -- running ----------------------------------------------------------------------
    def check(self) -> list[Unmatchable]:
        """The jobs no machine of the scenario can run (sim/unmatchable.py), found before
        the run; summary.json lists them."""
        if self.unmatchable is None:
            self.unmatchable = unmatchable(self)
        return self.unmatchable

    def run(self) -> Simulation:
        self.check()
        for spec in self.scenario.machines:
            self.add_machines(spec)
        for spec in self.scenario.jobs:
            if spec.keep_idle is not None:
                self.keep_idle.append(spec)
            else:
                self.env.process(self._submissions(spec))
        for trace in self.scenario.traces:
            self.env.process(self._trace(trace))
        for queue in self.scenario.queues:
            self.env.at(self.env.now + queue.at, lambda q=queue: self.submit_queue(q))
        for event in self.scenario.events:
            self.env.at(self.env.now + event.at, lambda e=event: apply_event(e, self))
        self.env.process(self._negotiator())
        if self.defrag is not None:
            self.env.process(self.defrag.polling())
        with batch_collection():  # a run's queue and records live as long as it does
            self.env.run(until=self.end)
        self.recorder.finish(self.end)
        return self

    def _negotiator(self) -> Generator[float, None, None]:
        sim = self.scenario.simulation
        next_sample = sim.start
        while True:
            now = self.env.now
            self._refill(now)
            self._cycle(now)
            if now >= next_sample:
                take_sample(self, now)
                while next_sample <= now:
                    next_sample += sim.sample_interval
            if self.progress is not None:
                self.progress((now - sim.start) / sim.duration)
            if now + sim.negotiator_interval > self.end:
                return
            yield sim.negotiator_interval

    def _cycle(self, now: float) -> None:
        self.recorder.cycles += 1
        params = self.settings.params
        shortcuts = self.scenario.simulation.shortcuts
        if shortcuts and not self._may_match(preemption_possible(params, self.ranked), now):
            self._account(now)
            return
        self.recorder.cycles_run += 1
        result = negotiate(self.pool, self.accountant, params, now, kept=shortcuts)
        self.new_submitters.clear()
        if result.groups:
            self.quotas = {name: g["subtree_quota"] for name, g in result.groups.items()}
        for rejection in result.rejections:
            self.recorder.rejected(rejection.submitter, rejection.reason)
        started = self.pool.apply(result, now)
        self._drain_vacated(now)
        for start in started:
            self._started(start.job, now)

    def _may_match(self, preemptible: bool, now: float) -> bool:
        """Whether a cycle now could match anything (shortcuts.py)."""
        if not self.pool.queue.idle:
            return False
        return preemptible or self.pool.keep_ledger(self.settings.params, now).free_slot(now)

    def _account(self, now: float) -> None:
        """What a cycle without matches does to the accountant (shortcuts.py)."""
        self.accountant.update_priorities(now)
        self.accountant.set_usage(self.usage(now))
        if self.settings.params.job_constraint is None:
            for name in self.new_submitters:
                self.accountant.customer(name)
        self.new_submitters.clear()

    def usage(self, now: float) -> dict[str, Usage]:
        """Each holder's usage from the claimed slots, as a cycle would measure it."""
        return self.pool.keep_ledger(self.settings.params, now).usage(now)

    # -- jobs -------------------------------------------------------------------------
    def _submissions(self, spec: JobSpec) -> Generator[float, None, None]:
        rng = self.factory.rng(f"arrivals:{spec.index}")
        start = self.scenario.simulation.start
        for offset in submission_times(spec, rng, self.end - start):
            if start + offset > self.env.now:
                yield start + offset - self.env.now
            if spec.owner in self.stopped:
                return
            self.submit(self.factory.submit(spec, self.env.now))

    def _trace(self, spec: TraceSpec) -> Generator[float, None, None]:
        start = self.scenario.simulation.start + spec.at
        for job in trace_jobs(spec):
            if start + job.submit > self.end:
                return
            if start + job.submit > self.env.now:
                yield start + job.submit - self.env.now
            self.submit([self.factory.trace_job(spec, job, self.env.now)])

    def submit_queue(self, spec: QueueSpec) -> None:
        """A queue file's jobs join the queue (sim/queue_file.py)."""
        self.submit(self.factory.queue(spec, self.env.now))

    def _refill(self, now: float) -> None:
        """Keep ``keep_idle`` sources topped up before each cycle."""
        for spec in self.keep_idle:
            if now < self.scenario.simulation.start + spec.at or spec.owner in self.stopped:
                continue
            while self.idle_by_source[spec.label] < (spec.keep_idle or 0):
                if spec.count is not None and self.made[spec.label] >= spec.count:
                    break
                self.made[spec.label] += 1
                self.submit(self.factory.submit(spec, now))

    def submit(self, jobs: list[NewJob]) -> None:
        now = self.env.now
        for job in jobs:
            name = job_id(job.ad)
            self.pool.queue.add([job.ad])
            submitter = self.pool.queue.submitter[name]
            if submitter not in self.submitters:
                self.submitters[submitter] = self.accountant.assign_group(submitter) or ""
                self.new_submitters.append(submitter)
            cpus = job.ad.eval("RequestCpus")
            cpus = float(cpus) if type(cpus) in (int, float) else 1.0
            self.recorder.submitted(name, submitter, self.submitters[submitter], now, cpus)
            self.runtime[name] = job.runtime
            self.source[name] = job.source
            self._idle(name, 1)

    def _idle(self, name: str, change: int) -> None:
        self.idle_by_source[self.source[name]] += change
        self.idle_by_submitter[self.recorder.jobs[name].submitter] += change

    def _started(self, name: str, now: float) -> None:
        self.recorder.started(name, now)
        self._idle(name, -1)
        self._end_after(name, 0)

    def _end_after(self, name: str, run: float) -> None:
        """The current run's end, due once it has run its whole runtime (``run`` done)."""
        token = self.pool.queue.jobs[name].eval("NumJobStarts")
        self.env.schedule(max(self.runtime[name] - run, 0.0), lambda: self._complete(name, token))

    def _complete(self, name: str, token: object) -> None:
        if not self._still_running(name, token):
            return  # preempted (or removed) since: this run never finished
        slot = self.pool.queue.jobs[name].eval("RemoteHost")
        if self.pool.driven(slot):
            run = self.startds.run_time(slot)  # its startd brought up to now first
            if not self._still_running(name, token) or run is None:
                return  # evicted meanwhile, or suspended (resuming reschedules the end)
            if self.runtime[name] - run >= 1:
                self._end_after(name, run)
                return
        following = self.pool.complete(name, self.env.now)
        self.recorder.completed(name, self.env.now)
        del self.runtime[name]
        if following is not None:  # the schedd reused the claim
            self._started(following.job, self.env.now)

    def _still_running(self, name: str, token: object) -> bool:
        ad = self.pool.queue.jobs.get(name)
        if ad is None or ad.eval("JobStatus") != RUNNING:
            return False
        return ad.eval("NumJobStarts") == token

    def _report(self, started: list[Started]) -> None:
        """What a driven machine's startd did outside a cycle (sim/startds.py)."""
        now = self.env.now
        self._drain_vacated(now)
        for start in started:
            self._started(start.job, now)

    def _suspended(self, name: str) -> None:
        self.recorder.suspended(name, self.env.now)

    def _resumed(self, name: str, run: int) -> None:
        """A suspended job runs again: its end is due when its run time is reached."""
        self.recorder.resumed(name, self.env.now)
        self._end_after(name, run)

    def _drain_vacated(self, now: float) -> None:
        for name, _ in self.pool.vacated:
            self.recorder.vacated(name, now)
            self._idle(name, 1)
        self.pool.vacated.clear()

    def remove_jobs(self, owner: str) -> None:
        """condor_rm of every job of ``owner``; its sources stop."""
        self.stopped.add(owner)
        now = self.env.now
        for name, ad in list(self.pool.queue.jobs.items()):
            if ad.eval("Owner") != owner:
                continue
            if ad.eval("JobStatus") != RUNNING:
                self._idle(name, -1)
            self.recorder.removed(name, now)
            self.pool.finish(name)
            self.runtime.pop(name, None)

    # -- machines and configuration ----------------------------------------------------
    def add_machines(self, spec: MachineSpec) -> None:
        slots = machine_slots(spec, self.made[spec.label] + 1)
        self.made[spec.label] += spec.count
        clash = next(
            (s.eval("Name") for s in slots if s.eval("Name") in self.pool.slot_by_name), None
        )
        if clash is not None:
            raise ScenarioError(
                f"slot {clash} already exists", self.scenario.source, key=spec.label
            )
        if spec.driven or self.scenario.simulation.startd == "always":
            slots = self._start_startds(spec, slots)
        else:
            for slot in slots:
                self.pool.worklife[slot.eval("Machine")] = spec.policy.claim_worklife
            self.pool.add_slots(slots)
        self._cores = None
        self.ranked = self.ranked or ranks_vary(slots)
        self.recorder.capacity(self.env.now, self.cores())

    def _start_startds(self, spec: MachineSpec, slots: list[ClassAd]) -> list[ClassAd]:
        """One startd per machine of ``spec``; the slot ads they publish."""
        now = self.startds.now()
        if spec.activity is not None:  # its times count from the simulation's start
            start = int(self.scenario.simulation.start)
            inputs = spec.activity.on_clock(start, int(self.end))
        else:
            inputs = MachineInputs(day0=EPOCH_WEEKDAY)
        hosts: dict[str, list[ClassAd]] = {}
        for slot in slots:
            hosts.setdefault(slot.eval("Machine"), []).append(slot)
        published = []
        for host, ads in hosts.items():
            self.startds.add(host, Startd(spec.policy, ads, inputs, start=now))
            published.extend(self.pool.slot_by_name[n] for n in self.startds.names[host])
        return published

    def remove_machines(self, constraint: Expr | None, count: int | None) -> None:
        now = self.env.now
        hosts: dict[str, None] = {}
        for slot in self.pool.slot_by_name.values():
            if slot.eval("DynamicSlot") is True:
                continue
            if constraint is None or satisfied(evaluate(constraint, slot, now=now)):
                hosts[slot.eval("Machine")] = None
        chosen = set(list(hosts)[-count:] if count else hosts)
        for host in hosts:  # in collector order, not a set's
            if host in chosen and host in self.startds.machines:
                self.startds.forget(host)
        names = [
            name
            for name, slot in self.pool.slot_by_name.items()
            if slot.eval("Machine") in chosen and slot.eval("DynamicSlot") is not True
        ]
        self.pool.remove_slots(names, now)
        self._cores = None
        self._drain_vacated(now)
        self.recorder.capacity(now, self.cores())

    def cores(self) -> float:
        """The pool's cores: static slots' Cpus and partitionable slots' TotalSlotCpus
        (counted again only after machines come or go)."""
        if self._cores is None:
            total = 0.0
            for slot in self.pool.slot_by_name.values():
                if slot.eval("DynamicSlot") is True:
                    continue
                name = "TotalSlotCpus" if slot.eval("PartitionableSlot") is True else "Cpus"
                value = slot.eval(name)
                total += float(value) if type(value) in (int, float) else 0.0
            self._cores = total
        return self._cores

    def reconfigure(self, settings: Settings) -> None:
        self.settings = settings
        self.pool.limits = settings.params.concurrency
        self.pool.claim_leftovers = settings.claim_leftovers
        self.accountant.policy = settings.policy
        self.accountant.assign_group = group_assigner(settings.params.groups)


def simulate(scenario: Scenario, progress: Callable[[float], None] | None = None) -> Simulation:
    """Run ``scenario`` to its end."""
    return Simulation(scenario, progress).run()
