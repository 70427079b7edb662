"""The job queue (schedd/queue.py) against a model of each job's life, with autoclusters.

A hypothesis state machine adds jobs (idle, held, or running as a pool read as it stands)
and moves them through begin/vacate/suspend/resume/hold/release/reserve/unreserve/leave
and condor_qedit, with an ``AutoclusterIndex`` attached. After every step the queue must
agree with the model: which jobs the negotiator sees as idle, how many run per submitter,
the attributes condor_q shows, each submitter's idle jobs in queue order, and the index
holding exactly the idle jobs, grouped as ``Signatures`` groups them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    invariant,
    rule,
)

from builders import make_job
from fairpool.classad import Expr
from fairpool.negotiator.autocluster import Signatures
from fairpool.negotiator.submitters import schedd_order
from fairpool.schedd.autoclusters import AutoclusterIndex
from fairpool.schedd.queue import (
    HELD,
    IDLE,
    RUNNING,
    SUSPENDED,
    TRANSFERRING_OUTPUT,
    JobQueue,
)

EXAMPLES = settings.default.max_examples  # 100; HYPOTHESIS_PROFILE=ci: 400
DOMAIN = "d"
OWNERS = ("alice", "bob", "carol")
SIGNIFICANT = (("RequestCpus", "RequestMemory"), ("RequestMemory",), ("JobPrio", "RequestCpus"))
ACTIVE = (RUNNING, SUSPENDED, TRANSFERRING_OUTPUT)
HOLD_ATTRS = ("HoldReason", "HoldReasonCode", "HoldReasonSubCode")


@dataclass
class Model:
    """What the queue should know of one job."""

    submitter: str
    status: int
    entered: int | None  # EnteredCurrentStatus (None: as the ad came)
    place: int
    reserved: bool = False
    starts: int = 0
    started: int | None = None  # JobCurrentStartDate, as begin set it
    host: str | None = None
    hold: tuple | None = None


def submitter_name(owner: str, group: str | None) -> str:
    return f"{group}.{owner}@{DOMAIN}" if group else f"{owner}@{DOMAIN}"


class QueueMachine(RuleBasedStateMachine):
    jobs = Bundle("jobs")

    def __init__(self) -> None:
        super().__init__()
        self.index = AutoclusterIndex()
        self.queue = JobQueue(DOMAIN, self.index)
        self.model: dict[str, Model] = {}
        self.now = 1_000
        self.cluster = 0
        self.places = 0
        self.significant = SIGNIFICANT[0]

    def tick(self, seconds: int) -> int:
        self.now += seconds
        return self.now

    def names(self, *statuses: int, reserved: bool | None = None) -> list[str]:
        return [
            name
            for name, m in self.model.items()
            if m.status in statuses and (reserved is None or m.reserved == reserved)
        ]

    # -- rules ------------------------------------------------------------------------
    @rule(
        target=jobs,
        owner=st.sampled_from(OWNERS),
        group=st.sampled_from((None, "physics")),
        status=st.sampled_from((IDLE, IDLE, IDLE, HELD, RUNNING, SUSPENDED, TRANSFERRING_OUTPUT)),
        prio=st.integers(-2, 2),
        cpus=st.integers(1, 2),
        memory=st.sampled_from((100, 200)),
    )
    def add(self, owner, group, status, prio, cpus, memory):
        self.cluster += 1
        builder = make_job(owner, self.cluster, 0).set(
            JobStatus=status,
            JobPrio=prio,
            QDate=self.now,
            RequestCpus=cpus,
            RequestMemory=memory,
            EnteredCurrentStatus=self.now - 5,
        )
        if group:
            builder.group(group)
        hold = None
        if status == HELD:
            hold = ("submitted on hold at user's request", 15, 0)
            builder.set(**dict(zip(HOLD_ATTRS, hold, strict=True)))
        host = None
        if status in ACTIVE:
            host = f"slot1@host{self.cluster}"
            builder.set(RemoteHost=host, NumJobStarts=1)
        job = builder.build()
        name = f"{self.cluster}.0"
        self.places += 1
        self.model[name] = Model(
            submitter_name(owner, group),
            status,
            None,
            self.places,
            starts=1 if status in ACTIVE else 0,
            host=host,
            hold=hold,
        )
        self.queue.add([job])
        return name

    @rule(data=st.data(), seconds=st.integers(0, 100))
    def begin(self, data, seconds):
        candidates = self.names(IDLE)  # reserved ones start when their slot is free
        if not candidates:
            return
        name = data.draw(st.sampled_from(candidates))
        now = self.tick(seconds)
        m = self.model[name]
        slot = f"slot{m.starts + 1}@exec"
        job = self.queue.begin(name, slot, now + 0.75)  # a fraction of a second: int(now)
        assert job is self.queue.jobs[name]
        m.status, m.entered, m.reserved, m.host = RUNNING, now, False, slot
        m.starts += 1
        m.started = now

    @rule(data=st.data(), seconds=st.integers(0, 100))
    def vacate(self, data, seconds):
        candidates = self.names(RUNNING, SUSPENDED)
        if not candidates:
            return
        name = data.draw(st.sampled_from(candidates))
        m = self.model[name]
        started = self.queue.jobs[name].eval("JobCurrentStartDate")
        now = self.tick(seconds)
        began = self.queue.vacate(name, now)
        # the run's start, as begin recorded it (0.0 for a job read as running)
        assert began == (float(started) if type(started) is int else 0.0)
        m.status, m.entered, m.host = IDLE, now, None

    @rule(data=st.data(), seconds=st.integers(0, 100))
    def suspend(self, data, seconds):
        candidates = self.names(RUNNING)
        if not candidates:
            return
        name = data.draw(st.sampled_from(candidates))
        now = self.tick(seconds)
        self.queue.suspend(name, now)
        self.model[name].status, self.model[name].entered = SUSPENDED, now

    @rule(data=st.data(), seconds=st.integers(0, 100))
    def resume(self, data, seconds):
        candidates = self.names(SUSPENDED)
        if not candidates:
            return
        name = data.draw(st.sampled_from(candidates))
        now = self.tick(seconds)
        self.queue.resume(name, now)
        self.model[name].status, self.model[name].entered = RUNNING, now

    @rule(data=st.data(), seconds=st.integers(0, 100), code=st.integers(1, 40))
    def hold(self, data, seconds, code):
        candidates = self.names(IDLE)
        if not candidates:
            return
        name = data.draw(st.sampled_from(candidates))
        now = self.tick(seconds)
        reason = f"held at {now}"
        self.queue.hold(name, reason, code, 2, now)
        m = self.model[name]
        m.status, m.entered, m.reserved, m.hold = HELD, now, False, (reason, code, 2)

    @rule(data=st.data(), seconds=st.integers(0, 100))
    def release(self, data, seconds):
        candidates = self.names(HELD)
        if not candidates:
            return
        name = data.draw(st.sampled_from(candidates))
        now = self.tick(seconds)
        self.queue.release(name, now)
        m = self.model[name]
        m.status, m.entered, m.hold = IDLE, now, None

    @rule(data=st.data())
    def reserve(self, data):
        candidates = self.names(IDLE, reserved=False)
        if not candidates:
            return
        name = data.draw(st.sampled_from(candidates))
        self.queue.reserve(name)
        self.model[name].reserved = True

    @rule(name=jobs)
    def unreserve(self, name):
        """Any job, gone or not, reserved or not: only a reserved idle one changes."""
        self.queue.unreserve(name)
        m = self.model.get(name)
        if m is not None and m.status == IDLE:
            m.reserved = False

    @rule(name=consumes(jobs))
    def leave(self, name):
        if name not in self.model:
            return
        job = self.queue.leave(name)
        assert job.eval("ClusterId") == int(name.split(".")[0])
        del self.model[name]
        assert name not in self.queue

    @rule(data=st.data(), attribute=st.sampled_from(("JobPrio", "RequestCpus", "RequestMemory")))
    def edit(self, data, attribute):
        """condor_qedit of an idle (or reserved, or held) job."""
        candidates = self.names(IDLE, HELD)
        if not candidates:
            return
        name = data.draw(st.sampled_from(candidates))
        value = data.draw(st.integers(-3, 3) if attribute == "JobPrio" else st.integers(1, 300))
        self.queue.jobs[name].insert_expr(attribute, Expr(str(value)))
        self.queue.edited(name)

    @rule(choice=st.integers(0, len(SIGNIFICANT) - 1))
    def negotiate(self, choice):
        """The negotiator asks for requests (grouping what is pending; maybe regrouping)."""
        self.significant = SIGNIFICANT[choice]
        queues = self.index.requests(self.significant)
        expected = Counter(self.model[n].submitter for n in self.idle_names())
        assert {s: q.idle_jobs for s, q in queues.items()} == dict(expected)
        for submitter, queue in queues.items():
            orders = [schedd_order(r.jobs[0]) for r in queue.requests]
            assert orders == sorted(orders)  # requests in schedd order of their first job
            for request in queue.requests:
                members = [
                    n
                    for n in self.idle_names()
                    if self.model[n].submitter == submitter
                    and self.index.autocluster_of(n) == request.autocluster
                ]
                assert request.count == len(members)
                first = min(members, key=lambda n: schedd_order(self.queue.jobs[n]))
                assert request.jobs[0] is self.queue.jobs[first]
                assert self.index.pick(submitter, request.autocluster) == first
        self.check_groups()

    # -- invariants -------------------------------------------------------------------
    def idle_names(self) -> list[str]:
        return [n for n, m in self.model.items() if m.status == IDLE and not m.reserved]

    def check_groups(self) -> None:
        """Grouped jobs share an autocluster exactly when Signatures says they are equal."""
        fresh = Signatures(self.significant)
        grouped = [n for n in self.idle_names() if self.index.autocluster_of(n) is not None]
        assert len(grouped) == len(self.idle_names())
        for a in grouped:
            for b in grouped:
                same = fresh.signature(self.queue.jobs[a]) == fresh.signature(self.queue.jobs[b])
                assert (self.index.autocluster_of(a) == self.index.autocluster_of(b)) == same

    @invariant()
    def idle_is_the_unreserved_idle_jobs(self):
        assert set(self.queue.idle) == set(self.idle_names())
        assert len(self.index) == len(self.idle_names())
        for name in self.queue.idle:
            assert self.queue.idle[name] is self.queue.jobs[name]

    @invariant()
    def running_counts_active_jobs(self):
        expected = Counter(m.submitter for m in self.model.values() if m.status in ACTIVE)
        assert self.queue.running == expected
        assert all(count > 0 for count in self.queue.running.values())

    @invariant()
    def attributes_as_condor_q_shows_them(self):
        assert set(self.queue.jobs) == set(self.model)
        assert len(self.queue) == len(self.model)
        for name, m in self.model.items():
            job = self.queue.jobs[name]
            assert self.queue.status(name) == m.status
            assert job.eval("JobStatus") == m.status
            if m.entered is not None:
                assert job.eval("EnteredCurrentStatus") == m.entered
                assert type(job.eval("EnteredCurrentStatus")) is int
            assert job.get("RemoteHost") == m.host
            assert job.get("NumJobStarts", 0) == m.starts
            if m.hold is None:
                assert not any(a in job for a in HOLD_ATTRS)
            else:
                assert tuple(job.get(a) for a in HOLD_ATTRS) == m.hold
            if m.started is not None:
                assert job.eval("JobCurrentStartDate") == m.started
            assert self.queue.submitter[name] == m.submitter

    @invariant()
    def idle_of_is_in_queue_order(self):
        for owner in OWNERS:
            for submitter in (submitter_name(owner, None), submitter_name(owner, "physics")):
                expected = sorted(
                    (n for n in self.idle_names() if self.model[n].submitter == submitter),
                    key=lambda n: self.model[n].place,
                )
                assert list(self.queue.idle_of(submitter)) == [self.queue.jobs[n] for n in expected]


QueueMachine.TestCase.settings = settings(
    max_examples=EXAMPLES * 6 // 10, stateful_step_count=40, deadline=None
)
TestJobQueue = QueueMachine.TestCase


# -- single cases -----------------------------------------------------------------------
def test_vacate_of_a_job_read_as_running_reports_no_start():
    queue = JobQueue(DOMAIN)
    job = make_job("alice").set(JobStatus=RUNNING, RemoteHost="slot1@a").build()
    queue.add([job])
    assert queue.vacate("1.0", 50.0) == 0.0  # no JobCurrentStartDate: unknown start
    assert "RemoteHost" not in job
    assert queue.running == Counter()
    assert list(queue.idle) == ["1.0"]


def test_begin_then_vacate_gives_the_runs_start():
    queue = JobQueue(DOMAIN)
    queue.add([make_job("alice").build()])
    queue.begin("1.0", "slot1@a", 100.9)
    assert queue.vacate("1.0", 160.0) == 100.0  # JobCurrentStartDate = int(100.9)


def test_qedit_of_accounting_group_moves_an_idle_job_to_its_new_submitter():
    queue = JobQueue(DOMAIN, AutoclusterIndex())
    job = make_job("alice").build()
    queue.add([job])
    job["AccountingGroup"] = "physics.alice"  # condor_qedit 1.0 AccountingGroup ...
    queue.edited("1.0")
    assert list(queue.idle_of(f"physics.alice@{DOMAIN}")) == [job]
    assert list(queue.index.requests(("RequestCpus",))) == [f"physics.alice@{DOMAIN}"]
