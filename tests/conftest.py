"""Shared test configuration: hypothesis profiles (``HYPOTHESIS_PROFILE=ci`` runs more)."""

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile(
    "ci", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# Test helpers (builders.py, cycles.py) live beside this file.
sys.path.insert(0, str(Path(__file__).parent))

# A throw-away PostgreSQL server for the tests that share state through one (postgres.py).
from postgres import postgres_server, postgres_url  # noqa: E402, F401
