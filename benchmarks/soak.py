"""The soak: a central manager under a steady stream of collector updates for minutes,
with its negotiator cycling, and what it lost and grew (issue 17, must-show 4).

* The central manager is one process of its own (``fairpool pool start``: COLLECTOR,
  NEGOTIATOR and a SCHEDD with idle jobs that fit no slot, so every cycle matches all
  the slots against them and rejects each autocluster; NEGOTIATOR_INTERVAL 5 s).
* The load is another process (``soak.py generate``): ``--startds`` simulated startds
  (100) of ``--slots`` slot ads each (10, made from a startd's own slot layout), each
  startd one update a second (``--interval``) with all its slot ads and their ClaimIds,
  as a startd sends them: 1,000 ad updates a second, spread evenly over the second. Each
  ad carries its UpdateSequenceNumber. A startd that falls behind sends at once what is
  due (it never skips a number); the updates per second actually sent are reported, a
  generator that could not keep up is not hidden.
* At the end the collector's own statistics say what came: ``UpdatesTotal_Start``
  against the updates sent, ``UpdatesLost_Start``, and each slot ad's last sequence
  number against the generator's. The central manager's resident memory is sampled
  every few seconds; its growth is taken from the end of the warm-up (the first
  minute, a fifth of a shorter run) to the end.

Run: ``python benchmarks/soak.py [--seconds 300] [--startds 100] [--slots 10]``; prints
the rate, the losses, the cycles and the memory minute by minute. tests/daemons/
test_soak.py runs the same soak (a 20-second one in the default suite).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import psutil

CLI = [sys.executable, "-m", "fairpool.cli"]
CENTRAL_MANAGER = {
    "DAEMON_LIST": "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD",
    "COLLECTOR_HOST": "127.0.0.1:0",
    "NEGOTIATOR_INTERVAL": "5",
    "NEGOTIATOR_MIN_INTERVAL": "5",
    "SCHEDD_INTERVAL": "5",
}
# idle jobs in 20 autoclusters, none of which fits a slot of the soak (1 GiB each)
JOBS = "executable = /bin/true\n" + "".join(
    f"request_memory = {(n + 2) * 1024 * 1024}\naccounting_group_user = u{n % 2}\nqueue 10\n"
    for n in range(20)
)
SAMPLE = 5.0  # seconds between samples of the central manager's memory


@dataclass
class Report:
    """What a soak measured."""

    seconds: float
    target_rate: float
    sent: int = 0  # slot-ad updates the collector acknowledged
    rate: float = 0.0  # of them, per second of the run
    failed_posts: int = 0
    late_posts: int = 0  # sent more than a whole interval after they were due
    max_lag: float = 0.0
    updates_total: int = 0  # the collector's UpdatesTotal_Start
    updates_lost: int = 0  # UpdatesLost_Start
    updates_sequenced: int = 0
    ads_lost: int = 0  # the sum of the slot ads' own UpdatesLost
    stale_ads: list[str] = field(default_factory=list)  # last number not the last sent
    cycles: int = 0
    cycle_max: float = 0.0
    cpu: float = 0.0  # the central manager's CPU seconds over the run
    generator_cpu: float = 0.0
    rss: list[tuple[float, int]] = field(default_factory=list)  # (seconds in, bytes)
    cpu_used: list[tuple[float, float]] = field(default_factory=list)  # (seconds in, CPU s)
    lag: list[float] = field(default_factory=list)  # the generator's worst lag, by minute
    warm: float = 0.0  # the end of the warm-up, seconds in

    def cpu_by_minute(self) -> list[float]:
        """The central manager's share of a core in each minute (or part) of the run."""
        shares = []
        for start in range(0, max(1, int(self.seconds)), 60):
            inside = [c for c in self.cpu_used if start <= c[0] <= start + 60]
            if len(inside) >= 2:
                (t0, c0), (t1, c1) = inside[0], inside[-1]
                shares.append((c1 - c0) / (t1 - t0) if t1 > t0 else 0.0)
        return shares

    def rss_at(self, second: float) -> int:
        return min(self.rss, key=lambda sample: abs(sample[0] - second))[1]

    @property
    def growth(self) -> int:
        """Bytes the central manager grew from the end of the warm-up to the end."""
        return self.rss[-1][1] - self.rss_at(self.warm)

    def lines(self) -> list[str]:
        mib = 1024 * 1024
        minutes = range(0, int(self.seconds // 60) + 1)
        marks = [f"{m}:00 {self.rss_at(m * 60) / mib:.1f}" for m in minutes]
        return [
            f"updates sent        {self.sent:,} in {self.seconds:.0f} s: {self.rate:,.0f} /s "
            f"(target {self.target_rate:,.0f} /s; {self.late_posts} posts late, most "
            f"{self.max_lag:.2f} s; {self.failed_posts} failed)",
            f"collector counted   UpdatesTotal_Start {self.updates_total:,}, "
            f"UpdatesSequenced_Start {self.updates_sequenced:,}, "
            f"UpdatesLost_Start {self.updates_lost}, lost in the ads {self.ads_lost}, "
            f"ads not at their last number {len(self.stale_ads)}",
            f"negotiation cycles  {self.cycles}, the longest {self.cycle_max:.2f} s",
            f"CPU                 central manager {100 * self.cpu / self.seconds:.0f} % of a "
            f"core (by minute: {', '.join(f'{100 * c:.0f} %' for c in self.cpu_by_minute())}), "
            f"load generator {100 * self.generator_cpu / self.seconds:.0f} %; the generator's "
            f"worst lag by minute: {', '.join(f'{lag:.2f} s' for lag in self.lag)}",
            f"central manager RSS MiB by minute: {', '.join(marks)}; end "
            f"{self.rss[-1][1] / mib:.1f}; growth after the warm-up ({self.warm:.0f} s) "
            f"{self.growth / mib:+.1f} MiB ({100 * self.growth / self.rss_at(self.warm):+.1f} %)",
        ]


# -- the load -------------------------------------------------------------------------------
def startd_ads(number: int, slots: int) -> list[tuple[str, str]]:
    """The slot ads of simulated startd ``number``: (name, JSON text without its closing
    brace), made by the startd's own slot layout."""
    from fairpool.classad.jsonads import ad_to_json
    from fairpool.config import parse_config_text
    from fairpool.startd.layout import machine_ads

    host = f"startd{number:04d}.soak"
    config = parse_config_text(
        f"FULL_HOSTNAME = {host}\nNUM_CPUS = {slots}\nNUM_SLOTS = {slots}\n"
        f"MEMORY = {1024 * slots}\n",
        env={},
    )
    found = []
    for ad in machine_ads(config):
        obj = ad_to_json(ad)
        obj.update({"ApiAddress": "http://127.0.0.1:9/startd", "SoakStartd": True})
        found.append((obj["Name"], json.dumps(obj)[:-1]))
    return found


class _Connection:
    """One simulated startd's keep-alive HTTP/1.1 connection to the collector: each
    request written out and its answer read back, the least work a client can do (an
    HTTP library's own bookkeeping would weigh more than the collector's)."""

    def __init__(self, url: str) -> None:
        where = urlsplit(url)
        self.host, self.port, self.path = where.hostname or "", where.port or 80, where.path
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def post(self, body: bytes) -> bool:
        """Whether the collector took the update (a 200 answer)."""
        try:
            if self.streams is None:
                self.streams = await asyncio.open_connection(self.host, self.port)
            reader, writer = self.streams
            head = (
                f"POST {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
            )
            writer.write(head.encode() + body)
            answer = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            length = re.search(rb"(?i)content-length: *(\d+)", answer)
            await reader.readexactly(int(length.group(1)) if length else 0)
            return answer.startswith(b"HTTP/1.1 200")
        except (TimeoutError, OSError, asyncio.IncompleteReadError):
            await self.close()
            return False

    async def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            with contextlib.suppress(OSError):
                await self.streams[1].wait_closed()
            self.streams = None


async def generate(url: str, startds: int, slots: int, seconds: float, interval: float) -> dict:
    """Every simulated startd's updates for ``seconds``, paced; what was sent."""
    machines = [startd_ads(number, slots) for number in range(startds)]
    rounds = max(1, round(seconds / interval))
    tally: dict = {"sent": 0, "failed_posts": 0, "late_posts": 0, "max_lag": 0.0, "last": {}}
    tally["lag"] = [0.0] * (int(seconds // 60) + 1)  # the worst lag in each minute
    began = time.monotonic() + 0.5

    async def startd(number: int) -> None:
        ads, connection = machines[number], _Connection(url)
        private = json.dumps({name: {"ClaimId": f"soak#{number}#{name}"} for name, _ in ads})
        for sequence in range(rounds):
            due = began + (number / startds + sequence) * interval
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            lag = time.monotonic() - due
            tally["max_lag"] = max(tally["max_lag"], lag)
            minute = min(len(tally["lag"]) - 1, int((due - began) // 60))
            tally["lag"][minute] = max(tally["lag"][minute], lag)
            tally["late_posts"] += lag > interval
            now = int(time.time())
            tail = f', "UpdateSequenceNumber": {sequence}, "MyCurrentTime": {now}}}'
            body = f'{{"ads": [{", ".join(text + tail for _, text in ads)}], '
            body += f'"private": {private}}}'
            if not await connection.post(body.encode()):
                tally["failed_posts"] += 1
                continue
            tally["sent"] += len(ads)
            for name, _ in ads:
                tally["last"][name] = sequence
        await connection.close()

    await asyncio.gather(*(startd(n) for n in range(startds)))
    tally["elapsed"] = time.monotonic() - began
    tally["cpu"] = time.process_time()
    return tally


# -- the central manager ---------------------------------------------------------------------
def start_central_manager(directory: Path) -> str:
    """The central manager's base URL, once it runs with its idle jobs queued."""
    directory.mkdir(parents=True, exist_ok=True)
    config = directory / "soak_config"
    lines = [f"LOCAL_DIR = {directory}"] + [f"{k} = {v}" for k, v in CENTRAL_MANAGER.items()]
    config.write_text("\n".join(lines) + "\n")
    start = [*CLI, "pool", "start", "--dir", str(directory), "--config", str(config)]
    subprocess.run([*start, "--background"], check=True, capture_output=True)
    url = (directory / "address").read_text().strip()
    (directory / "jobs.sub").write_text(JOBS)
    submit = [*CLI, "submit", "jobs.sub", "--pool", url]
    subprocess.run(submit, check=True, capture_output=True, cwd=directory)
    return url


def stop_central_manager(directory: Path) -> None:
    subprocess.run([*CLI, "pool", "stop", "--dir", str(directory)], capture_output=True)


def soak(
    directory: Path, seconds: float, startds: int = 100, slots: int = 10, interval: float = 1.0
) -> Report:
    """A soak of ``seconds`` against a central manager started in ``directory``."""
    report = Report(seconds, startds * slots / interval)
    report.warm = min(60.0, seconds / 5)
    url = start_central_manager(directory)
    try:
        master = psutil.Process(int((directory / "master.pid").read_text()))
        command = [sys.executable, __file__, "generate", f"{url}/collector/update"]
        command += [str(startds), str(slots), str(seconds), str(interval)]
        generator = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        used = sum(master.cpu_times()[:2])
        began = time.monotonic()
        while generator.poll() is None and time.monotonic() - began < seconds + 120:
            report.rss.append((time.monotonic() - began, master.memory_info().rss))
            report.cpu_used.append((time.monotonic() - began, sum(master.cpu_times()[:2])))
            with contextlib.suppress(subprocess.TimeoutExpired):
                generator.wait(SAMPLE)
        if generator.poll() is None:
            generator.send_signal(signal.SIGKILL)
            raise RuntimeError("the load generator did not finish")
        report.rss.append((time.monotonic() - began, master.memory_info().rss))
        report.cpu = sum(master.cpu_times()[:2]) - used
        sent = json.loads(generator.stdout.read() if generator.stdout else "{}")
        _collected(report, url, sent)
        _cycles(report, directory / "log" / "NegotiatorLog")
    finally:
        stop_central_manager(directory)
    return report


def _collected(report: Report, url: str, sent: dict) -> None:
    report.sent, report.failed_posts = sent["sent"], sent["failed_posts"]
    report.late_posts, report.max_lag = sent["late_posts"], sent["max_lag"]
    report.rate = sent["sent"] / sent["elapsed"]
    report.generator_cpu, report.lag = sent["cpu"], sent["lag"]
    with httpx.Client(timeout=60) as http:
        own = http.get(f"{url}/collector/ads", params={"type": "Collector"}).json()["ads"][0]
        params = {"type": "Machine", "constraint": "SoakStartd =?= true"}
        ads = http.get(f"{url}/collector/ads", params=params).json()["ads"]
    report.updates_total = own.get("UpdatesTotal_Start", 0)
    report.updates_lost = own.get("UpdatesLost_Start", 0)
    report.updates_sequenced = own.get("UpdatesSequenced_Start", 0)
    report.ads_lost = sum(ad.get("UpdatesLost", 0) for ad in ads)
    last = sent["last"]
    found = {ad["Name"]: ad.get("UpdateSequenceNumber") for ad in ads}
    report.stale_ads = sorted(n for n in last if found.get(n) != last[n])


def _cycles(report: Report, log: Path) -> None:
    durations = [float(s) for s in re.findall(r"cycle: .*?, ([\d.]+) s$", log.read_text(), re.M)]
    report.cycles = len(durations)
    report.cycle_max = max(durations, default=0.0)


def main() -> None:
    if sys.argv[1:2] == ["generate"]:
        url, startds, slots, seconds, interval = sys.argv[2:7]
        tally = asyncio.run(
            generate(url, int(startds), int(slots), float(seconds), float(interval))
        )
        print(json.dumps(tally))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--startds", type=int, default=100)
    parser.add_argument("--slots", type=int, default=10, help="slot ads per startd")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between updates")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="fairpool-soak-"))
    print(f"fairpool soak ({os.cpu_count()} cores), in {root}", flush=True)
    try:
        report = soak(root / "cm", args.seconds, args.startds, args.slots, args.interval)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for text in report.lines():
        print(text)
    print(json.dumps({k: v for k, v in asdict(report).items() if k != "stale_ads"}))


if __name__ == "__main__":
    main()
