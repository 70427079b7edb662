"""The pool's process freezes what survives a full garbage collection (runtime/collection.py),
and thaws it again once THAW_AFTER has passed; in a process of its own, since it changes the
whole process."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import gc
from fairpool.runtime.collection import freeze_survivors
kept = [[n] for n in range(1000)]
freeze_survivors(thaw_after={thaw})
gc.collect()
print(gc.get_freeze_count())
gc.collect()
print(gc.get_freeze_count())
"""


def run(thaw_after: float) -> list[int]:
    script = SCRIPT.format(thaw=thaw_after)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return [int(line) for line in out.stdout.split()]


def test_the_survivors_of_a_full_collection_are_frozen():
    first, second = run(3600.0)
    assert first >= 1000  # the lists kept, and whatever else lives
    assert second >= first


def test_once_thaw_after_has_passed_they_are_thawed():
    assert run(0.0) == [0, 0]


DAEMONS = """
import gc
from fairpool.runtime.collection import DAEMON_THRESHOLDS, freeze_survivors
freeze_survivors()
print(gc.get_threshold() == DAEMON_THRESHOLDS, DAEMON_THRESHOLDS[0] > 700)
"""


def test_the_daemons_process_lets_its_youngest_generation_grow():
    """Its short-lived objects of each job's start and end: collected every sixty or so
    jobs at CPython's 700 (runtime/collection.py)."""
    out = subprocess.run([sys.executable, "-c", DAEMONS], capture_output=True, text=True)
    assert out.stdout.split() == ["True", "True"]


BATCH = """
import gc
from fairpool.runtime.collection import BATCH_THRESHOLDS, batch_collection
before = gc.get_threshold()
kept = [[n] for n in range(1000)]
with batch_collection():
    inside = gc.get_threshold()
    gc.collect()
    frozen = gc.get_freeze_count()
print(inside == BATCH_THRESHOLDS, frozen >= 1000, gc.get_threshold() == before,
      gc.get_freeze_count(), len(gc.callbacks))
"""


def test_a_batch_run_freezes_survivors_and_leaves_the_collector_as_it_was():
    out = subprocess.run([sys.executable, "-c", BATCH], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True", "True", "0", "0"]


AT_EXIT = """
import sys
from fairpool.runtime.collection import leave_heap_at_exit
class Cycle:
    def __del__(self):
        sys.stdout.write("collected")
garbage = Cycle()
garbage.me = garbage
del garbage
if {leave}:
    leave_heap_at_exit()
    leave_heap_at_exit()
"""


def test_a_process_that_leaves_its_heap_at_exit_collects_no_garbage_then():
    def run(leave: bool) -> str:
        script = AT_EXIT.format(leave=leave)
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return out.stdout

    assert run(False) == "collected"  # the exit's last collection finalizes the cycle
    assert run(True) == ""


YOUNG = """
import gc
import fairpool.runtime.collection as collection
collection.YOUNG_FROZEN_FLOOR = {floor}
kept = []
with collection.batch_collection():
    gc.collect(0)
    after_young = gc.get_freeze_count()
    kept += [[n] for n in range(30_000)]  # survivors of young collections
    gc.collect(0)
    young_again = gc.get_freeze_count()
    gc.collect()  # a full collection: doubled beyond the floor -> thawed
    after_full = gc.get_freeze_count()
    gc.collect(0)  # thawed: nothing frozen until a full collection has walked it all
    still = gc.get_freeze_count()
    gc.collect()
    walked = gc.get_freeze_count()
print(after_young > 0, young_again >= after_young + 30_000, after_full, still, walked > 30_000)
"""


def run_young(floor: int) -> list[str]:
    script = YOUNG.format(floor=floor)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_a_batch_run_freezes_what_survives_a_young_collection_too():
    young, again, after_full, still, walked = run_young(10_000_000)
    assert (young, again, walked) == ("True", "True", "True")
    assert int(after_full) >= 30_000 and int(still) == int(after_full)  # never thawed


def test_a_batch_run_thaws_once_its_frozen_heap_has_doubled():
    young, again, after_full, still, walked = run_young(1_000)
    assert (young, again, walked) == ("True", "True", "True")
    assert (after_full, still) == ("0", "0")  # thawed, and kept so until a full walk
