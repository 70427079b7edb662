"""The event heap paced by the wall clock (runtime/realtime.py): events run when they fall
due, an earlier event wakes a sleeping runner, cancelled events never run, a failing
callback is logged without stopping the others, and processes work as in the simulator.

Every wait is bounded (``asyncio.wait_for``); timing checks allow a scheduling slack.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Awaitable, Callable

import pytest

from fairpool.runtime.realtime import RealtimeEnvironment

SLACK = 0.5  # seconds an event may run after its time on a busy machine
EARLY = 0.01  # an event never runs before its time (beyond the clock's resolution)


def run_with(env: RealtimeEnvironment, body: Callable[[], Awaitable[None]]) -> None:
    """Run the environment while ``body`` runs, then stop it (all within 10 s)."""

    async def main() -> None:
        runner = asyncio.create_task(env.run())
        try:
            await asyncio.wait_for(body(), timeout=10)
        finally:
            runner.cancel()
            with pytest.raises(asyncio.CancelledError):
                await runner

    asyncio.run(main())


def done_after(count: int) -> tuple[list[float], asyncio.Event, Callable[[], None]]:
    """A callback that records when it ran and sets the event on its ``count``-th run."""
    times: list[float] = []
    event = asyncio.Event()

    def ran() -> None:
        times.append(time.time())
        if len(times) >= count:
            event.set()

    return times, event, ran


def test_events_run_at_their_wall_clock_time():
    env = RealtimeEnvironment()
    seen: list[tuple[str, float, float]] = []

    async def body() -> None:
        done = asyncio.Event()
        start = time.time()
        for name, delay in (("b", 0.4), ("a", 0.2), ("c", 0.4)):
            due = start + delay

            def record(name=name, due=due) -> None:
                seen.append((name, due, time.time()))
                if len(seen) == 3:
                    done.set()

            env.at(due, record)
        await done.wait()

    run_with(env, body)
    assert [name for name, _, _ in seen] == ["a", "b", "c"]  # time order, ties as scheduled
    for _, due, ran in seen:
        assert due - EARLY <= ran <= due + SLACK


def test_an_earlier_event_wakes_a_sleeping_runner():
    env = RealtimeEnvironment()
    times, done, ran = done_after(1)
    env.schedule(30.0, lambda: None)  # the runner goes to sleep for 30 s

    async def body() -> None:
        await asyncio.sleep(0.2)  # it sleeps now
        asked = time.time()
        env.schedule(0.1, ran)
        await done.wait()
        assert asked + 0.1 - EARLY <= times[0] <= asked + 0.1 + SLACK

    started = time.monotonic()
    run_with(env, body)
    assert time.monotonic() - started < 5


def test_cancelled_events_do_not_run():
    env = RealtimeEnvironment()
    cancelled: list[float] = []
    times, done, ran = done_after(1)
    env.schedule(0.1, lambda: cancelled.append(time.time())).cancel()

    async def body() -> None:
        late = env.schedule(0.15, lambda: cancelled.append(time.time()))
        env.schedule(0.3, ran)
        await asyncio.sleep(0.05)
        late.cancel()  # cancelled while the runner waits for it
        await done.wait()

    run_with(env, body)
    assert cancelled == []
    assert len(times) == 1


def test_a_callback_that_raises_is_logged_and_the_next_events_run(caplog):
    env = RealtimeEnvironment()
    times, done, ran = done_after(2)

    def broken() -> None:
        raise RuntimeError("the timer broke")

    env.schedule(0.05, broken)
    env.schedule(0.1, ran)
    env.schedule(0.1, broken)
    env.schedule(0.2, ran)

    async def body() -> None:
        await done.wait()

    with caplog.at_level(logging.ERROR, logger="fairpool.runtime.realtime"):
        run_with(env, body)
    assert len(times) == 2
    failures = [r for r in caplog.records if r.name == "fairpool.runtime.realtime"]
    assert len(failures) == 2
    assert all("the timer broke" in (r.exc_text or "") for r in failures)


def test_processes_yield_delays_on_the_wall_clock():
    env = RealtimeEnvironment()
    ticks: list[float] = []
    done = asyncio.Event()

    def clock():
        for _ in range(3):
            ticks.append(env.now)
            yield 0.15
        done.set()

    async def body() -> None:
        process = env.process(clock())
        await done.wait()
        await asyncio.sleep(0)  # the process ends on its next resume
        assert process.alive is False

    start = time.time()
    run_with(env, body)
    assert len(ticks) == 3
    assert start - EARLY <= ticks[0] <= start + SLACK
    for before, after in itertools.pairwise(ticks):
        assert 0.15 - EARLY <= after - before <= 0.15 + SLACK


def test_now_is_the_wall_clock_and_cannot_be_set():
    ticks = iter([100.0, 100.0, 250.0])
    env = RealtimeEnvironment(clock=lambda: next(ticks))
    assert env.now == 100.0
    env.now = 5.0  # the heap's step sets it; the wall clock is not set
    assert env.now == 250.0
    real = RealtimeEnvironment()
    assert abs(real.now - time.time()) < 1.0


def test_the_runner_can_be_started_again_after_being_stopped():
    env = RealtimeEnvironment()
    times, done, ran = done_after(1)

    async def nothing() -> None:
        await asyncio.sleep(0.05)

    run_with(env, nothing)
    env.schedule(0.05, ran)  # scheduled while no runner runs: the next one runs it

    async def body() -> None:
        await done.wait()

    run_with(env, body)
    assert len(times) == 1
