"""A real Prometheus server scrapes a live pool's /metrics and answers PromQL queries
with the pool's own figures (Debian's ``prometheus`` package; .ci/run installs it)."""

from __future__ import annotations

import shutil
import socket
import subprocess
from pathlib import Path

import httpx
import pytest

from livepool import LivePool

PROMETHEUS = shutil.which("prometheus")
pytestmark = pytest.mark.skipif(
    PROMETHEUS is None, reason="prometheus is not installed (.ci/run installs it with apt-get)"
)

CONFIG = """
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: fairpool
    static_configs:
      - targets: ["{target}"]
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_prometheus_scrapes_the_pool(steady_pool: LivePool, tmp_path: Path) -> None:
    pool = steady_pool
    target = pool.url.split("://", 1)[1]
    (tmp_path / "prometheus.yml").write_text(CONFIG.format(target=target))
    port = _free_port()
    server = subprocess.Popen(
        [
            str(PROMETHEUS),
            f"--config.file={tmp_path / 'prometheus.yml'}",
            f"--storage.tsdb.path={tmp_path / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--log.level=warn",
        ],
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "prometheus.log", "w"),  # noqa: SIM115
    )
    api = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10)
    try:

        def query(promql: str) -> dict[str, float]:
            try:
                answer = api.get("/api/v1/query", params={"query": promql}).json()
            except (httpx.HTTPError, ValueError):  # not up yet
                return {}
            return {
                r["metric"].get("aggregate_group", ""): float(r["value"][1])
                for r in answer.get("data", {}).get("result", [])
            }

        # a few scrapes, so that the counters have a rate
        pool.wait(lambda: query("count_over_time(htcondor_pool_jobs[1m]) > 3"), 60, "scrapes")
        jobs = pool.jobs()
        slots = pool.slots()
        assert query("htcondor_pool_jobs") == {
            "Idle": sum(j["JobStatus"] == 1 for j in jobs),
            "Running": sum(j["JobStatus"] == 2 for j in jobs),
            "Held": sum(j["JobStatus"] == 5 for j in jobs),
        }
        assert query('htcondor_pool_jobs{aggregate_group="Held"}') == {"Held": 1.0}
        assert query("sum(htcondor_pool_slots)") == {"": float(len(slots))}
        assert query('htcondor_pool_cpus{aggregate_group="Claimed"}') == {"Claimed": 2.0}
        # every submitter the accountant knows has its effective priority, as userprio says
        accountant = pool.accountant()
        eups = query("htcondor_submitter_effective_priority")
        assert set(eups) == {n for n, c in accountant.items() if "@" in n}
        for name, eup in eups.items():
            record = accountant[name]
            assert eup == pytest.approx(record["priority"] * record["factor"], rel=0.05)
        assert query('htcondor_group_quota{aggregate_group="group_physics"}') == {
            "group_physics": 1.0
        }
        reasons = query("htcondor_negotiation_cycle_rejections_by_reason")
        assert reasons.get("NoMatchFound", 0) >= 1  # carol's job
        assert query("htcondor_jobs_submitted_total") == {"": 6.0}
        assert query("rate(htcondor_collector_updates_total[30s]) > 0")
    finally:
        api.close()
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(5)
    assert server.returncode is not None
