"""HTCondor's own client, the ``htcondor`` wheel, run against a fairpool pool.

The wheel's calls can block (a C++ client with its own timeouts), so each script runs in
a separate Python process with a time limit; it prints one JSON value last, which
``wheel`` returns. Ads come back as plain dicts (expressions as their text).

    found = wheel(pool, "c = htcondor2.Collector(ADDRESS); out(ads(c.query()))")
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

__all__ = ["WheelError", "htcondor", "wheel", "wheel_hostname"]

_PRELUDE = """
import json, sys, htcondor2, classad2
ADDRESS = sys.argv[1]

def plain(ad):
    return {k: v if isinstance(v, (bool, int, float, str)) else str(v) for k, v in ad.items()}

def ads(found):
    return [plain(ad) for ad in found]

def out(value):
    print(json.dumps(value))
"""


class WheelError(AssertionError):
    """The wheel's script failed: its stderr's last line says why."""


def wheel(
    address: str,
    script: str,
    cwd: Path,
    timeout: float = 60,
    env: dict[str, str] | None = None,
    connect: str = "",
) -> Any:
    """Run ``script`` (with ``ADDRESS``, ``plain``, ``ads``, ``out``) under the wheel,
    after ``connect`` (a line that makes the daemon objects the script uses)."""
    cwd.mkdir(parents=True, exist_ok=True)
    environment = {
        **os.environ,
        "CONDOR_CONFIG": os.devnull,  # no configuration of this host's own HTCondor
        **(env or {}),
    }
    result = subprocess.run(
        [sys.executable, "-c", _PRELUDE + connect + textwrap.dedent(script), address],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
    )
    if result.returncode != 0:
        lines = result.stderr.strip().splitlines() or [f"exit status {result.returncode}"]
        raise WheelError(lines[-1])
    printed = result.stdout.strip().splitlines()
    return json.loads(printed[-1]) if printed else None


def htcondor(collector: str, *args: str, cwd: Path, timeout: float = 60) -> str:
    """The wheel's ``htcondor`` command (htcondor_cli; the wheel installs no script for
    it) against the pool whose collector is at ``collector`` (``host:port``): its output."""
    run = "import sys; from htcondor_cli.cli import main; sys.argv[0] = 'htcondor'; main()"
    environment = {**os.environ, "CONDOR_CONFIG": os.devnull, "_CONDOR_COLLECTOR_HOST": collector}
    result = subprocess.run(
        [sys.executable, "-c", run, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=environment,
    )
    output = result.stdout + result.stderr
    if result.returncode != 0 or "Error while trying to run" in output:
        raise WheelError(f"htcondor {' '.join(args)}: {output.strip()}")
    return output


def wheel_hostname() -> str:
    """The host's full name as the wheel sees it: a default ``Schedd()`` (and so the
    ``htcondor`` tool) looks for the schedd of that name."""
    return str(wheel("", "out(htcondor2.param['FULL_HOSTNAME'])", Path(os.devnull).parent))
