"""Scenario tests run through the library and through ``fairpool negotiate``, and with
both match evaluators (``NEGOTIATOR_MATCH_EVALUATOR``: vector and scalar)."""

import pytest

from cycles import COMMAND, LIBRARY, PATH
from fairpool.negotiator import cycle


@pytest.fixture(params=[LIBRARY, COMMAND])
def negotiation_path(request):
    """Route ``cycles.cycle`` through the library or the command for one test."""
    PATH["current"] = request.param
    yield request.param
    PATH["current"] = LIBRARY


@pytest.fixture(params=["vector", "scalar"], autouse=True)
def match_evaluator(request, monkeypatch):
    """Every negotiator test runs with each evaluator: for ``scalar`` the default
    (``vector``) is routed to the scalar matcher, whatever path the cycle takes."""
    if request.param == "scalar":
        monkeypatch.setitem(cycle.MATCH_EVALUATORS, "vector", cycle.MATCH_EVALUATORS["scalar"])
    return request.param
