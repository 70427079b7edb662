"""The starter process's worker threads (starter/workers.py): work runs in the order
handed (one thread), shutdown waits for all of it, and work that fails stops no thread."""

from __future__ import annotations

import threading

from fairpool.starter.workers import Workers


def test_work_runs_in_order_and_shutdown_waits_for_it(capsys):
    done: list[int] = []
    workers = Workers(1, "test")
    workers.submit(lambda: 1 / 0)  # fails: reported, the thread goes on
    for number in range(50):
        workers.submit(done.append, number)
    workers.shutdown()
    assert done == list(range(50))
    assert "ZeroDivisionError" in capsys.readouterr().err
    workers.shutdown()  # again: nothing to wait for


def test_several_threads_run_at_once():
    workers = Workers(3, "test")
    barrier = threading.Barrier(3, timeout=10)
    names: list[str] = []
    for _ in range(3):  # each waits for the other two: only three threads get past
        workers.submit(lambda: (barrier.wait(), names.append(threading.current_thread().name)))
    workers.shutdown()
    assert sorted(names) == ["test_0", "test_1", "test_2"]
