"""A submission is grouped into autoclusters as soon as it is queued, by the attributes
the negotiator gives before its first cycle (GET /negotiator/autocluster-attrs): the
next cycle reads one request per autocluster instead of a pass over every new job."""

from __future__ import annotations

from pathlib import Path

from livepool import LivePool

ONLY_WHEN_ASKED = {"NEGOTIATOR_INTERVAL": 100_000, "NEGOTIATOR_MIN_INTERVAL": 100_000}


def test_a_submission_is_grouped_before_any_cycle_asks_for_it(tmp_path: Path):
    work = tmp_path / "work"
    work.mkdir()
    with LivePool(tmp_path / "pool", NUM_CPUS=1, **ONLY_WHEN_ASKED) as pool:
        names = pool.get("/negotiator/autocluster-attrs")["AutoClusterAttrs"]
        assert names == sorted(names, key=str.lower) and "Memory" in names
        text = "executable = /bin/true\nrequest_memory = $(m)\nqueue m in (10, 10, 20)\n"
        assert "3 job(s) submitted to cluster 1." in pool.submit(text, work)

        def autoclusters() -> list:
            found = [pool.get(f"/schedd/jobs/1.{p}")["autocluster"] for p in range(3)]
            return found if None not in found else []

        first, second, third = pool.wait(autoclusters, 20, "the jobs' autoclusters")
        assert first == second != third  # request_memory tells them apart
        asked = [
            c["stats"]["LastNegotiationCycleNumIdleJobs0"]
            for c in pool.get("/negotiator/cycles", last=100)["cycles"]
        ]
        assert not any(asked)  # no cycle has read the schedd's requests yet
        cycle = pool.post("/negotiator/cycle")["cycle"]
        assert len(cycle["matches"]) == 1
        assert {m["autocluster"] for m in cycle["matches"]} <= {first, third}
