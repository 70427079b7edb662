"""Starter test fixtures: ``jobs`` (a Jobs helper, cleaned up after the test: every job
killed and reaped), once for each way a job is started: ``fast`` (from the starter's own
process, as for every job that needs no user switch) and ``shim`` (through the shim, as for
a root starter's job of another Owner; forced with ``via_shim``); ``open_dir`` (a directory
other users can enter)."""

from __future__ import annotations

import os
import pwd
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from starter_jobs import Jobs


@pytest.fixture(params=["fast", "shim"])
def jobs(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Jobs]:
    owner = pwd.getpwuid(os.geteuid()).pw_name
    helper = Jobs(tmp_path, owner, via_shim=request.param == "shim")
    yield helper
    helper.cleanup()


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A directory every user can enter (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="fairpool-starter-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)
