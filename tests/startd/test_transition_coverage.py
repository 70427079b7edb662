"""Every one of the seed's twenty numbered transitions, each taken by a short script, and
recorded with its number (the table's catalogue is what the engine reports)."""

from startd_script import J_SMALL, J_STD, job, run, vanilla

from fairpool.startd.inputs import MachineInputs
from fairpool.startd.transitions import TRANSITIONS

BENCH = {"RunBenchmarks": "(CurrentTime - LastBenchmark) >= 600"}
SCRIPTS = [
    # 1 (first pass), 6, 8, 10, 13 (small job, keyboard), 15 (10 min suspended), 16 (KILL
    # after 10 min vacating), 19 (SIGKILL ends the starter)
    (
        [(100, "match"), (101, "request_claim", job(J_SMALL)), (102, "activate")],
        4000,
        {},
        MachineInputs().use(2000, 4000),
    ),
    # 2 (keyboard while Unclaimed), then 1 again
    ([], 3000, {}, MachineInputs().use(1000)),
    # 3 and 4 (benchmarks)
    ([(700, "benchmarks_done")], 700, BENCH, None),
    # 5 (claim without a match), 10, 13, 14 (CONTINUE), 11 (exit)
    (
        [(100, "request_claim", job(J_SMALL)), (101, "activate"), (3000, "starter_exit")],
        3000,
        {},
        MachineInputs().use(1000),
    ),
    # 7 (MATCH_TIMEOUT)
    ([(100, "match")], 500, {}, None),
    # 9 (vacate while Claimed/Idle), 17 (no starter)
    ([(100, "request_claim", job(J_STD)), (200, "vacate")], 300, {}, None),
    # 12 (PREEMPT from Busy: big std job and the keyboard), 17 at the exit
    (
        [(100, "request_claim", job(J_STD)), (101, "activate"), (2100, "starter_exit")],
        2200,
        {},
        MachineInputs().use(2000),
    ),
    # 18 (the preempting claim takes over after Vacating)
    (
        [
            (100, "request_claim", vanilla("a")),
            (101, "activate"),
            (500, "request_claim", vanilla("b"), True),
            (510, "starter_exit"),
        ],
        600,
        {},
        None,
    ),
    # 20 (... after Killing: vacate -fast while the preempting claim waits)
    (
        [
            (100, "request_claim", vanilla("a")),
            (101, "activate"),
            (500, "request_claim", vanilla("b"), True),
            (501, "vacate", True),
            (510, "starter_exit"),
        ],
        600,
        {},
        None,
    ),
]


def test_every_numbered_transition_is_taken():
    numbers = set()
    for script, end, knobs, inputs in SCRIPTS:
        s, _ = run(script, end, knobs, inputs)
        for change in s.changes:
            transition = TRANSITIONS[change.number]
            assert change.source in transition.sources and change.target in transition.targets
            numbers.add(change.number)
    assert {str(n) for n in range(1, 21)} <= numbers
