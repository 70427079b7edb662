"""Random timelines: whatever happens, a slot is only ever in a (state, activity) pair the
seeds allow (figure 3.4 plus Retiring and Drained), and every change it makes is one of
the numbered transitions (or a documented modern one) between pairs that transition
connects."""

from hypothesis import given, settings
from hypothesis import strategies as st
from startd_script import MODERN, SEED, startd

from fairpool.classad import ClassAd
from fairpool.startd.inputs import MachineInputs
from fairpool.startd.states import ACTIVITIES
from fairpool.startd.transitions import TRANSITIONS

OWNERS = ["coltrane", "tyner", "garrison", "jones", "mccoy"]
RANK = '(Owner == "coltrane") + (Owner == "tyner") + ((Owner == "garrison") * 10)'

jobs = st.builds(
    lambda owner, universe, image, cpus: ClassAd(
        {
            "Owner": owner,
            "JobUniverse": universe,
            "ImageSize": image,
            "RequestCpus": cpus,
            "RequestMemory": 512,
            "RequestDisk": 1000,
        }
    ),
    st.sampled_from(OWNERS),
    st.sampled_from([1, 5]),
    st.sampled_from([10000, 20000]),
    st.integers(1, 3),
)
steps = st.one_of(
    st.tuples(st.just("claim_and_run"), jobs),
    st.tuples(st.just("claim_and_run"), jobs),
    st.tuples(st.just("match")),
    st.tuples(st.just("request_claim"), jobs),
    st.tuples(st.just("request_claim"), jobs, st.just(True)),
    st.tuples(st.just("activate")),
    st.tuples(st.just("starter_exit")),
    st.tuples(st.just("vacate"), st.booleans()),
    st.tuples(st.just("release")),
    st.tuples(st.just("drain"), st.sampled_from(["graceful", "quick", "fast"]), st.booleans()),
    st.tuples(st.just("cancel_drain")),
    st.tuples(st.just("benchmarks_done")),
)
timelines = st.lists(st.tuples(st.integers(0, 400), steps), min_size=3, max_size=14)
touches = st.lists(st.integers(0, 6000), max_size=6)
loads = st.lists(st.tuples(st.integers(0, 6000), st.sampled_from([0.0, 0.4, 0.9])), max_size=4)


def machine_ad(partitionable: bool) -> ClassAd:
    """The one machine these timelines run on: four cores, static or partitionable."""
    return ClassAd(
        {
            "Name": "slot1@m",
            "Cpus": 4,
            "Memory": 8192,
            "Disk": 100000,
            "PartitionableSlot": partitionable,
        }
    )


def check(s):
    for slot in s.slots.values():
        assert slot.activity in ACTIVITIES[slot.state], (slot.name, slot.pair)
    for change in s.changes:
        transition = TRANSITIONS[change.number]
        assert change.source in transition.sources, change
        assert change.target in transition.targets, change


@settings(deadline=None)
@given(
    timeline=timelines,
    keyboard=touches,
    load=loads,
    modern=st.booleans(),
    partitionable=st.booleans(),
    knobs=st.sampled_from(
        [
            {},
            {"RANK": RANK},
            {"MaxJobRetirementTime": "300"},
            {"RunBenchmarks": "LastBenchmark == 0", "CLAIM_WORKLIFE": "600"},
        ]
    ),
)
def test_random_timelines_stay_within_the_state_machine(
    timeline, keyboard, load, modern, partitionable, knobs
):
    inputs = MachineInputs()
    for t in keyboard:
        inputs.use(t)
    for t, value in load:
        inputs.set(t, "LoadAvg", value)
    machine = machine_ad(partitionable)
    s = startd(knobs, inputs, MODERN if modern else SEED, machine)
    t = 0
    for dt, (method, *args) in timeline:
        t += dt
        s.advance(t)  # timers may delete a dynamic slot: choose among the slots left
        slot = None if method in ("request_claim", "drain", "cancel_drain") else _busiest(s)
        if method == "claim_and_run":
            reply = s.request_claim(t, *args)
            t += 1
            s.activate(t, slot=reply.slot)
        elif method in ("request_claim", "drain", "cancel_drain"):
            getattr(s, method)(t, *args)
        else:
            getattr(s, method)(t, *args, slot=slot)
        check(s)
    s.advance(t + 1200)
    check(s)


def _busiest(s):
    """The slot an event is most likely to concern: the last dynamic slot, else the first."""
    return list(s.slots)[-1]
