"""HTCondor's own client (the ``htcondor`` wheel) against a live pool over CEDAR, each
figure beside the HTTP API doing the same in the same run.

* query: all of N slot ads (``--slots``, 10,000) from the collector with
  ``htcondor2.Collector.query``, beside the HTTP API's query of the same ads decoded into
  ClassAds (goal: CEDAR under 1 s and within twice the HTTP time).
* round trips: small queries (the schedd's ad, as ``locate`` asks) one after another,
  each on a new connection with the session resumed, per second (goal at least 100).
* submit: ``htcondor2.Schedd.submit`` of one cluster of N jobs (``--jobs``, 1,000), the
  queue-management exchange, beside ``fairpool submit`` of the same count (goal: under
  5 s).

Run: ``python benchmarks/cedar.py [--slots N] [--jobs N]``. The pool runs in a temporary
directory on free loopback ports and is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from live_pool import line, pool

from fairpool.classad.jsonads import ad_from_json


def wheel(address: str, script: str, cwd: Path) -> dict:
    """A script run under the wheel in its own process; the JSON it prints last."""
    prelude = "import json, sys, time, htcondor2, classad2\nADDRESS = sys.argv[1]\n"
    env = {**os.environ, "CONDOR_CONFIG": os.devnull}
    result = subprocess.run(
        [sys.executable, "-c", prelude + script, address],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def advertise(base: str, slots: int) -> None:
    ads = [
        {
            "MyType": "Machine",
            "Name": f"slot{n % 32 + 1}@bench{n // 32}.example.org",
            "Machine": f"bench{n // 32}.example.org",
            "State": "Unclaimed",
            "Activity": "Idle",
            "Cpus": 1,
            "Memory": 2048,
            "Requirements": "START",
            "Start": True,
        }
        for n in range(slots)
    ]
    with httpx.Client(timeout=120) as client:
        for first in range(0, slots, 1000):
            client.post(f"{base}/collector/update", json={"ads": ads[first : first + 1000]})


def bench_query(base: str, address: str, cwd: Path, slots: int) -> None:
    found = wheel(
        address,
        "c = htcondor2.Collector(ADDRESS)\n"
        "c.query(htcondor2.AdTypes.Collector)\n"  # the session, made once
        "started = time.perf_counter()\n"
        "ads = c.query(htcondor2.AdTypes.Startd)\n"
        "print(json.dumps({'seconds': time.perf_counter() - started, 'ads': len(ads)}))\n",
        cwd,
    )
    with httpx.Client(timeout=120) as client:
        started = time.perf_counter()
        body = client.get(f"{base}/collector/ads", params={"type": "Machine"}).json()
        decoded = [ad_from_json(ad) for ad in body["ads"]]
        http = time.perf_counter() - started
    assert found["ads"] >= slots and len(decoded) == found["ads"]
    line(
        f"query of {found['ads']:,} slot ads",
        f"{found['seconds']:.3f} s",
        "< 1 s",
        f"HTTP {http:.3f} s ({found['seconds'] / http:.1f}x)",
    )


def bench_round_trips(address: str, cwd: Path, count: int = 300) -> None:
    found = wheel(
        address,
        "c = htcondor2.Collector(ADDRESS)\n"
        "c.query(htcondor2.AdTypes.Collector)\n"
        "started = time.perf_counter()\n"
        f"for _ in range({count}): c.query(htcondor2.AdTypes.Schedd, projection=['Name'])\n"
        "print(json.dumps({'seconds': time.perf_counter() - started}))\n",
        cwd,
    )
    line("small queries", f"{count / found['seconds']:.0f} /s", ">= 100 /s")


def bench_submit(address: str, cwd: Path, base: str, jobs: int) -> None:
    found = wheel(
        address,
        "s = htcondor2.Schedd(htcondor2.Collector(ADDRESS).locate(htcondor2.DaemonType.Schedd))\n"
        "sub = htcondor2.Submit({'executable': '/bin/true', 'hold': 'true'})\n"
        "started = time.perf_counter()\n"
        f"result = s.submit(sub, count={jobs})\n"
        "print(json.dumps({'seconds': time.perf_counter() - started,"
        " 'jobs': result.num_procs()}))\n",
        cwd,
    )
    (cwd / "bench.sub").write_text(f"executable = /bin/true\nhold = true\nqueue {jobs}\n")
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "fairpool.cli", "submit", "bench.sub", "--pool", base],
        cwd=cwd,
        check=True,
        capture_output=True,
    )
    http = time.perf_counter() - started
    assert found["jobs"] == jobs
    line(
        f"submit of {jobs:,} jobs",
        f"{found['seconds']:.3f} s",
        "< 5 s",
        f"fairpool submit {http:.3f} s",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slots", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=1_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fairpool-cedar-") as root:
        where = Path(root)
        with pool(where / "pool", NUM_CPUS=1, START="False") as base:
            address = (where / "pool" / "cedar_address").read_text().strip()
            advertise(base, args.slots)
            bench_query(base, address, where, args.slots)
            bench_round_trips(address, where)
            bench_submit(address, where, base, args.jobs)


if __name__ == "__main__":
    main()
