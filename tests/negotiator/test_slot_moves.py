"""The pool's moves (slot_shapes.py): a ledger told how each slot changed reads the same
as a ledger that reads every slot afresh, and finds each slot of the shape its ad has,
over random runs of starts, completions, claims reused, accounting groups, concurrency
limits and slot ranks; and a told move spares finding the shape of the ad."""

from hypothesis import given, settings
from hypothesis import strategies as st

from builders import make_job, make_slot
from cycles import NOW, PARAMS, ranked_accountant
from fairpool.accounting.accountant import Accountant
from fairpool.classad import Expr
from fairpool.negotiator import ledger as ledger_module
from fairpool.negotiator import run_cycle
from fairpool.negotiator.concurrency import LimitConfig
from fairpool.negotiator.ledger import SlotLedger
from fairpool.negotiator.slot_shapes import shape_key
from fairpool.sim.pool import Pool

USERS = ("ann", "bob", "cat")


def _accountant() -> Accountant:
    return ranked_accountant(USERS)


@st.composite
def runs(draw):
    """Slots of a few shapes, jobs that hold limits, run under groups or rank the slots
    their own way; then, per step, how many running jobs end."""
    slots = []
    for n in range(draw(st.integers(2, 16))):
        slot = make_slot(f"slot{1 + n % 2}@host{n // 2}").memory(draw(st.sampled_from([512, 4096])))
        if draw(st.integers(0, 3)) == 0:
            slot.rank(draw(st.sampled_from(["TARGET.ImageSize", 'Owner == "ann" ? 10 : 0'])))
        slots.append(slot.build())
    jobs = []
    for cluster in range(1, draw(st.integers(1, 24)) + 1):
        job = make_job(draw(st.sampled_from(USERS)), cluster).set(ImageSize=cluster % 3)
        if draw(st.integers(0, 3)) == 0:
            job.group(draw(st.sampled_from(["g1", "g2"])))
        if draw(st.integers(0, 3)) == 0:
            job.set(ConcurrencyLimits=draw(st.sampled_from(["lic", "db:2"])))
        jobs.append(job.build())
    policy = draw(st.sampled_from([None, "False"]))
    params = PARAMS.with_(
        preemption_requirements=Expr(policy) if policy else None,
        concurrency=LimitConfig(explicit={"lic": 3.0, "db": 5.0}),
    )
    ending = draw(st.lists(st.integers(0, 8), min_size=3, max_size=8))
    return slots, jobs, params, draw(st.booleans()), ending


def _reading(ledger: SlotLedger) -> tuple:
    """Everything the ledger read and totalled, in a comparable form."""
    standing = ledger.standing(NOW)
    entries = {}
    for name, e in ledger.entries.items():
        slot = e.slot
        fields = slot and (slot.name, slot.index, slot.weight, slot.state, slot.activity)
        holders = slot and (slot.holder, slot.remote_user, slot.machine)
        entries[name] = (
            e.seq,
            e.fixed,
            e.standing,
            e.free,
            e.counted,
            e.effective,
            e.limits,
            e.mentions,
            e.slot_id,
            e.blocked,
            e.listed,
            e.notes,
            fields,
            holders,
        )
    return (
        [slot.name for slot in standing.slots],
        standing.count,
        standing.listed,
        standing.usage,
        standing.weight,
        standing.effective,
        standing.min_weight,
        standing.limits,
        standing.mentions,
        {machine: dict(users) for machine, users in standing.users_on.items() if users},
        standing.policy_blocks is None,
        standing.job_annotations_read,
        entries,
    )


@settings(max_examples=200)
@given(runs())
def test_a_told_ledger_reads_as_a_ledger_that_reads_every_slot(run):
    slots, jobs, params, reuse, ending = run
    pool, accountant = Pool(slots, jobs, "d"), _accountant()
    pool.claim_reuse = reuse
    view = accountant.view().__getitem__
    for step, count in enumerate(ending):
        now = NOW + 60 * step
        result = run_cycle(pool.kept_snapshot(params, now), view, params, now=now)
        pool.apply(result, now)
        for name in sorted(pool.job_on_slot.values())[:count]:
            pool.complete(name, now + 30)
        told = pool.keep_ledger(params, now + 30)
        fresh = SlotLedger()
        fresh.update(pool.slot_by_name, pool.sequence, list(pool.slot_by_name), params, now + 30)
        assert _reading(told) == _reading(fresh)
        for entry in told.entries.values():  # each slot is of the shape it was told
            shape = entry.slot and entry.slot.shape
            assert shape is None or told._shapes[shape_key(entry.ad)] is shape


def test_a_told_move_spares_finding_the_shape(monkeypatch):
    """Slots of one shape claimed by one user and released, three times: once the ledger
    has seen each move take an ad of each shape somewhere (two rounds: a released slot
    has another shape than a slot never claimed), the third round's slots follow the
    moves without their ads' shapes being found (shape_key)."""
    found = []

    def counting(ad):
        found.append(ad)
        return shape_key(ad)

    monkeypatch.setattr(ledger_module, "shape_key", counting)
    slots = [make_slot(f"slot1@host{n}").build() for n in range(6)]
    pool = Pool(slots, [make_job("ann", 1, proc).build() for proc in range(18)], "d")
    accountant = _accountant()
    view = accountant.view().__getitem__
    for step in range(3):
        now = NOW + 60 * step
        result = run_cycle(pool.kept_snapshot(PARAMS, now), view, PARAMS, now=now)
        assert len(pool.apply(result, now)) == 6
        found.clear()
        pool.keep_ledger(PARAMS, now)  # six claimed
        for name in list(pool.job_on_slot.values()):
            pool.finish(name)
        pool.keep_ledger(PARAMS, now)  # six released
        assert 0 < len(found) <= 4 if step < 2 else found == []
