"""The event heap: time order, ties in scheduling order, processes, cancelling."""

import pytest

from fairpool.runtime.env import Environment


def test_events_run_in_time_order_and_ties_in_scheduling_order():
    env = Environment(start=100.0)
    seen = []
    env.schedule(5, lambda: seen.append(("b", env.now)))
    env.schedule(1, lambda: seen.append(("a", env.now)))
    env.schedule(5, lambda: seen.append(("c", env.now)))
    env.run()
    assert seen == [("a", 101.0), ("b", 105.0), ("c", 105.0)]


def test_processes_yield_delays():
    env = Environment()
    ticks = []

    def clock():
        for _ in range(3):
            ticks.append(env.now)
            yield 60

    env.process(clock())
    env.run()
    assert ticks == [0.0, 60.0, 120.0]


def test_run_until_stops_the_clock_there():
    env = Environment()
    seen = []
    env.schedule(10, lambda: seen.append(env.now))
    env.schedule(30, lambda: seen.append(env.now))
    env.run(until=20)
    assert (seen, env.now) == ([10.0], 20.0)
    env.run()
    assert seen == [10.0, 30.0]


def test_cancelled_events_do_not_run():
    env = Environment()
    seen = []
    event = env.schedule(1, lambda: seen.append("no"))
    event.cancel()
    env.schedule(2, lambda: seen.append("yes"))
    env.run()
    assert seen == ["yes"]
    with pytest.raises(ValueError):
        env.schedule(-1, lambda: None)
