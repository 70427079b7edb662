"""What a claim the schedd holds runs next (schedd/claims.py): claim reuse and
partitionable leftovers, against a direct reading of their rules over random queues.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from builders import make_job, make_slot
from fairpool.classad import ClassAd, Expr
from fairpool.negotiator.concurrency import LimitConfig, LimitCounter
from fairpool.schedd.claims import leftover_jobs, next_job
from fairpool.schedd.queue import HELD, IDLE, RUNNING, JobQueue

EXAMPLES = settings.default.max_examples  # 100; HYPOTHESIS_PROFILE=ci: 400
DOMAIN = "d"
NOW = 1_000.0
FITS = "TARGET.Cpus >= MY.RequestCpus && TARGET.Memory >= MY.RequestMemory"
LIMITS = {"": [], "db": [("db", 1.0)], "DB:2": [("db", 2.0)], "web": [("web", 1.0)]}

# one job: (owner, status, JobPrio, RequestCpus, RequestMemory, ConcurrencyLimits)
job_specs = st.tuples(
    st.sampled_from(("alice", "bob")),
    st.sampled_from((IDLE, IDLE, IDLE, HELD, RUNNING)),
    st.integers(-1, 1),
    st.integers(1, 4),
    st.sampled_from((100, 500, 2000)),
    st.sampled_from(tuple(LIMITS)),
)


def queue_of(specs: list[tuple]) -> JobQueue:
    queue = JobQueue(DOMAIN)
    for cluster, (owner, status, prio, cpus, memory, limits) in enumerate(specs, 1):
        builder = make_job(owner, cluster).set(
            JobStatus=status,
            JobPrio=prio,  # claims take queue order, not schedd order
            RequestCpus=cpus,
            RequestMemory=memory,
            Requirements=Expr(FITS),
        )
        if limits:
            builder.set(ConcurrencyLimits=limits)
        queue.add([builder.build()])
    return queue


def fits(job: ClassAd, slot: ClassAd) -> bool:
    return job["RequestCpus"] <= slot["Cpus"] and job["RequestMemory"] <= slot["Memory"]


def limits_of(job: ClassAd) -> list[tuple[str, float]]:
    return LIMITS[job.get("ConcurrencyLimits", "")]


slots = st.tuples(st.integers(1, 4), st.sampled_from((100, 500, 2000)))


@settings(max_examples=EXAMPLES * 8 // 10, deadline=None)
@given(st.lists(job_specs, max_size=15), slots, st.sampled_from(tuple(LIMITS)))
def test_claim_reuse_runs_the_first_idle_job_that_fits_with_the_same_limits(specs, size, held):
    queue = queue_of(specs)
    slot = make_slot("slot1@a").cpus(size[0]).memory(size[1]).build()
    finished = make_job("alice", 99).set(Requirements=Expr(FITS)).build()
    if held:
        finished["ConcurrencyLimits"] = held
    chosen = next_job(queue, f"alice@{DOMAIN}", slot, finished, NOW)
    expected = [
        job
        for job in queue.jobs.values()  # queue order
        if job["JobStatus"] == IDLE
        and job["Owner"] == "alice"
        and fits(job, slot)
        and limits_of(job) == LIMITS[held]
    ]
    assert chosen is (expected[0] if expected else None)


@settings(max_examples=EXAMPLES * 8 // 10, deadline=None)
@given(
    st.lists(job_specs, max_size=15),
    slots,
    st.dictionaries(st.sampled_from(("db", "web")), st.integers(0, 3), max_size=2),
)
def test_leftovers_are_judged_against_what_is_left_as_the_caller_carves(specs, size, in_use):
    queue = queue_of(specs)
    pslot = make_slot("slot1@a").partitionable().cpus(size[0]).memory(size[1]).build()
    counter = LimitCounter(LimitConfig(explicit={"db": 3.0, "web": 2.0}), in_use)
    started = []
    for job in leftover_jobs(queue, f"bob@{DOMAIN}", pslot, counter, NOW):
        started.append(job)
        pslot["Cpus"] = pslot["Cpus"] - job["RequestCpus"]  # the caller carves it out
        pslot["Memory"] = pslot["Memory"] - job["RequestMemory"]
        counter.add(limits_of(job))
    # the same walk over the queue, by the rules as written
    cpus, memory, used = size[0], size[1], dict(in_use)
    expected = []
    for job in queue.jobs.values():
        if job["JobStatus"] != IDLE or job["Owner"] != "bob":
            continue
        if job["RequestCpus"] > cpus or job["RequestMemory"] > memory:
            continue
        capacity = {"db": 3.0, "web": 2.0}
        if any(used.get(n, 0) + a > capacity[n] for n, a in limits_of(job)):
            continue
        expected.append(job)
        cpus -= job["RequestCpus"]
        memory -= job["RequestMemory"]
        for name, amount in limits_of(job):
            used[name] = used.get(name, 0) + amount
    assert started == expected


def test_reuse_skips_jobs_the_slot_refuses_and_jobs_of_other_submitters():
    queue = JobQueue(DOMAIN)
    jobs = [
        make_job("bob", 1).build(),
        make_job("alice", 2).set(Color="red").build(),
        make_job("alice", 3).set(Color="blue").build(),
    ]
    queue.add(jobs)
    slot = make_slot("slot1@a").start('TARGET.Color == "blue"').build()
    finished = make_job("alice", 9).build()
    assert next_job(queue, f"alice@{DOMAIN}", slot, finished, NOW) is jobs[2]
    queue.begin("3.0", "slot1@a", NOW)  # running now: not idle
    assert next_job(queue, f"alice@{DOMAIN}", slot, finished, NOW) is None
