"""Scenario tests run twice: through the library and through ``fairpool negotiate``."""

import pytest

from cycles import COMMAND, LIBRARY, PATH


@pytest.fixture(params=[LIBRARY, COMMAND])
def negotiation_path(request):
    """Route ``cycles.cycle`` through the library or the command for one test."""
    PATH["current"] = request.param
    yield request.param
    PATH["current"] = LIBRARY
