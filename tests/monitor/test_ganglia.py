"""condor_gangliad's publication, read back from a real gmond (Debian's ganglia-monitor)
on loopback: the pool's metrics land on the machine's page through gmond's protocol,
spoofed per host, and GANGLIA_SEND_DATA_FOR_ALL_HOSTS = False keeps to the hosts
GANGLIA_GSTAT_COMMAND lists."""

from __future__ import annotations

import shutil
import socket
import subprocess
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from fairpool.monitor.ganglia import monitored_hosts, send_channels
from livepool import LivePool

GMOND = shutil.which("gmond")

GMOND_CONF = """
globals {{
  daemonize = no
  setuid = no
  debug_level = 0
  mute = yes
  deaf = no
  allow_extra_data = yes
  host_dmax = 0
  send_metadata_interval = 0
}}
cluster {{ name = "fairpool-test" }}
udp_send_channel {{
  host = 127.0.0.1
  port = {udp}   # gangliad sends here
}}
udp_recv_channel {{
  port = {udp}
  bind = 127.0.0.1
}}
tcp_accept_channel {{
  port = {tcp}
  bind = 127.0.0.1
}}
"""


def _free_port(kind: int) -> int:
    with socket.socket(socket.AF_INET, kind) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _xml(port: int) -> ET.Element | None:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
    except OSError:
        return None
    return ET.fromstring(b"".join(chunks))


def _metrics(root: ET.Element | None, host: str) -> dict[str, ET.Element]:
    if root is None:
        return {}
    return {m.get("NAME"): m for h in root.iter("HOST") if h.get("NAME") == host for m in h}


def test_the_configuration_readers() -> None:
    text = GMOND_CONF.format(udp=1234, tcp=5678) + "udp_send_channel { mcast_join = 239.2.11.71 }"
    assert send_channels(text, "gmond.conf") == [("127.0.0.1", 1234), ("239.2.11.71", 8649)]
    assert monitored_hosts("node1.example:8\nnode2:4\n") == {"node1.example", "node1", "node2"}


@pytest.mark.skipif(GMOND is None, reason="gmond is not installed (Debian's ganglia-monitor)")
def test_gangliad_publishes_to_a_real_gmond(tmp_path: Path) -> None:
    udp, tcp = _free_port(socket.SOCK_DGRAM), _free_port(socket.SOCK_STREAM)
    conf = tmp_path / "gmond.conf"
    conf.write_text(GMOND_CONF.format(udp=udp, tcp=tcp))
    gmond = subprocess.Popen(
        [str(GMOND), "-f", "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    knobs = {
        "DAEMON_LIST": "MASTER, COLLECTOR, NEGOTIATOR, SCHEDD, STARTD, GANGLIAD",
        "GANGLIA_CONFIG": conf,
        "GANGLIAD_INTERVAL": 1,
        "GANGLIA_SEND_DATA_FOR_ALL_HOSTS": True,
    }
    try:
        with LivePool(tmp_path / "pool", **knobs) as pool:
            host = pool.slots()[0]["Machine"]
            LivePool.wait(lambda: "PoolSlots_Unclaimed" in _metrics(_xml(tcp), host), 30, "gmond")
            metrics = _metrics(_xml(tcp), host)
            states = Counter(slot["State"] for slot in pool.slots())
            for state, count in states.items():
                assert metrics[f"PoolSlots_{state}"].get("VAL") == str(count)
            node = metrics["NodeCpus"]
            assert (node.get("VAL"), node.get("TYPE"), node.get("SLOPE")) == ("2", "int32", "both")
            assert metrics["JobsSubmitted"].get("SLOPE") == "positive"  # a Derivative
            extra = {e.get("NAME"): e.get("VAL") for e in metrics["NodeCpus"].iter("EXTRA_ELEMENT")}
            assert extra["GROUP"] == "HTCondor Startd"
            assert extra["SPOOF_HOST"].endswith(f":{host}")  # published on the machine's behalf
            assert int(metrics["NodeCpus"].get("TMAX")) == 1
            # only the hosts Ganglia monitors: a gstat that lists another host
            pool.set_knobs(
                GANGLIA_SEND_DATA_FOR_ALL_HOSTS=False, GANGLIA_GSTAT_COMMAND="echo other.host:4"
            )
            assert pool.post("/gangliad/publish")["metrics"] == 0
            pool.set_knobs(GANGLIA_GSTAT_COMMAND=f"echo {host}:2")
            assert pool.post("/gangliad/publish")["metrics"] > 10
    finally:
        gmond.terminate()
        try:
            gmond.wait(10)
        except subprocess.TimeoutExpired:
            gmond.kill()
            gmond.wait(5)
