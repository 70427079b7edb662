"""Updates to every collector of COLLECTOR_HOST, queries to the first that answers
(daemons/collectors.py), with one collector that never answers: a socket on 127.0.0.1
whose backlog is full, so that connecting to it times out as connecting to a host that
drops packets does. The other is a real collector process.

The update reaches the real collector at once, while the send to the silent one waits
for its connect timeout; the next update does not wait at all (the silent collector is
tried again only after RETRY seconds), and the outage is one line in the log.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from fairpool.config import parse_config_text
from fairpool.daemons.addresses import CollectorHost
from fairpool.daemons.context import Context, PoolPaths
from fairpool.runtime.realtime import RealtimeEnvironment
from fairpool.store.database import open_database
from hosts import free_port
from livepool import LivePool


@pytest.fixture
def silent() -> Iterator[int]:
    """A port on 127.0.0.1 that takes no connection: its one-place backlog filled."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    port = server.getsockname()[1]
    fillers = []
    for _ in range(3):
        filler = socket.socket()
        filler.setblocking(False)
        filler.connect_ex(("127.0.0.1", port))
        fillers.append(filler)
    yield port
    for sock in (*fillers, server):
        sock.close()


def context(tmp_path: Path, hosts: list[CollectorHost]) -> Context:
    paths = PoolPaths(tmp_path, tmp_path / "spool", tmp_path / "log", tmp_path / "execute")
    paths.make()
    config = parse_config_text("", env={})
    ctx = Context(config, RealtimeEnvironment(), paths, open_database(paths.spool))
    ctx.collector_hosts = hosts
    return ctx


def slot(name: str) -> dict:
    return {"MyType": "Machine", "Name": name, "State": "Unclaimed", "Cpus": 1}


def test_a_silent_collector_delays_no_update_to_the_others(tmp_path: Path, silent: int):
    port = free_port()
    cm = LivePool(
        tmp_path / "cm", DAEMON_LIST="MASTER, COLLECTOR", COLLECTOR_HOST=f"127.0.0.1:{port}"
    )
    cm.start(wait_for_slots=False)
    try:
        client = httpx.AsyncClient(timeout=5)

        async def names() -> set[str]:
            found = await client.get(f"{cm.url}/collector/ads", params={"type": "Machine"})
            return {ad["Name"] for ad in found.json()["ads"]}

        async def scenario() -> dict:
            figures: dict = {}
            hosts = [CollectorHost("127.0.0.1", silent), CollectorHost("127.0.0.1", port)]
            collectors = context(tmp_path / "daemon", hosts).collectors
            started = time.monotonic()
            sending = asyncio.ensure_future(collectors.update([slot("slot1@a")]))
            while "slot1@a" not in await names():
                await asyncio.sleep(0.02)
            figures["arrived"] = time.monotonic() - started
            figures["waiting"] = not sending.done()
            await sending
            figures["first"] = time.monotonic() - started
            started = time.monotonic()
            await collectors.update([slot("slot1@a"), slot("slot2@a")])
            figures["second"] = time.monotonic() - started
            figures["answer"] = await collectors.get("/ads", type="Machine")
            await collectors.invalidate("Machine", names=["slot2@a"])
            figures["after"] = await names()
            figures["numbers"] = dict(collectors.sequence)
            await collectors.close()
            # a daemon just started asks the silent collector first, then the next
            fresh = context(tmp_path / "fresh", hosts).collectors
            started = time.monotonic()
            figures["fresh"] = await fresh.get("/ads", type="Machine")
            figures["query"] = time.monotonic() - started
            await fresh.close()
            await client.aclose()
            return figures

        figures = asyncio.run(scenario())
    finally:
        cm.stop()
        cm.http.close()
    assert figures["arrived"] < 1.0 and figures["waiting"], figures
    assert 1.5 < figures["first"] < 4.0, figures  # the silent one's connect timeout, no more
    assert figures["second"] < 0.5, figures  # not tried again before RETRY
    ads = {ad["Name"]: ad for ad in figures["answer"]["ads"]}
    assert ads["slot1@a"]["UpdateSequenceNumber"] == 1
    assert (ads["slot1@a"]["UpdatesSequenced"], ads["slot1@a"]["UpdatesLost"]) == (1, 0)
    assert ads["slot2@a"]["UpdateSequenceNumber"] == 0
    assert figures["after"] == {"slot1@a"}
    assert figures["numbers"] == {("machine", "slot1@a", ""): 1}
    assert {ad["Name"] for ad in figures["fresh"]["ads"]} == {"slot1@a"}
    assert 1.5 < figures["query"] < 4.0, figures
    log = (tmp_path / "daemon" / "log" / "MasterLog").read_text()
    assert log.count(f"127.0.0.1:{silent}/collector is down") == 1, log
