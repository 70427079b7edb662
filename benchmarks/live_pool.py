"""The live pool's speed, each figure beside its goal and, since absolute times differ
between machines, as a ratio to this machine's own limit measured in the same run.

* submit: one ``fairpool submit`` of 100,000 jobs into a running pool, the command's
  wall time (goal under 10 s); beside it, bulk inserts of the same rows into a table of
  the same database, and how long the schedd took to queue them.
* starts: sustained job starts per second of /bin/true on 32 slots (goal at least 100
  per second); beside it, a bare loop that spawns and reaps /bin/true, 32 at a time
  (goal: the pool at least half of it).
* collector: update requests per second of one slot ad each, from several clients,
  beside bare HTTP round trips to an empty endpoint of the same server; and slot ads
  per second when each update carries a startd's 32 slots (goal at least 5,000).
* query: all of 10,000 slot ads from the collector, decoded into ClassAds (goal under
  0.5 s).
* cycle: one negotiation cycle of the live pool over 10,000 advertised slots and
  100,000 idle jobs in 100 autoclusters (goal under 2 s).

Run: ``python benchmarks/live_pool.py [--only submit,starts,collector,query,cycle]
[--jobs N] [--slots N] [--starts N]``. Every pool runs in a temporary directory on a
free loopback port and is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

PYTHON = [sys.executable, "-m", "fairpool.cli"]
BASE = {
    "DAEMON_LIST": "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, STARTD",
    "MAX_JOBS_PER_SUBMISSION": "1000000",  # HTCondor's default is 20,000
    "COLLECTOR_HOST": "127.0.0.1:0",
    "NEGOTIATOR_INTERVAL": "1",
    "NEGOTIATOR_MIN_INTERVAL": "0",
    "MEMORY": "65536",
}


@contextmanager
def pool(directory: Path, **knobs: object):
    """A running pool (``fairpool pool start --background``); its base URL."""
    config = directory / "bench_config"
    lines = [f"LOCAL_DIR = {directory}"] + [f"{k} = {v}" for k, v in {**BASE, **knobs}.items()]
    directory.mkdir(parents=True, exist_ok=True)
    config.write_text("\n".join(lines) + "\n")
    start = [*PYTHON, "pool", "start", "--dir", str(directory), "--config", str(config)]
    subprocess.run([*start, "--background"], check=True, capture_output=True)
    try:
        yield (directory / "address").read_text().strip()
    finally:
        subprocess.run([*PYTHON, "pool", "stop", "--dir", str(directory)], capture_output=True)


def wait(condition, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise SystemExit(f"gave up waiting {seconds:g} s for {what}")


def line(name: str, value: str, goal: str, baseline: str = "") -> None:
    extra = f"   {baseline}" if baseline else ""
    print(f"{name:<34} {value:>16}   goal {goal}{extra}", flush=True)


# -- submission ---------------------------------------------------------------------------
def bench_submit(root: Path, jobs: int) -> None:
    work = root / "submit"
    work.mkdir()
    (work / "big.sub").write_text(
        "executable = /bin/true\narguments = $(Process)\nrequest_memory = 1\n"
        f"should_transfer_files = NO\nqueue {jobs}\n"
    )
    # no startd: the jobs stay idle, and nothing but the submission is measured
    with pool(root / "pool-submit", DAEMON_LIST="MASTER, COLLECTOR, SCHEDD") as url:
        began = time.perf_counter()
        subprocess.run(
            [*PYTHON, "submit", "big.sub", "--pool", url], cwd=work, check=True, capture_output=True
        )
        wall = time.perf_counter() - began
        engine_path = root / "pool-submit" / "spool" / "state.sqlite3"
    inserted = _bulk_insert(engine_path)
    line(
        "submit: 100,000 jobs" if jobs == 100_000 else f"submit: {jobs:,} jobs",
        f"{wall:.2f} s",
        "< 10 s",
        f"bulk insert of the same rows {inserted:.2f} s (ratio {wall / inserted:.1f}x)",
    )


def _bulk_insert(path: Path) -> float:
    """The same rows the schedd wrote, inserted again in one transaction."""
    import sqlite3

    connection = sqlite3.connect(path)
    rows = connection.execute("SELECT cluster, proc, ad FROM jobs").fetchall()
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute(
        "CREATE TABLE bench_jobs (cluster INTEGER, proc INTEGER, ad VARCHAR,"
        " PRIMARY KEY (cluster, proc))"
    )
    began = time.perf_counter()
    with connection:
        connection.executemany("INSERT INTO bench_jobs VALUES (?, ?, ?)", rows)
    took = time.perf_counter() - began
    connection.close()
    return took


# -- job starts -----------------------------------------------------------------------------
@contextmanager
def starts_pool(root: Path, count: int, slots: int):
    """A running pool of ``slots`` slots, its startd's slots advertised, and the command
    that submits ``count`` jobs of /bin/true to it: (its directory, that command)."""
    work = root / "starts"
    work.mkdir()
    (work / "true.sub").write_text(
        f"executable = /bin/true\nrequest_memory = 1\nshould_transfer_files = NO\nqueue {count}\n"
    )
    knobs = {
        "NUM_CPUS": slots,
        "NUM_SLOTS": slots,
        # the daemons' intervals at their defaults (the negotiator's, not the other
        # figures' cycle a second): the submission's reschedule starts the one cycle the
        # jobs need, and their claims are reused after it, as in a pool configured as shipped
        "NEGOTIATOR_INTERVAL": 60,
        "NEGOTIATOR_MIN_INTERVAL": 5,
    }
    directory = root / "pool-starts"
    with pool(directory, **knobs) as url, httpx.Client(timeout=60) as http:
        wait(lambda: len(_ads(http, url, "Machine")) == slots, 30, "the startd's slots")
        submit = [*PYTHON, "submit", "true.sub", "--pool", url]
        yield directory, lambda: subprocess.run(submit, cwd=work, check=True, capture_output=True)


def bench_starts(root: Path, count: int, slots: int = 32) -> None:
    with starts_pool(root, count, slots) as (directory, submit):
        cpu = _cpu(directory)[1]
        submit()
        marks = finished_marks(directory, count, (0.1, 0.9, 1.0), time.perf_counter)
        cpu = _cpu(directory)[1] - cpu
    low, high = marks[0.1][1], marks[0.9][1]
    rate = 0.8 * count / (high - low)
    bare = bare_spawn_rate(min(count, 2000), slots)
    line(
        f"starts: /bin/true on {slots} slots",
        f"{rate:,.0f} /s",
        ">= 100 /s",
        f"bare spawn-and-reap loop {bare:,.0f} /s (ratio {rate / bare:.2f}, goal >= 0.5;"
        f" the pool's CPU {cpu / count * 1000:.1f} ms per job)",
    )


def finished_marks(
    directory: Path, count: int, fractions: tuple[float, ...], sample: Callable[[], Any]
) -> dict[float, tuple[int, Any]]:
    """For each of ``fractions`` of ``count`` jobs: the jobs finished at the first look that
    saw that many, and ``sample()`` taken right after that look. The pool's history is
    looked at every 20 ms, in its database as it commits them (the Scheduler ad's count
    changes only every SCHEDD_INTERVAL, which would measure the ads' rhythm, not the
    jobs'), through one read-only connection kept for the run: a connection opened for
    each look cost 0.7 ms of CPU, 3-4% of a core at fifty looks a second, which the pool
    paid on this machine's two cores and the bare loop did not; the kept one's count
    costs 7 us."""
    import sqlite3

    database = directory / "spool" / "state.sqlite3"
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    marks: dict[float, tuple[int, Any]] = {}
    deadline = time.monotonic() + 600
    try:
        while time.monotonic() < deadline:
            done = connection.execute("SELECT count(*) FROM job_history").fetchone()[0]
            for fraction in fractions:
                if fraction not in marks and done >= count * fraction:
                    marks[fraction] = (done, sample())
            if len(marks) == len(fractions):
                return marks
            time.sleep(0.02)
    finally:
        connection.close()
    raise SystemExit("the jobs did not finish within 10 minutes")


def bare_spawn_rate(count: int, width: int) -> float:
    """/bin/true spawned and reaped by a plain loop, ``width`` at a time."""
    began = time.perf_counter()
    running: list[subprocess.Popen] = []
    for _ in range(count):
        if len(running) >= width:
            running.pop(0).wait()
        running.append(subprocess.Popen(["/bin/true"]))
    for process in running:
        process.wait()
    return count / (time.perf_counter() - began)


def _cpu(directory: Path) -> tuple[float, float]:
    """CPU seconds (user and system) of this process and of the pool in ``directory``
    (its process and its starter process, not the jobs): on a busy machine, what a
    figure cost is clearer than how long it took."""
    import psutil

    mine = os.times()
    pool = psutil.Process(int((directory / "master.pid").read_text()))
    theirs = [p.cpu_times() for p in (pool, *starter_processes(pool))]
    return mine.user + mine.system, sum(t.user + t.system for t in theirs)


def starter_processes(pool) -> list:
    """The starter processes among the children of the pool's process (psutil)."""
    return [p for p in pool.children() if "fairpool.starter.service" in p.cmdline()]


def _ads(http: httpx.Client, url: str, kind: str) -> list:
    return http.get(f"{url}/collector/ads", params={"type": kind}).json()["ads"]


# -- the collector ------------------------------------------------------------------------
def slot_ads(http: httpx.Client, url: str, count: int) -> list[dict]:
    """``count`` slot ads made from the pool's own startd's first ad, each with its own
    name, on machines of 32 slots; their startd address leads nowhere."""
    template = wait(lambda: _ads(http, url, "Machine"), 30, "a slot ad")[0]
    ads = []
    for number in range(count):
        machine, slot = divmod(number, 32)
        host = f"node{machine:04d}.bench"
        ad = dict(template)
        ad.update(
            {
                "Name": f"slot{slot + 1}@{host}",
                "Machine": host,
                "SlotID": slot + 1,
                "ApiAddress": "http://127.0.0.1:9/startd",
            }
        )
        ads.append(ad)
    return ads


def daemon_token(directory: Path) -> dict[str, str]:
    """The header a startd's updates carry: a token of the pool's daemons, signed with
    the key its master made (docs/security.md)."""
    from fairpool.config import parse_config_text
    from fairpool.security.tokens import create_token, key_file, read_key

    config = parse_config_text(f"LOCAL_DIR = {directory}\n", env={})
    key = read_key(key_file(config))
    token = create_token(key, "condor@localdomain", "localdomain", now=time.time())
    return {"authorization": f"Bearer {token}"}


def bench_collector(root: Path, requests: int = 4000, clients: int = 8) -> None:
    directory = root / "pool-collector"
    with pool(directory, DAEMON_LIST="MASTER, COLLECTOR, STARTD", NUM_CPUS=1) as url:
        with httpx.Client(timeout=60) as http:
            ads = slot_ads(http, url, 32 * 64)
        daemon = daemon_token(directory)
        bodies = [{"ads": [ad]} for ad in ads]
        single = asyncio.run(_posts(f"{url}/collector/update", bodies, requests, clients, daemon))
        empty = asyncio.run(_posts(f"{url}/master/status", None, requests, clients))
        batches = [{"ads": ads[i : i + 32]} for i in range(0, len(ads), 32)]
        update = f"{url}/collector/update"
        batched = asyncio.run(_posts(update, batches, requests // 8, clients, daemon))
    line(
        "collector: one-ad updates",
        f"{single:,.0f} /s",
        "(beside)",
        f"bare round trips to an empty endpoint {empty:,.0f} /s (ratio {single / empty:.2f})",
    )
    line(
        "collector: a startd's 32 slots each",
        f"{batched * 32:,.0f} ads/s",
        ">= 5,000 ads/s",
        f"({batched:,.0f} updates/s)",
    )


async def _posts(
    url: str, bodies: list | None, count: int, clients: int, headers: dict | None = None
) -> float:
    """Requests per second from ``clients`` connections (POST of the bodies in turn, or
    GET when there are none)."""
    limits = httpx.Limits(max_connections=clients)
    async with httpx.AsyncClient(timeout=60, limits=limits, headers=headers) as c:

        async def one(number: int) -> None:
            if bodies is None:
                (await c.get(url)).raise_for_status()
            else:
                (await c.post(url, json=bodies[number % len(bodies)])).raise_for_status()

        async def worker(first: int) -> None:
            for number in range(first, count, clients):
                await one(number)

        await asyncio.gather(*(one(n) for n in range(clients)))  # connections open
        began = time.perf_counter()
        await asyncio.gather(*(worker(n) for n in range(clients)))
        return count / (time.perf_counter() - began)


# -- a query and a cycle over 10,000 slots ------------------------------------------------
def bench_query_and_cycle(root: Path, slots: int, jobs: int, which: set[str]) -> None:
    """A central manager (collector and negotiator) and a submit host (schedd) in two
    processes, as a pool of several machines runs them: the schedd's claims on the
    cycle's matches (at startds that do not exist) do not share the negotiator's CPU."""
    from fairpool.classad.jsonads import ad_from_json
    from fairpool.daemons.client import SyncApi

    work = root / "cycle"
    work.mkdir()
    per = jobs // 100
    memories = ", ".join(str(64 + n) for n in range(100))  # 100 autoclusters
    (work / "idle.sub").write_text(
        "executable = /bin/true\nrequest_memory = $(mem)\nshould_transfer_files = NO\n"
        f"queue {per} mem in ({memories})\n"
    )
    manager = {
        "DAEMON_LIST": "MASTER, COLLECTOR, NEGOTIATOR, STARTD",
        "NUM_CPUS": 1,
        "NEGOTIATOR_INTERVAL": 100_000,  # cycles only when asked
        "NEGOTIATOR_MIN_INTERVAL": 100_000,
        "CLASSAD_LIFETIME": 100_000,
    }
    with pool(root / "pool-manager", **manager) as url, httpx.Client(timeout=600) as http:
        ads = slot_ads(http, url, slots)
        for first in range(0, len(ads), 1000):
            http.post(f"{url}/collector/update", json={"ads": ads[first : first + 1000]})
        if "query" in which:  # read as `fairpool status` reads them
            collector, times = SyncApi(f"{url}/collector"), []
            for _ in range(3):
                began, cpu = time.perf_counter(), _cpu(root / "pool-manager")
                found = collector.get("/ads", type="Machine")
                decoded = [ad_from_json(ad) for ad in found["ads"]]
                spent = [a - b for a, b in zip(_cpu(root / "pool-manager"), cpu, strict=True)]
                times.append((time.perf_counter() - began, *spent))
            wall, client, server = min(times)
            line(
                f"query: {len(decoded):,} slot ads",
                f"{wall:.3f} s",
                "< 0.5 s",
                f"(fetched and decoded into ClassAds; best of 3; CPU {client:.3f} s here"
                f" and {server:.3f} s in the collector)",
            )
        if "cycle" not in which:
            return
        submit_host = {"DAEMON_LIST": "MASTER, SCHEDD", "COLLECTOR_HOST": url.split("//")[1]}
        with pool(root / "pool-submit-host", **submit_host):
            subprocess.run(
                [*PYTHON, "submit", "idle.sub", "--pool", url],
                cwd=work,
                check=True,
                capture_output=True,
            )
            wait(lambda: _ads(http, url, "Submitter"), 30, "the schedd's Submitter ad")
            durations, matched = [], 0
            for _ in range(2):
                cycle = http.post(f"{url}/negotiator/cycle").json()["cycle"]
                durations.append(cycle["duration"])
                matched = len(cycle["matches"])
        line(
            f"cycle: {slots:,} slots, {jobs:,} jobs",
            f"{durations[0]:.2f} s",
            "< 2 s",
            f"({matched:,} matches; the next cycle {durations[1]:.2f} s)",
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="submit,starts,collector,query,cycle")
    parser.add_argument("--jobs", type=int, default=100_000, help="submitted and idle jobs")
    parser.add_argument("--slots", type=int, default=10_000, help="slots for query and cycle")
    parser.add_argument("--starts", type=int, default=2000, help="jobs run for the start rate")
    args = parser.parse_args()
    which = set(args.only.split(","))
    root = Path(tempfile.mkdtemp(prefix="fairpool-bench-"))
    print(f"fairpool live pool benchmark ({os.cpu_count()} cores), in {root}", flush=True)
    try:
        if "submit" in which:
            bench_submit(root, args.jobs)
        if "starts" in which:
            bench_starts(root, args.starts)
        if "collector" in which:
            bench_collector(root)
        if which & {"query", "cycle"}:
            bench_query_and_cycle(root, args.slots, args.jobs, which)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
