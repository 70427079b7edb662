"""Rows alike in what an evaluation reads are evaluated once (classad/vector/classes.py):
the value spread over a class is the value at every row of it, also when the columns an
evaluation reads only show up through values kept from an earlier evaluation."""

from __future__ import annotations

from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.vector.test_same_decisions import _decisions, jobs, negotiator_params, slot

from fairpool.classad import ClassAd, Expr
from fairpool.classad.vector import SlotColumns, VectorMatch, classes
from fairpool.classad.vector.classes import RowClasses

NOW = 1_750_000_000.0


@pytest.fixture(autouse=True)
def _few_rows_make_classes():
    """Classes are drawn for pools of 1,000 rows and more: here for small ones too."""
    with patch.object(classes, "_FEW", 2):
        yield


def _slots(memories: list[int]) -> list[ClassAd]:
    out = []
    for k, memory in enumerate(memories):
        ad = ClassAd({"MyType": "Machine", "Name": f"slot{k}@h", "Memory": memory, "Cpus": 1})
        out.append(ad)
    return out


def _truth(vm: VectorMatch, expr: Expr, rows: np.ndarray) -> np.ndarray:
    value = vm.expression(expr, rows, my_is_slot=True)
    if isinstance(value, bool):
        return np.full(len(rows), value)
    return (value.tag == 2) & (value.i != 0)


def test_classes_follow_the_columns_drawn_on():
    columns = SlotColumns(_slots([1, 2, 1, 2, 1, 2, 1, 2]))
    rows = np.arange(8)
    drawn = RowClasses(columns, rows, "test")
    assert len(drawn.reps) == 1
    drawn.refine(["cpus"])  # alike in Cpus: still one class
    assert len(drawn.reps) == 1
    drawn.refine(["memory"])
    assert sorted(drawn.reps.tolist()) == [0, 1]
    first, second = drawn.of_row[:2].tolist()
    assert first != second and drawn.of_row.tolist() == [first, second] * 4


def test_too_many_classes_are_not_used_and_that_is_remembered():
    columns = SlotColumns(_slots(list(range(8))))
    drawn = RowClasses(columns, np.arange(8), "test")
    drawn.refine(["memory"])  # 8 classes of 8 rows
    assert not drawn.useful
    assert not RowClasses(columns, np.arange(8), "test").useful  # the next cycle's


def test_the_columns_read_are_kept_for_the_next_cycle():
    columns = SlotColumns(_slots([1, 2, 1, 2, 1, 2, 1, 2]))
    RowClasses(columns, np.arange(8), "test").refine(["memory"])
    assert sorted(RowClasses(columns, np.arange(8), "test").reps.tolist()) == [0, 1]


def test_a_hash_collision_is_told_apart():
    lanes = [np.array([0, 1, 0, 1]), np.array([5, 5, 6, 6])]
    assert sorted(classes._classes(lanes).tolist()) == [0, 1, 2, 3]
    with patch.object(classes, "_MIX", np.uint64(0)):  # every row hashes alike
        ids = classes._classes(lanes)
    assert len(set(ids.tolist())) == 4 and ids[0] != ids[1]


def test_a_value_kept_from_an_earlier_evaluation_still_draws_its_classes():
    """The memo gives back a sub-expression's value without reading its columns again;
    the columns it read come back with it, so the classes are drawn on Memory."""
    columns = SlotColumns(_slots([1, 2, 1, 2, 1, 2, 1, 2]))
    job = ClassAd({"MyType": "Job", "RequestMemory": 2})
    expr = Expr("(Memory >= TARGET.RequestMemory) && (Cpus > 0)")
    rows = np.arange(8)
    whole = _truth(VectorMatch(columns, job, now=NOW), expr, rows)  # fills the memo
    assert whole.tolist() == [False, True] * 4
    vm = VectorMatch(columns, job, now=NOW)
    drawn = RowClasses(columns, rows, "test")
    spread = drawn.evaluate(vm, rows, lambda at: _truth(vm, expr, at))
    assert spread.tolist() == whole.tolist()
    assert "memory" in drawn.key


def test_an_evaluation_of_what_names_do_not_describe_uses_every_row():
    columns = SlotColumns(_slots([1, 2, 1, 2]))
    job = ClassAd({"MyType": "Job", "Want": Expr("MY.Memory")})  # an expression of the job
    expr = Expr('eval(strcat("Mem", "ory")) > 1')
    vm = VectorMatch(columns, job, now=NOW)
    drawn = RowClasses(columns, np.arange(4), "test")
    spread = drawn.evaluate(vm, np.arange(4), lambda at: _truth(vm, expr, at))
    assert spread.tolist() == [False, True, False, True]
    assert not drawn.useful and vm.dynamic


@st.composite
def copied_pools(draw: st.DrawFn):
    """A few kinds of slot, each copied several times under other names: pools whose
    rows fall into classes."""
    kinds = [draw(slot(k)) for k in range(draw(st.integers(1, 4)))]
    slots = []
    for k in range(draw(st.integers(24, 40))):
        ad = kinds[k % len(kinds)].copy()
        ad["Name"] = f"slot{k}@host{k // 4}"
        ad["Machine"] = f"host{k // 4}"
        slots.append(ad)
    return slots, draw(jobs()), draw(negotiator_params())


@settings(max_examples=max(30, settings.default.max_examples // 2))
@given(copied_pools())
def test_vector_over_classes_and_scalar_decide_alike(pool):
    slots, jobs_, params = pool
    with patch.object(classes, "_FEW", 2):  # hypothesis runs examples outside the fixture
        vector = _decisions(slots, jobs_, params, "vector")
    assert vector == _decisions(slots, jobs_, params, "scalar")
    assert _decisions(slots, jobs_, params, "vector") == _decisions(slots, jobs_, params, "scalar")
