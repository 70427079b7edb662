"""The slot ledger (negotiator/ledger.py) gives run_cycle the same decisions as reading
every slot: random pools of free and busy slots, random policies, two cycles with the
first one's matches carried out in between; matches, rejections (reasons included),
usage and the cycle's statistics (spins of the pie, jobs considered) must agree to the
last bit. Free slots are mostly copies of one another (slot_copies.py), often more of
them than idle jobs, and some jobs read what copies differ in."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builders import make_job, make_slot
from cycles import NOW, PARAMS, ranked_accountant
from fairpool.accounting.accountant import Accountant
from fairpool.classad import ClassAd, Expr
from fairpool.negotiator import run_cycle
from fairpool.negotiator.concurrency import LimitConfig
from fairpool.negotiator.ledger import _exact
from fairpool.negotiator.sums import exact_sum
from fairpool.negotiator.vector_lists import VectorLists
from fairpool.sim.negotiation import negotiate
from fairpool.sim.pool import Pool

USERS = ("ann", "bob", "cat")
REQUIREMENTS = (
    "TARGET.RemoteUserPrio =?= UNDEFINED",
    "TARGET.RemoteUserPrio =?= UNDEFINED || TARGET.RemoteUserPrio < 1000",
    "TARGET.Memory > 1024",
    'TARGET.Machine != "host1"',  # what copies differ in
    "TARGET.Slot1_RemoteUserPrio =?= UNDEFINED",  # what a cycle puts on free slots too
    "TARGET.Near",  # a slot attribute that reads one of them
    'eval(strcat("Mem", "ory")) > 1024',  # a name computed
    "MY.SubmitterUserPrio < 5",  # what a cycle sets on the job (only when read)
)
RANKS = ("TARGET.Memory", 'TARGET.Name == "slot2@host3"', "-TARGET.EnteredCurrentState")
POLICIES = (None, "False", "True", "RemoteUserPrio > SubmitterUserPrio * 1.2")


@st.composite
def pools(draw):
    slots = []
    for n in range(draw(st.integers(1, 24))):
        slot = make_slot(f"slot{1 + n % 2}@host{n // 2}").memory(draw(st.sampled_from([512, 4096])))
        slot.set(Near=Expr('Machine == "host2"'), EnteredCurrentState=draw(st.integers(0, 2)))
        if draw(st.booleans()):
            user = draw(st.sampled_from(USERS))
            rank = draw(st.sampled_from([0.0, 0.0, 5.0, -1.0]))
            slot.claimed_by(f"{user}@d", current_rank=rank)
            if draw(st.booleans()):
                slot.set(ConcurrencyLimits=draw(st.sampled_from(["lic:1", "lic:0.5", "db:2"])))
        if draw(st.integers(0, 5)) == 0:
            slot.rank(draw(st.sampled_from(["TARGET.ImageSize", 'Owner == "ann" ? 10 : 0'])))
        if draw(st.integers(0, 7)) == 0:
            slot.start("TARGET.SubmitterUserResourcesInUse < 2")
        slot.set(SlotWeight=draw(st.sampled_from([1.0, 0.1, 2.5])))
        slots.append(slot.build())
    jobs = []
    for cluster in range(1, draw(st.integers(1, draw(st.sampled_from([3, 12])))) + 1):
        owner = draw(st.sampled_from(USERS))
        job = make_job(owner, cluster).set(
            RequestMemory=draw(st.sampled_from([256, 2048])), ImageSize=cluster
        )
        if draw(st.integers(0, 3)) == 0:
            job.set(ConcurrencyLimits="lic")
        if draw(st.integers(0, 3)) == 0:  # reads what a cycle puts on busy slots
            job.requirements(draw(st.sampled_from(REQUIREMENTS)))
        if draw(st.integers(0, 5)) == 0:
            job.rank(draw(st.sampled_from(RANKS)))
        jobs.append(job.build())
    policy = draw(st.sampled_from(POLICIES))
    params = PARAMS.with_(
        preemption_requirements=Expr(policy) if policy else None,
        consider_preemption=draw(st.booleans()),
        concurrency=LimitConfig(explicit={"lic": 2.0, "db": 3.0}),
    )
    return slots, jobs, params


def _accountant() -> Accountant:
    return ranked_accountant(USERS)


def _decisions(result):
    return (
        [(m.job, m.slot, m.reason, m.preempting, m.cost) for m in result.matches],
        [(r.job, r.reason) for r in result.rejections],
        result.usage,
        result.stats,  # spins, jobs considered, candidates: the pie ran the same way
    )


@settings(max_examples=300)
@given(pools(), st.sampled_from((0, 2, 16)), st.sampled_from((0, 16)))
def test_the_ledger_decides_as_the_plain_cycle(pool_spec, probe, scalar_rows):
    """``probe``: standing slots policy_blocks tries one at a time (0: it evaluates them
    all as vectors); ``scalar_rows``: free slots read on the scalar path (0: never)."""
    slots, jobs, params = pool_spec
    default, VectorLists.scalar_rows = VectorLists.scalar_rows, scalar_rows
    try:
        _kept_decides_as_plain(Pool(slots, jobs, "d"), params, probe)
    finally:
        VectorLists.scalar_rows = default


def _kept_decides_as_plain(pool: Pool, params, probe: int, steps: int = 2) -> None:
    """Each cycle from the ledger decides as the plain cycle over the same pool."""
    view = _accountant().view().__getitem__
    pool.ledger.probe = probe
    for step in range(steps):
        now = NOW + 60 * step
        plain = run_cycle(pool.snapshot(now, params), view, params, now=now)
        kept = run_cycle(pool.kept_snapshot(params, now), view, params, now=now)
        assert _decisions(kept) == _decisions(plain)
        pool.apply(plain, now)


def test_exact_sums_do_not_depend_on_order_or_grouping():
    weights = [0.1, 2.5, 1e-17, 3.0, 0.7, 1e16, -1e16]
    whole = exact_sum(weights)
    for cut in range(len(weights)):
        base = sum((Fraction(w) for w in weights[:cut]), Fraction(0))
        assert exact_sum(weights[cut:], base) == whole
        assert exact_sum(list(reversed(weights[cut:])), base) == whole


@settings(max_examples=50)
@given(st.lists(st.tuples(st.integers(0, 29), st.sampled_from(["claim", "free", "drop"]))))
def test_the_kept_order_is_the_sorted_order(steps):
    """Active slots kept in collector order as they change one by one (or sorted again
    after many changes) are in the order a fresh sort gives."""
    slots = [make_slot(f"slot1@host{n}").build() for n in range(30)]
    pool = Pool(slots, [], "d")
    ledger = pool.keep_ledger(PARAMS, NOW)
    ledger.slots(NOW)
    for n, action in steps:
        name = f"slot1@host{n}"
        if action == "drop":
            pool.drop([name])
        elif action == "claim" and name in pool.slot_by_name:
            pool.slot_by_name[name].update({"State": "Claimed", "RemoteUser": "ann@d"})
            pool.touch([name])
        elif name in pool.slot_by_name:
            pool.slot_by_name[name].update({"State": "Unclaimed"})
            pool.touch([name])
        else:
            pool.add_slots([make_slot(name).build()])
        pool.keep_ledger(PARAMS, NOW)
        fresh = sorted(ledger.active.values(), key=lambda entry: entry.seq)
        assert ledger._ordered() == fresh


def test_exact_sums_of_whole_weights_without_fractions():
    counts = {1.0: 3, 2: 2, 0.5: 4, 1e300: 1, -3.0: 1}
    expected = sum((Fraction(v) * n for v, n in counts.items()), Fraction(0))
    assert _exact(counts) == expected
    assert exact_sum([0.25], expected) == float(expected + Fraction(0.25))
    whole = {1.0: 3, 2: 2, 1e300: 1, 2.0**60 + 2**8: 1, -3.0: 1}
    total = _exact(whole)
    assert type(total) is int  # no Fraction made
    assert total == sum((Fraction(v) * n for v, n in whole.items()), Fraction(0))
    for values in ([], [0.25], [1e-17, 3.0], [-1e300]):
        assert exact_sum(values, total) == exact_sum(values, Fraction(total))
        assert exact_sum(values, 0) == exact_sum(values, Fraction(0))


TELLING = (  # job expressions that can tell copies apart, and one that cannot
    ("requirements", 'TARGET.Machine != "host1"'),
    ("requirements", "TARGET.Slot1_RemoteUserPrio =?= UNDEFINED"),
    ("requirements", "TARGET.Near"),
    ("requirements", 'eval(strcat("Mach", "ine")) != "host1"'),
    ("rank", 'TARGET.Name == "slot2@host3"'),
    ("rank", "-TARGET.EnteredCurrentState"),
    ("rank", "TARGET.Memory"),
)


@st.composite
def copy_pools(draw):
    """Many free copies of two kinds on two-slot machines, a few busy slots, few jobs."""
    slots = []
    for n in range(draw(st.integers(8, 30))):
        slot = make_slot(f"slot{1 + n % 2}@host{n // 2}").memory(4096 if n % 3 else 512)
        slot.set(Near=Expr('Machine == "host2"'), EnteredCurrentState=draw(st.integers(0, 3)))
        if draw(st.integers(0, 4)) == 0:
            slot.claimed_by(f"{draw(st.sampled_from(USERS))}@d")
        slots.append(slot.build())
    jobs = []
    for cluster in range(1, draw(st.integers(1, 5)) + 1):
        job = make_job(draw(st.sampled_from(USERS)), cluster)
        if draw(st.booleans()):
            which, expr = draw(st.sampled_from(TELLING))
            job.requirements(expr) if which == "requirements" else job.rank(expr)
        jobs.append(job.build())
    return slots, jobs


@settings(max_examples=200)
@given(copy_pools())
def test_free_copies_are_given_as_the_queue_needs(pool_spec):
    """Of each kind of free copy a cycle is given as many as its idle jobs (the first in
    collector order), all of them when a job can tell them apart, and decides as the
    plain cycle; when no job can, it is given at most as many of each kind (SlotID and
    Memory tell them apart here) as there are jobs."""
    slots, jobs = pool_spec
    params = PARAMS.with_(preemption_requirements=Expr("False"))
    pool, accountant = Pool(slots, jobs, "d"), _accountant()
    view = accountant.view().__getitem__
    plain = run_cycle(pool.snapshot(NOW, params), view, params, now=NOW)
    snapshot = pool.kept_snapshot(params, NOW)
    kept = run_cycle(snapshot, view, params, now=NOW)
    assert _decisions(kept) == _decisions(plain)
    free = [s for s in slots if s.eval("State") == "Unclaimed"]
    kinds = len({(s.eval("SlotID"), s.eval("Memory")) for s in free})
    if all(j.get("Requirements") is True and j.get("Rank") == 0.0 for j in jobs):
        assert len(snapshot.standing.slots) == sum(
            min(len(jobs), sum(1 for s in free if (s.eval("SlotID"), s.eval("Memory")) == k))
            for k in {(s.eval("SlotID"), s.eval("Memory")) for s in free}
        )
        assert len(snapshot.standing.slots) <= kinds * len(jobs)


@pytest.mark.parametrize(
    "which, expr",
    [
        ("requirements", 'TARGET.Machine == "host3"'),
        ("requirements", 'eval(strcat("Mach", "ine")) == "host3"'),
        ("requirements", "TARGET.Near"),
        ("requirements", "TARGET.Slot1_RemoteUserPrio =?= UNDEFINED"),
        ("rank", 'TARGET.Name == "slot2@host3"'),
        ("rank", "TARGET.EnteredCurrentState"),
    ],
)
def test_a_job_that_tells_copies_apart_is_given_them_all(which, expr):
    """Only the last free copy suits the job (by its name, a name computed, an attribute
    that reads the machine, a cross-slot priority, or when it last changed state): the
    cycle is given every copy, and the job gets that one."""
    slots = []
    for host in range(4):
        first = make_slot(f"slot1@host{host}").set(Near=Expr('Machine == "host3"'))
        slots.append((first.claimed_by("ann@d") if host < 3 else first).build())
        second = make_slot(f"slot2@host{host}").set(Near=Expr('Machine == "host3"'))
        slots.append(second.set(EnteredCurrentState=host).build())
    job = make_job("bob", 1).requirements("TARGET.SlotID == 2")
    if which == "requirements":
        job.requirements(f"TARGET.SlotID == 2 && {expr}")
    else:
        job.rank(expr)
    pool, accountant = Pool(slots, [job.build()], "d"), _accountant()
    view = accountant.view().__getitem__
    plain = run_cycle(pool.snapshot(NOW, PARAMS), view, PARAMS, now=NOW)
    kept = run_cycle(pool.kept_snapshot(PARAMS, NOW), view, PARAMS, now=NOW)
    assert _decisions(kept) == _decisions(plain)
    assert [m.slot for m in kept.matches] == ["slot2@host3"]


def test_slots_of_one_shape_are_read_alike_only_when_nothing_read_is_volatile():
    """Busy slots alike but for the job they run share one reading (SlotLedger._entry);
    a slot whose weight reads its JobId is read for itself."""
    slots = []
    for n, job in enumerate(["1.0", "2.0", "3.0", "4.0"]):
        slot = make_slot(f"slot1@host{n}").claimed_by("ann@d").set(JobId=job, JobStart=n)
        if n >= 2:
            slot.set(SlotWeight=Expr('JobId == "3.0" ? 1 : 3'))
        slots.append(slot.build())
    slots.append(make_slot("slot1@host9").build())
    params = PARAMS.with_(preemption_requirements=Expr("False"))
    pool, accountant = Pool(slots, [make_job("bob", 1).build()], "d"), _accountant()
    view = accountant.view().__getitem__
    plain = run_cycle(pool.snapshot(NOW, params), view, params, now=NOW)
    kept = run_cycle(pool.kept_snapshot(params, NOW), view, params, now=NOW)
    assert _decisions(kept) == _decisions(plain)
    assert kept.usage["ann@d"].weight == 1 + 1 + 1 + 3
    assert len(pool.ledger._shapes) == 2  # the first two share one; the others none


@settings(max_examples=150)
@given(pools(), st.lists(st.integers(0, 40), min_size=4, max_size=4))
def test_values_kept_by_slot_shape_decide_as_values_kept_by_cells(pool_spec, finishing):
    """Cycles over the ledger (whose slots carry their shape, kept_values.py finds a fresh
    row's values by it) and plain cycles (every row found by its cells), each pool with
    its own columns, on the vector path, jobs finishing between cycles so that freed
    slots of known shapes come back: the same decisions at every cycle."""
    slots, jobs, params = pool_spec
    runs = []
    for _ in range(2):
        pool = Pool([s.copy() for s in slots], [j.copy() for j in jobs], "d")
        runs.append((pool, _accountant()))
    default, VectorLists.scalar_rows = VectorLists.scalar_rows, 0
    try:
        for step, finish in enumerate(finishing):
            now = NOW + 60 * step
            results = [
                negotiate(pool, accountant, params, now, kept=kept)
                for (pool, accountant), kept in zip(runs, (True, False), strict=True)
            ]
            assert _decisions(results[0]) == _decisions(results[1])
            for (pool, _), result in zip(runs, results, strict=True):
                pool.apply(result, now)
                running = sorted(pool.job_on_slot.values())
                for name in running[: finish % (len(running) + 1)]:
                    pool.finish(name)
    finally:
        VectorLists.scalar_rows = default


def _kept_and_plain_decide_alike(slots, jobs, params, steps=16):
    """Cycles over the ledger (slots read by shape) and plain cycles, each pool with its
    columns and kept values, on the vector path, two slots freed between cycles."""
    runs = [(Pool([s.copy() for s in slots], [j.copy() for j in jobs], "d"), _accountant())]
    runs.append((Pool([s.copy() for s in slots], [j.copy() for j in jobs], "d"), _accountant()))
    default, VectorLists.scalar_rows = VectorLists.scalar_rows, 0
    try:
        for step in range(steps):
            now = NOW + 60 * step
            results = []
            for (pool, accountant), kept in zip(runs, (True, False), strict=True):
                running = sorted(pool.job_on_slot.items())  # by slot
                for _, name in running[step % 5 : step % 5 + 2]:
                    pool.finish(name)
                results.append(negotiate(pool, accountant, params, now, kept=kept))
                pool.apply(results[-1], now)
            assert _decisions(results[0]) == _decisions(results[1])
    finally:
        VectorLists.scalar_rows = default


def _jobs_ranking_by(rank: str, count: int = 120) -> list:
    jobs = [make_job("ann", cluster).build() for cluster in range(1, count + 1)]
    ranked = Expr(rank)  # one expression for all, as a submission's jobs share theirs
    for job in jobs:
        job.insert_expr("Rank", ranked)
    return jobs


@pytest.mark.parametrize("rank", ["TARGET.EnteredCurrentState", "-TARGET.EnteredCurrentState"])
def test_a_job_that_reads_what_slots_of_one_shape_differ_in_is_not_given_values_by_shape(rank):
    """Freed slots of one shape differ in when they changed state: a job ranking by it
    must see each one's own (kept_values.py reads their cells, not their shape)."""
    slots = [make_slot(f"slot1@host{n}").build() for n in range(24)]
    params = PARAMS.with_(preemption_requirements=Expr("False"))
    _kept_and_plain_decide_alike(slots, _jobs_ranking_by(rank), params)


def test_a_job_that_reads_a_cross_slot_priority_is_not_given_values_by_shape():
    """Free slots of one shape differ in the priority a cycle puts on them when a user
    runs on their machine (Slot1_RemoteUserPrio): a job ranking by it must see each
    one's own. Here slot 1 of even machines runs bob's job, of odd ones never runs."""
    slots = []
    for n in range(12):
        first = make_slot(f"slot1@host{n}")
        slots.append((first.claimed_by("bob@d") if n % 2 == 0 else first.start("False")).build())
        slots.append(make_slot(f"slot2@host{n}").set(SlotID=2).build())
    params = PARAMS.with_(preemption_requirements=Expr("False"), cross_slot_prios=True)
    jobs = _jobs_ranking_by("TARGET.Slot1_RemoteUserPrio =?= UNDEFINED")
    _kept_and_plain_decide_alike(slots, jobs, params)


# -- two cases the differential tests above found, kept as plain tests --------------------
# The slot ledger decides as the plain cycle where slots read what a cycle sets on a job
# or on a machine's slots (two cases hypothesis found in test_ledger.py's differential tests):
#
# * slots whose START reads ``SubmitterUserResourcesInUse``, which grows as a submitter is
#   matched within its turn: the plain cycle gives a job the reasons of the match list made
#   at the turn's first job of its autocluster, so such a slot is never kept standing (nor
#   as a copy): the kept cycle lists it as the plain one does;
# * a job reading ``Slot1_RemoteUserPrio``, rejected beside a busy slot: that slot's
#   cross-slot priorities come from every slot of its machine, the cycle's own included.

FREE = 'State = "Unclaimed"; Activity = "Idle"; CurrentRank = -1.0'
BUSY = (
    'State = "Claimed"; Activity = "Busy"; CurrentRank = 0.0; '
    'RemoteUser = "{0}@d"; RemoteOwner = "{0}@d"'
)
READS_USAGE = "TARGET.SubmitterUserResourcesInUse < 2"
NO_USER = "TARGET.RemoteUserPrio is undefined"


def _slot(host: str, slot_id: int, state: str, start: str = READS_USAGE, rank: str = "0.0"):
    return ClassAd(
        f'[ MyType = "Machine"; Name = "slot{slot_id}@{host}"; Machine = "{host}"; '
        f'SlotID = {slot_id}; SlotType = "Static"; Cpus = 1; Memory = 512; Disk = 1000000; '
        f'Arch = "X86_64"; OpSys = "LINUX"; START = {start}; Requirements = START; '
        f"Rank = {rank}; {state}; EnteredCurrentState = 0; SlotWeight = 1.0 ]"
    )


def _job(owner: str, cluster: int, requirements: str, licensed: bool = True, rank: str = "0.0"):
    limits = '; ConcurrencyLimits = "lic"' if licensed else ""
    return ClassAd(
        f'[ MyType = "Job"; Owner = "{owner}"; ClusterId = {cluster}; ProcId = 0; '
        f"JobStatus = 1; JobPrio = 0; QDate = {1_000_000 + cluster}; RequestCpus = 1; "
        f"RequestMemory = 256; Requirements = {requirements}; Rank = {rank}; "
        f"ImageSize = {cluster}{limits} ]"
    )


def _params(evaluator: str):
    return PARAMS.with_(
        preemption_requirements=Expr("false"),
        consider_preemption=True,
        concurrency=LimitConfig(explicit={"lic": 2.0, "db": 3.0}),
        match_evaluator=evaluator,
    )


@pytest.fixture
def vector_always(monkeypatch):
    monkeypatch.setattr(VectorLists, "scalar_rows", 0)


@pytest.mark.parametrize("evaluator", ["vector", "scalar"])
def test_slots_reading_the_submitters_usage_are_listed_as_the_plain_cycle_lists_them(
    evaluator, vector_always
):
    slots = [_slot("host0", 1, FREE), _slot("host0", 2, FREE)]
    users = {"host1": ("ann", "ann"), "host2": ("ann", "ann"), "host3": ("cat",)}
    slots += [
        _slot(host, k, BUSY.format(user))
        for host, held in users.items()
        for k, user in enumerate(held, 1)
    ]
    jobs = [
        _job("ann", 1, NO_USER),
        _job("ann", 2, NO_USER),
        _job("bob", 3, NO_USER),
        _job("bob", 4, "true", licensed=False),
        _job("ann", 5, NO_USER),
        _job("ann", 6, "true"),
        _job("bob", 7, "true", licensed=False),
    ]
    params = _params(evaluator)
    runs = [(Pool([s.copy() for s in slots], [j.copy() for j in jobs], "d"), _accountant())]
    runs.append((Pool([s.copy() for s in slots], [j.copy() for j in jobs], "d"), _accountant()))
    for step in range(2):
        now = NOW + 60 * step
        kept, plain = (
            negotiate(pool, accountant, params, now, kept=k)
            for (pool, accountant), k in zip(runs, (True, False), strict=True)
        )
        assert _decisions(kept) == _decisions(plain)
        for (pool, _), result in zip(runs, (kept, plain), strict=True):
            pool.apply(result, now)


def test_a_busy_slots_cross_slot_priorities_count_the_cycles_slots_of_its_machine(
    vector_always,
):
    slots = [
        _slot("host0", 1, FREE, rank="TARGET.ImageSize"),  # never standing: a rank to match
        _slot("host0", 2, FREE, start="true"),
        _slot("host1", 1, BUSY.format("ann")),
    ]
    jobs = [
        _job("ann", 1, NO_USER),
        _job("ann", 2, "TARGET.Slot1_RemoteUserPrio is undefined", False, "TARGET.Memory"),
        _job("bob", 3, "true"),
    ]
    _kept_decides_as_plain(Pool(slots, jobs, "d"), _params("vector"), probe=0)  # as vectors
