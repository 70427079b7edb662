"""The schedd's autocluster index (schedd/autoclusters.py): resource requests kept as jobs
come and go, against the negotiator's own grouping (negotiator/autocluster.py) and, in a
differential test, against a negotiation cycle given every job.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from builders import make_job, make_slot
from fairpool.accounting.accountant import Accountant, AccountantPolicy
from fairpool.classad import ClassAd, Expr
from fairpool.negotiator import CycleResult, NegotiatorParams, PoolSnapshot, run_cycle
from fairpool.negotiator.autocluster import Signatures
from fairpool.negotiator.cycle import significant_of
from fairpool.negotiator.submitters import schedd_order
from fairpool.schedd.autoclusters import AutoclusterIndex
from fairpool.schedd.queue import JobQueue

EXAMPLES = settings.default.max_examples  # 100; HYPOTHESIS_PROFILE=ci: 400
DOMAIN = "d"
NOW = 1_750_000_000.0
PARAMS = NegotiatorParams(accounting_domain=DOMAIN)
OWNERS = ("alice", "bob", "carol")
FITS = "TARGET.Cpus >= MY.RequestCpus && TARGET.Memory >= MY.RequestMemory"
SIGNIFICANT = ("RequestCpus", "RequestMemory")

# one job: (owner, JobPrio, QDate offset, RequestCpus, RequestMemory, Color)
job_specs = st.tuples(
    st.sampled_from(OWNERS),
    st.integers(-1, 1),
    st.integers(0, 3),
    st.integers(1, 2),
    st.sampled_from((100, 300)),
    st.sampled_from(("red", "blue")),
)


def build_jobs(specs: list[tuple]) -> list[ClassAd]:
    return [
        make_job(owner, cluster, 0)
        .set(
            JobPrio=prio,
            QDate=1_000 + qdate,
            RequestCpus=cpus,
            RequestMemory=memory,
            Color=color,
            Requirements=Expr(FITS),
        )
        .build()
        for cluster, (owner, prio, qdate, cpus, memory, color) in enumerate(specs, 1)
    ]


def indexed(jobs: list[ClassAd]) -> AutoclusterIndex:
    index = AutoclusterIndex()
    for job in jobs:
        index.add(_name(job), job, f"{job['Owner']}@{DOMAIN}")
    return index


def _name(job: ClassAd) -> str:
    return f"{job['ClusterId']}.{job['ProcId']}"


def check_requests(index: AutoclusterIndex, jobs: list[ClassAd], significant: tuple) -> None:
    """The requests of ``index`` against the jobs it holds, grouped by ``Signatures``."""
    queues = index.requests(significant)
    fresh = Signatures(significant)
    by_submitter = Counter(f"{j['Owner']}@{DOMAIN}" for j in jobs)
    assert {s: q.idle_jobs for s, q in queues.items()} == dict(by_submitter)
    for submitter, queue in queues.items():
        own = [j for j in jobs if f"{j['Owner']}@{DOMAIN}" == submitter]
        groups: dict[tuple, list[ClassAd]] = {}
        for job in own:
            groups.setdefault(fresh.signature(job), []).append(job)
        assert len(queue.requests) == len(groups)  # one request per autocluster
        firsts = []
        for request in queue.requests:
            (job,) = request.jobs
            members = groups[fresh.signature(job)]
            assert request.count == len(members)
            first = min(members, key=schedd_order)
            assert job is first  # the group's first in schedd order stands for it
            assert index.pick(submitter, request.autocluster) == _name(first)
            for member in members:
                assert index.autocluster_of(_name(member)) == request.autocluster
            firsts.append(schedd_order(job))
        assert firsts == sorted(firsts)
        cpus = sum(j["RequestCpus"] for j in own)
        assert queue.weighted_idle == cpus
    ids = {index.autocluster_of(_name(j)) for j in jobs}
    assert len(ids) == len({fresh.signature(j) for j in jobs})  # no two share across groups


@settings(max_examples=EXAMPLES * 4 // 10, deadline=None)
@given(st.lists(job_specs, max_size=25))
def test_requests_count_every_idle_job_once_in_its_autocluster(specs):
    jobs = build_jobs(specs)
    check_requests(indexed(jobs), jobs, SIGNIFICANT)


@settings(max_examples=EXAMPLES * 4 // 10, deadline=None)
@given(st.lists(job_specs, max_size=25), st.data())
def test_discards_and_new_jobs_keep_the_requests_exact(specs, data):
    jobs = build_jobs(specs)
    index = indexed(jobs)
    index.requests(SIGNIFICANT)  # grouped once
    gone = data.draw(st.sets(st.sampled_from([_name(j) for j in jobs]))) if jobs else set()
    for name in gone:
        index.discard(name)
    index.discard("99.0")  # never idle: nothing happens
    left = [j for j in jobs if _name(j) not in gone]
    assert len(index) == len(left)
    for name in gone:
        assert index.autocluster_of(name) is None
    check_requests(index, left, SIGNIFICANT)


@settings(max_examples=EXAMPLES * 4 // 10, deadline=None)
@given(st.lists(job_specs, min_size=1, max_size=25))
def test_new_significant_attributes_regroup_every_job(specs):
    jobs = build_jobs(specs)
    index = indexed(jobs)
    check_requests(index, jobs, ("RequestCpus",))
    check_requests(index, jobs, ("RequestCpus", "Color"))  # finer: Color splits groups
    check_requests(index, jobs, ())  # only the jobs' own Requirements' reach
    check_requests(index, jobs, SIGNIFICANT)


@settings(max_examples=EXAMPLES * 4 // 10, deadline=None)
@given(st.lists(job_specs, min_size=1, max_size=25), st.lists(job_specs, max_size=10))
def test_jobs_grouped_ahead_are_the_requests_a_cycle_reads(specs, later):
    jobs = build_jobs(specs)
    index = indexed(jobs)
    index.group(SIGNIFICANT)  # a submission, grouped as soon as it is queued
    assert all(index.autocluster_of(_name(j)) is not None for j in jobs)
    more = [j.copy() for j in build_jobs(later)]
    for number, job in enumerate(more, len(jobs) + 1):
        job["ClusterId"] = number
        index.add(_name(job), job, f"{job['Owner']}@{DOMAIN}")
    check_requests(index, jobs + more, SIGNIFICANT)  # the same list: only the new grouped
    check_requests(index, jobs + more, ("RequestCpus",))  # another list: all again


def test_equal_jobs_share_an_autocluster_and_a_difference_splits_them():
    same = [make_job("alice", c).set(RequestMemory=100, Foo=1).build() for c in (1, 2)]
    other = make_job("alice", 3).set(RequestMemory=200, Foo=1).build()
    unimportant = make_job("alice", 4).set(RequestMemory=100, Foo=2).build()
    index = indexed([*same, other, unimportant])
    queues = index.requests(("RequestMemory",))
    # 1.0, 2.0 and 4.0 differ only in Foo, which nothing reads: one request of three
    assert [(r.jobs[0]["ClusterId"], r.count) for r in queues[f"alice@{DOMAIN}"].requests] == [
        (1, 3),
        (3, 1),
    ]
    assert index.autocluster_of("1.0") == index.autocluster_of("4.0")
    assert index.autocluster_of("1.0") != index.autocluster_of("3.0")
    queues = index.requests(("RequestMemory", "Foo"))  # now Foo matters
    assert [(r.jobs[0]["ClusterId"], r.count) for r in queues[f"alice@{DOMAIN}"].requests] == [
        (1, 2),
        (3, 1),
        (4, 1),
    ]


def test_each_job_alone_gives_one_request_per_job():
    jobs = [make_job("alice", c).build() for c in (1, 2, 3)]
    index = AutoclusterIndex(each_job_alone=True)  # NEGOTIATE_ALL_JOBS_IN_CLUSTER
    for job in jobs:
        index.add(_name(job), job, f"alice@{DOMAIN}")
    requests = index.requests(()).get(f"alice@{DOMAIN}").requests
    assert [(r.jobs[0]["ClusterId"], r.count) for r in requests] == [(1, 1), (2, 1), (3, 1)]


def test_pick_gives_the_first_idle_job_and_follows_discards():
    jobs = [make_job("alice", c).build() for c in (1, 2, 3)]
    index = indexed(jobs)
    (request,) = index.requests(SIGNIFICANT)[f"alice@{DOMAIN}"].requests
    cluster = request.autocluster
    assert index.pick(f"alice@{DOMAIN}", cluster) == "1.0"
    index.discard("1.0")  # it started
    assert index.pick(f"alice@{DOMAIN}", cluster) == "2.0"  # no longer the representative
    index.add("1.0", jobs[0], f"alice@{DOMAIN}")  # vacated: idle again, not grouped yet
    assert index.pick(f"alice@{DOMAIN}", cluster) == "2.0"
    index.requests(SIGNIFICANT)
    assert index.pick(f"alice@{DOMAIN}", cluster) == "1.0"
    for name in ("1.0", "2.0", "3.0"):
        index.discard(name)
    assert index.pick(f"alice@{DOMAIN}", cluster) is None
    assert index.pick(f"bob@{DOMAIN}", cluster) is None
    assert index.requests(SIGNIFICANT) == {}


def test_qedit_of_job_prio_reorders_requests_and_picks():
    index = AutoclusterIndex()
    queue = JobQueue(DOMAIN, index)
    small = [make_job("alice", c).set(RequestMemory=100).build() for c in (1, 2)]
    big = make_job("alice", 3).set(RequestMemory=900).build()
    queue.add([*small, big])
    requests = index.requests(SIGNIFICANT)[f"alice@{DOMAIN}"].requests
    assert [r.jobs[0]["ClusterId"] for r in requests] == [1, 3]
    small_cluster = requests[0].autocluster
    # condor_qedit 2.0 JobPrio 5: 2.0 is now its autocluster's first, and that
    # autocluster still comes first; then 3.0 goes above both
    queue.jobs["2.0"]["JobPrio"] = 5
    queue.edited("2.0")
    requests = index.requests(SIGNIFICANT)[f"alice@{DOMAIN}"].requests
    assert [(r.jobs[0]["ClusterId"], r.count) for r in requests] == [(2, 2), (3, 1)]
    assert index.pick(f"alice@{DOMAIN}", small_cluster) == "2.0"
    queue.jobs["3.0"]["JobPrio"] = 10
    queue.edited("3.0")
    requests = index.requests(SIGNIFICANT)[f"alice@{DOMAIN}"].requests
    assert [(r.jobs[0]["ClusterId"], r.count) for r in requests] == [(3, 1), (2, 2)]
    queue.jobs["2.0"]["JobPrio"] = -1  # back below 1.0
    queue.edited("2.0")
    assert index.pick(f"alice@{DOMAIN}", small_cluster) == "1.0"  # pending: regrouped on ask
    index.requests(SIGNIFICANT)
    assert index.pick(f"alice@{DOMAIN}", small_cluster) == "1.0"


def test_a_job_moved_down_by_qedit_is_not_picked_by_its_old_place():
    index = AutoclusterIndex()
    queue = JobQueue(DOMAIN, index)
    queue.add([make_job("alice", c).set(JobPrio=p).build() for c, p in ((1, 5), (2, 1), (3, 0))])
    (request,) = index.requests(SIGNIFICANT)[f"alice@{DOMAIN}"].requests
    queue.jobs["2.0"]["JobPrio"] = -1  # condor_qedit 2.0 JobPrio -1: now last
    queue.edited("2.0")
    index.requests(SIGNIFICANT)
    queue.begin("1.0", "slot1@a", 100.0)  # the first starts
    assert index.pick(f"alice@{DOMAIN}", request.autocluster) == "3.0"
    (request,) = index.requests(SIGNIFICANT)[f"alice@{DOMAIN}"].requests
    assert (request.jobs[0]["ClusterId"], request.count) == (3, 2)


# -- differential: counted requests against every job ------------------------------------
slot_specs = st.lists(
    st.tuples(st.integers(1, 4), st.sampled_from((128, 512, 2048))), min_size=1, max_size=10
)
# per submitter: distinct kinds of job, (RequestCpus, RequestMemory), each with a count
kinds = st.tuples(st.integers(1, 3), st.sampled_from((100, 400, 1000)))
plan = st.lists(
    st.tuples(kinds, st.integers(1, 4)), min_size=1, max_size=3, unique_by=lambda p: p[0]
)
submitter_plans = st.fixed_dictionaries({owner: plan for owner in OWNERS})


def make_slots(specs: list[tuple[int, int]]) -> list[ClassAd]:
    return [
        make_slot(f"slot1@node{i}").cpus(cpus).memory(memory).build()
        for i, (cpus, memory) in enumerate(specs)
    ]


def negotiate(slots: list[ClassAd], jobs: list[ClassAd], queues=None) -> CycleResult:
    view = Accountant(AccountantPolicy()).view().__getitem__
    snapshot = PoolSnapshot(slots, [] if queues is not None else jobs, queues=queues)
    result = run_cycle(snapshot, view, PARAMS, now=NOW)
    return result


def counted_queues(slots: list[ClassAd], jobs: list[ClassAd]):
    index = indexed(jobs)
    return index.requests(significant_of(slots, PARAMS, NOW))


@settings(max_examples=EXAMPLES * 3 // 10, deadline=None)
@given(slot_specs, submitter_plans)
def test_counted_requests_match_as_many_jobs_as_the_jobs_themselves(slot_specs, plans):
    """Each submitter's jobs in autocluster-contiguous schedd order: both forms of the
    cycle see the same requests, so they match the same number of jobs per submitter."""
    jobs = []
    cluster = 0
    for owner, plan in plans.items():
        for group, ((cpus, memory), count) in enumerate(plan):
            for _ in range(count):
                cluster += 1
                jobs.append(
                    make_job(owner, cluster)
                    .set(
                        QDate=1_000 + group,  # a kind's jobs come together in schedd order
                        RequestCpus=cpus,
                        RequestMemory=memory,
                        Requirements=Expr(FITS),
                    )
                    .build()
                )
    slots = make_slots(slot_specs)
    by_jobs = negotiate(slots, jobs)
    by_requests = negotiate(slots, jobs, counted_queues(slots, jobs))
    assert Counter(m.submitter for m in by_requests.matches) == Counter(
        m.submitter for m in by_jobs.matches
    )
    assert sorted(m.slot for m in by_requests.matches) == sorted(m.slot for m in by_jobs.matches)


@settings(max_examples=EXAMPLES * 3 // 10, deadline=None)
@given(slot_specs, st.lists(job_specs, max_size=20))
def test_counted_requests_never_match_more_jobs_than_an_autocluster_has(slot_specs, specs):
    jobs = build_jobs(specs)
    slots = make_slots(slot_specs)
    queues = counted_queues(slots, jobs)
    counts = {_name(r.jobs[0]): r.count for q in queues.values() for r in q.requests}
    result = negotiate(slots, jobs, queues)
    matched = Counter(m.job for m in result.matches)
    for job, times in matched.items():
        assert times <= counts[job]
    assert len({m.slot for m in result.matches}) == len(result.matches)  # a slot once
    idle = Counter(f"{j['Owner']}@{DOMAIN}" for j in jobs)
    for submitter, times in Counter(m.submitter for m in result.matches).items():
        assert times <= idle[submitter]


@settings(max_examples=EXAMPLES * 4 // 10, deadline=None)
@given(st.lists(job_specs, min_size=1, max_size=25), st.data())
def test_members_read_each_autocluster_in_schedd_order_through_comings_and_goings(specs, data):
    """What the simulator reads (requests with ``members``): every idle job of the
    autocluster in schedd order, however far a cycle reads, after jobs left, came back
    (vacated) and were read part of the way before."""
    jobs = build_jobs(specs)
    names = [_name(j) for j in jobs]
    index = indexed(jobs)
    idle = set(names)
    for _ in range(3):
        queues = index.requests(SIGNIFICANT, members=True)
        for submitter, queue in queues.items():
            for request in queue.requests:
                assert request.count is None and request.members is not None
                members = request.members
                expected = sorted(
                    (
                        j
                        for j in jobs
                        if _name(j) in idle
                        and index.autocluster_of(_name(j)) == request.autocluster
                        and f"{j['Owner']}@{DOMAIN}" == submitter
                    ),
                    key=schedd_order,
                )
                depth = data.draw(st.integers(0, len(members)))
                assert [members[k] for k in range(depth)] == expected[:depth]  # part way
                assert list(members) == expected  # all of it
                assert request.remaining == len(expected)
        left = data.draw(st.sets(st.sampled_from(sorted(idle)))) if idle else set()
        back = data.draw(st.sets(st.sampled_from(names))) - idle
        for name in left:
            index.discard(name)
        for job in jobs:
            if _name(job) in back:
                index.add(_name(job), job, f"{job['Owner']}@{DOMAIN}")
        idle = (idle - left) | back
