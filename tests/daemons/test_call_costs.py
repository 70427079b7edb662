"""benchmarks/call_costs/sitecustomize.py, which `job_start_costs.py --calls` loads into a
pool to time its steps: every step it names is still in the code (a renamed one would
drop out of the table), and a timed step behaves as before while its CPU is counted."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import pytest

PATH = Path(__file__).parents[2] / "benchmarks" / "call_costs" / "sitecustomize.py"


@pytest.fixture(scope="module")
def call_costs():
    spec = importlib.util.spec_from_file_location("call_costs_under_test", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # FAIRPOOL_CALL_COSTS unset: it installs nothing
    return module


def test_every_step_is_a_function_of_the_code(call_costs):
    names = [f"{owner}.{attribute}" for _, owner, attribute in call_costs.STEPS]
    assert len(set(names)) == len(names)
    for module_name, owner_name, attribute in call_costs.STEPS:
        _, found = call_costs.step_function(module_name, owner_name, attribute)
        function = found.__func__ if isinstance(found, classmethod) else found
        assert inspect.isfunction(function), (module_name, owner_name, attribute)
        # a coroutine function would be timed only up to its first await
        assert not inspect.iscoroutinefunction(function), (module_name, owner_name, attribute)


def test_a_step_the_code_lacks_is_named(call_costs):
    with pytest.raises(LookupError, match="no_such_step"):
        call_costs.step_function("fairpool.daemons.schedd", "Schedd", "no_such_step")


def test_a_timed_step_returns_its_result_and_counts_its_calls(call_costs):
    def work(n: int, *, extra: int = 0) -> int:
        return sum(range(n)) + extra

    timed = call_costs._timed("test.work", work)
    assert timed(10_000, extra=1) == work(10_000, extra=1)
    assert timed(10) == 45
    nanoseconds, calls = call_costs._totals["test.work"]
    assert calls == 2 and nanoseconds > 0
    with pytest.raises(TypeError):
        timed("not a number")
    assert call_costs._totals["test.work"][1] == 3  # a failing call is counted too
