"""HTCondorView on real daemons: a pool's collector forwards every update to a view
collector in another process (CONDOR_VIEW_HOST; the view collector, whose own
CONDOR_VIEW_HOST names itself, ignores it), the view collector samples the pool into
POOL_HISTORY_DIR (KEEP_POOL_HISTORY), and ``fairpool stats`` answers condor_stats'
questions over an hour of samples (the hour before the test seeded into the same store),
as a table and a chart. The storage bound (POOL_HISTORY_MAX_STORAGE) drops the oldest."""

from __future__ import annotations

import socket
import time
from pathlib import Path

from fairpool.store.pool_history import PoolHistory
from livepool import LivePool, fairpool


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_view_collector_keeps_the_pools_history_for_fairpool_stats(tmp_path: Path):
    history_dir = tmp_path / "history"
    user = "alice@example.org"
    hour_ago = time.time() - 3600
    seeded = PoolHistory(history_dir, 10_000_000)
    for minute in range(60):  # the hour before: alice had 3 running and 60 - minute idle
        when = hour_ago + 60 * minute
        seeded.record(when, [("slot1@old", "Claimed", "Busy")], [(user, 3, 60 - minute)])
    seeded.close()
    port = _free_port()
    address = f"127.0.0.1:{port}"
    view = LivePool(
        tmp_path / "view",
        DAEMON_LIST="MASTER, COLLECTOR",
        COLLECTOR_HOST=address,
        CONDOR_VIEW_HOST=address,  # itself: ignored
        KEEP_POOL_HISTORY=True,
        POOL_HISTORY_DIR=history_dir,
        POOL_HISTORY_SAMPLING_INTERVAL=1,
        UID_DOMAIN="example.org",
    )
    view.start(wait_for_slots=False)
    try:
        with LivePool(
            tmp_path / "pool", CONDOR_VIEW_HOST=f"localhost:{port}", UID_DOMAIN="example.org"
        ) as pool:
            # the pool's slots reach the view collector through the pool's collector
            forwarded = view.wait(lambda: view.slots(), 20, "forwarded slot ads")
            assert {ad["Name"] for ad in forwarded} == {ad["Name"] for ad in pool.slots()}
            assert (
                view.get("/collector/ads", type="Collector")["ads"][0]["Name"]
                != (pool.get("/collector/ads", type="Collector")["ads"][0]["ApiAddress"])
            )
            pool.submit(
                "executable = /bin/sleep\narguments = 3\naccounting_group_user = alice\nqueue 4\n",
                tmp_path / "work",
            )
            view.wait(lambda: _running(view, user) > 0, 30, "alice running, seen by the view")
        out = fairpool("stats", "-userlist", "--pool", view.url).stdout
        assert user in out.split()
        rows = fairpool("stats", "-lasthours", "2", "-userquery", user, "--pool", view.url)
        lines = rows.stdout.splitlines()
        assert lines[0].split() == ["Time", "Running", "Idle"]
        figures = [line.split()[2:] for line in lines[1:]]
        assert len(figures) > 60 and figures[0] == ["3", "60"]  # the seeded hour, in order
        assert any(int(running) > 0 for running, _ in figures[60:])  # and the live samples
        last_hour = fairpool("stats", "-lasthours", "0.5", "-userquery", user, "--pool", view.url)
        assert 30 <= len(last_hour.stdout.splitlines()) - 1 < len(figures)
        chart = tmp_path / "slots.png"
        slots = fairpool(
            "stats", "-resgroupquery", "Total", "--plot", chart, "--pool", view.url
        ).stdout.splitlines()
        assert slots[0].split()[-1] == "Total" and chart.read_bytes()[:4] == b"\x89PNG"
        assert fairpool("stats", "-resourcequery", "slot1@old", "--pool", view.url).stdout
        refused = fairpool("stats", "-userquery", user, "--pool", tmp_path.as_uri(), check=False)
        assert refused.returncode != 0 and "Traceback" not in refused.stderr
    finally:
        view.stop()


def test_pool_history_max_storage_drops_the_oldest_samples(tmp_path: Path):
    store = PoolHistory(tmp_path, 200_000)
    slots = [(f"slot{n}@host", "Claimed", "Busy") for n in range(50)]
    for minute in range(200):
        store.record(60.0 * minute, slots, [("a@d", minute, 0)])
    kept = store.submitters(0, 1e12, "a@d")
    assert 0 < len(kept) < 200 and kept[-1].running == 199  # the newest stay
    assert kept[0].time > 0  # the oldest went
    store.close()


def _running(view: LivePool, user: str) -> int:
    ads = view.get("/collector/ads", type="Submitter", constraint=f'Name == "{user}"')["ads"]
    return sum(ad.get("RunningJobs", 0) for ad in ads)
