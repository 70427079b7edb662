"""Each submitter's idle jobs in queue order (schedd/idle_order.py), against a plain sort of
the idle jobs, over queues long enough for entries left by jobs that went to be dropped in
bulk, with reads that stop early and jobs that come and go between them."""

from __future__ import annotations

from itertools import islice

from hypothesis import given, settings
from hypothesis import strategies as st

from fairpool.classad import ClassAd
from fairpool.schedd.idle_order import IdleOrder

EXAMPLES = settings.default.max_examples  # 100; HYPOTHESIS_PROFILE=ci: 400
SUBMITTERS = ("alice@d", "bob@d")

# one step: (job number, what happens to it, how far the next read goes)
steps = st.lists(
    st.tuples(st.integers(0, 199), st.sampled_from(("idle", "busy", "move")), st.integers(0, 5)),
    min_size=1,
    max_size=400,
)


@settings(max_examples=EXAMPLES, deadline=None)
@given(steps)
def test_reads_give_the_idle_jobs_in_queue_order(steps):
    order = IdleOrder()
    jobs = {n: ClassAd({"ProcId": n}) for n in range(200)}
    idle: dict[int, str] = {}  # job -> its submitter, while idle
    owner = {n: SUBMITTERS[n % 2] for n in jobs}

    def live(submitter: str, place: int, name: str) -> ClassAd | None:
        return jobs[place] if idle.get(place) == submitter and name == str(place) else None

    for number, change, reach in steps:
        if change == "idle" and number not in idle:
            idle[number] = owner[number]
            order.add(owner[number], number, str(number))
        elif change == "busy" and number in idle:
            order.remove(idle.pop(number))
        elif change == "move":  # a qedit that changes the job's submitter
            before, owner[number] = owner[number], SUBMITTERS[(number + 1) % 2]
            if number in idle:
                order.remove(before)
                idle[number] = owner[number]
                order.add(owner[number], number, str(number))
        for submitter in SUBMITTERS:
            expected = [jobs[n] for n in sorted(n for n, s in idle.items() if s == submitter)]
            reading = order.read(submitter, live)
            assert list(islice(reading, reach)) == expected[:reach]
            assert list(order.read(submitter, live)) == expected
