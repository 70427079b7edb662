"""A live startd samples its machine once a second but is sampled at every event of that
second: a slot already brought to the same second with the same measurements and claim is
skipped (Startd._sample). Whatever happens within a second, the ads must be those of a
startd that republishes everything every time."""

from hypothesis import given, settings
from hypothesis import strategies as st
from startd_script import MODERN, startd
from test_random_timelines import jobs, machine_ad

from fairpool.startd.inputs import MachineInputs


class OncePerSecond:
    """The measurements of a second, as one dict (as daemons/measures.py keeps them)."""

    def __init__(self, inputs: MachineInputs) -> None:
        self.inputs, self.last = inputs, None

    def __call__(self, t: int) -> dict[str, object]:
        if self.last is None or self.last[0] != t:
            self.last = (t, self.inputs(t))
        return self.last[1]


steps = st.one_of(
    st.tuples(st.just("claim_and_run"), jobs),
    st.tuples(st.just("activate")),
    st.tuples(st.just("starter_exit")),
    st.tuples(st.just("suspend")),
    st.tuples(st.just("vacate"), st.booleans()),
    st.tuples(st.just("release")),
)
# mostly several events in the same second, as a busy live startd has them
timelines = st.lists(st.tuples(st.sampled_from([0, 0, 0, 1, 7]), steps), min_size=3, max_size=20)


@settings(deadline=None)
@given(timeline=timelines, partitionable=st.booleans(), keyboard=st.integers(0, 50))
def test_skipping_a_slot_sampled_this_second_changes_no_ad(timeline, partitionable, keyboard):
    knobs = {
        "WANT_SUSPEND": "True",
        "SUSPEND": "TotalJobRunTime >= 3 && KeyboardIdle < 100",
        "CONTINUE": "TotalJobSuspendTime >= 2",
        "PREEMPT": "TotalClaimRunTime > 30",
    }
    machine = machine_ad(partitionable)
    made = []
    for wrap in (lambda i: i, OncePerSecond):
        inputs = MachineInputs()
        inputs.use(keyboard)
        made.append(startd(knobs, wrap(inputs), MODERN, machine))
    fresh, live = made
    t = 0
    for dt, (method, *args) in timeline:
        t += dt
        for s in made:
            _step(s, t, method, args)
        assert _ads(live) == _ads(fresh)
        assert {slot.ad["CurrentTime"] for slot in live.slots.values()} == {live.now}
    for s in made:
        s.advance(t + 100)
    assert _ads(live) == _ads(fresh)


def _step(s, t, method, args):
    s.advance(t)
    slot = list(s.slots)[-1]
    if method == "claim_and_run":
        reply = s.request_claim(t, *args)
        s.activate(t, slot=reply.slot)
    elif method == "suspend":
        s.advance(t)
    else:
        getattr(s, method)(t, *args, slot=slot)


def _ads(s):
    return {name: sorted(str(slot.ad).split(";")) for name, slot in s.slots.items()}
