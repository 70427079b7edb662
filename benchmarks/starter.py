"""How fast the starter starts jobs: trivial jobs (``/bin/true``), each through
``JobProcess.spawn``, a pidfd wait, ``reap`` and ``finish``, beside a bare loop that spawns
``/bin/true`` with ``subprocess.Popen``, waits on its pidfd and reaps it (the machine's own
limit), measured in the same run.

Two starter paths: the fast one (the job runs as the starter's own user and is started from
the starter's process) and the shim (``via_shim=True``: what a root starter does for a job of
another Owner). The live pool's goals: at least 100 starts/s on 32 slots, and the fast path at
least half the bare loop's rate.

Three ways of driving them: one job at a time; up to K (32: a 32-slot machine) in flight from
one thread that starts jobs and finishes each as its pidfd says it exited; and up to K in
flight on K threads, each running whole jobs, as a daemon running ``spawn`` and ``finish`` in
a thread pool executor would.

The job is what ``executable = /bin/true`` submits (the executable transferred into the
sandbox, as HTCondor does by default), or with ``--shared`` run in place
(``should_transfer_files = NO``). ``--execute DIR`` puts the sandboxes elsewhere
(``/dev/shm``: no disk journal). Each round runs every loop in turn, so that a busy moment on
a shared machine hits them alike; the figures are medians over the rounds. Beside each rate,
the CPU time the benchmark's process spent per job (ms), which a busy machine disturbs less
than the rates. The shim path runs fewer jobs (``--shim-jobs``): it is 20-50 times slower.
Run: ``python benchmarks/starter.py [--jobs N] [--shim-jobs M] [--rounds R] [--in-flight K]
[--shared] [--execute DIR]``.
"""

from __future__ import annotations

import argparse
import os
import pwd
import select
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

from fairpool.classad import ClassAd
from fairpool.starter import JobProcess
from fairpool.submit import parse_submit

WAIT = 10.0  # seconds any job may take before the run is given up

Start = Callable[[], tuple[object, int]]  # a started job (or process) and its pidfd
Finish = Callable[[object, int], None]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--shim-jobs", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--in-flight", type=int, default=32)
    parser.add_argument("--shared", action="store_true", help="run /bin/true in place")
    parser.add_argument("--execute", help="where the sandboxes go (default: a temporary dir)")
    args = parser.parse_args()
    k = args.in_flight
    drives = {
        "one at a time": partial(one_thread, in_flight=1),
        f"{k} in flight, 1 thread": partial(one_thread, in_flight=k),
        f"{k} in flight, {k} threads": partial(threads, workers=k),
    }
    with (
        tempfile.TemporaryDirectory(prefix="fairpool-bench-") as root,
        tempfile.TemporaryDirectory(prefix="fairpool-bench-", dir=args.execute) as execute,
    ):
        ad = job_ad(Path(root), args.shared)
        loops = {
            "bare": (start_bare, finish_bare, args.jobs),
            "fast": (starter(ad, Path(execute), via_shim=False), finish_job, args.jobs),
            "shim": (starter(ad, Path(execute), via_shim=True), finish_job, args.shim_jobs),
        }
        runs: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(args.rounds):
            for drive_name, drive in drives.items():
                for name, (start, finish, count) in loops.items():
                    runs.setdefault((drive_name, name), []).append(drive(start, finish, count))
    how = "run in place" if args.shared else "the executable transferred"
    print(f"/bin/true ({how}): jobs/s (and CPU ms per job), median of {args.rounds} rounds")
    print(f"{'':>24}  {'bare Popen':>13}  {'fast path':>13}  ratio  {'shim path':>13}  ratio")
    for drive_name in drives:
        (bare, bare_cpu), (fast, fast_cpu), (shim, shim_cpu) = (
            medians(runs[drive_name, name]) for name in loops
        )
        print(
            f"{drive_name:>24}  {bare:>6.0f} ({bare_cpu:.2f})  {fast:>6.0f} ({fast_cpu:.2f})  "
            f"{fast / bare:>5.2f}  {shim:>6.0f} ({shim_cpu:.2f})  {shim / bare:>5.2f}"
        )


def medians(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(rate for rate, _ in runs), statistics.median(c for _, c in runs)


def job_ad(root: Path, shared: bool) -> ClassAd:
    """The ad condor_submit makes for /bin/true, owned by whoever runs the benchmark."""
    iwd = root / "iwd"
    iwd.mkdir()
    text = "executable = /bin/true\n" + ("should_transfer_files = NO\n" if shared else "")
    owner = pwd.getpwuid(os.geteuid()).pw_name
    return parse_submit(text + "queue\n", "bench.sub").job_ads(owner=owner, cwd=iwd)[0]


def starter(ad: ClassAd, execute: Path, *, via_shim: bool) -> Start:
    def start() -> tuple[JobProcess, int]:
        job = JobProcess.spawn(ad, slot="slot1_1@bench", execute_dir=execute, via_shim=via_shim)
        if job.via_shim != via_shim:
            raise SystemExit(f"the job took the {'shim' if job.via_shim else 'fast'} path")
        return job, job.pidfd

    return start


def finish_job(job: JobProcess, pidfd: int) -> None:
    """Reap and finish (which closes the pidfd)."""
    if job.reap() is None:
        raise SystemExit(f"job {job.pid}: pidfd readable but not exited")
    job.finish()


def start_bare() -> tuple[subprocess.Popen, int]:
    process = subprocess.Popen(["/bin/true"])
    return process, os.pidfd_open(process.pid)


def finish_bare(process: subprocess.Popen, pidfd: int) -> None:
    process.wait()
    os.close(pidfd)


def one_thread(start: Start, finish: Finish, count: int, in_flight: int) -> tuple[float, float]:
    """Keep up to ``in_flight`` jobs running, finishing each as soon as its pidfd says it
    exited. Jobs per second, and this process's CPU ms per job."""
    poller = select.poll()
    running: dict[int, object] = {}
    started = done = 0
    began, cpu = time.perf_counter(), time.process_time()
    while done < count:
        while started < count and len(running) < in_flight:
            handle, pidfd = start()
            running[pidfd] = handle
            poller.register(pidfd, select.POLLIN)
            started += 1
        ready = poller.poll(WAIT * 1000)
        if not ready:
            raise SystemExit(f"no job ended within {WAIT} s")
        for pidfd, _ in ready:
            poller.unregister(pidfd)
            finish(running.pop(pidfd), pidfd)
            done += 1
    return count / (time.perf_counter() - began), (time.process_time() - cpu) / count * 1000


def threads(start: Start, finish: Finish, count: int, workers: int) -> tuple[float, float]:
    """``workers`` threads, each starting a job, waiting on its pidfd and finishing it."""

    def whole_job(_: int) -> None:
        handle, pidfd = start()
        if not select.select([pidfd], [], [], WAIT)[0]:
            raise SystemExit(f"a job did not end within {WAIT} s")
        finish(handle, pidfd)

    began, cpu = time.perf_counter(), time.process_time()
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(whole_job, range(count)))
    return count / (time.perf_counter() - began), (time.process_time() - cpu) / count * 1000


if __name__ == "__main__":
    main()
