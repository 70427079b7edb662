"""Where a process listens and which collectors it reports to (daemons/addresses.py), and
the names of several daemons of one kind on one host: COLLECTOR_HOST as a list,
COLLECTOR_ARGS -p, NETWORK_INTERFACE, BIND_ALL_INTERFACES, SCHEDD_NAME / STARTD_NAME /
MASTER_NAME as ``name@host``. A bad value is one error naming the knob; ``fairpool pool
start`` says it in one line and exits non-zero.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fairpool.config import parse_config_text
from fairpool.config.knob_values import daemon_name
from fairpool.daemons.addresses import (
    CollectorHost,
    collector_hosts,
    collector_port,
    interface,
    is_local,
    listed_collectors,
    own_collector,
)
from fairpool.errors import ConfigError
from fairpool.startd.layout import machine_ads
from knobs import TextKnobs
from livepool import fairpool


def config(text: str):
    return parse_config_text(text, "pool.config", env={})


def test_collector_host_lists_several_collectors_in_order():
    hosts = collector_hosts(
        config("COLLECTOR_HOST = cm1.example.org, cm2.example.org:9619 https://cm3:443/")
    )
    assert hosts == [
        CollectorHost("cm1.example.org", 9618),  # HTCondor's port when none is given
        CollectorHost("cm2.example.org", 9619),
        CollectorHost("cm3", 443, "https"),
    ]
    assert [h.url for h in hosts][1:] == [
        "http://cm2.example.org:9619/collector",
        "https://cm3:443/collector",
    ]
    assert collector_hosts(config("")) == [CollectorHost("127.0.0.1", 0)]  # a personal pool


@pytest.mark.parametrize("text", ["cm:port", "cm:70000", "ftp://cm:21", ":9618"])
def test_a_bad_collector_host_names_the_knob_and_the_line(text):
    with pytest.raises(ConfigError) as err:
        collector_hosts(config(f"# a comment\nCOLLECTOR_HOST = cm1:9618, {text}"))
    assert err.value.knob == "COLLECTOR_HOST" and err.value.line == 2
    assert "host[:port]" in str(err.value)
    with pytest.raises(ConfigError) as err:  # the view servers' list is read the same way
        listed_collectors(config(f"CONDOR_VIEW_HOST = {text}"), "CONDOR_VIEW_HOST")
    assert err.value.knob == "CONDOR_VIEW_HOST"


def test_a_central_manager_knows_its_own_entry():
    two = "COLLECTOR_HOST = 127.0.0.1:9618, 127.0.0.1:9619\n"
    first, second = config(two), config(two + "COLLECTOR_ARGS = -f -p 9619")
    hosts = collector_hosts(first)
    # the first entry naming this host, unless COLLECTOR_ARGS -p says which
    assert own_collector(first, hosts, True, "127.0.0.1") == 0
    assert collector_port(first, hosts, 0) == 9618
    assert own_collector(second, hosts, True, "127.0.0.1") == 1
    assert collector_port(second, hosts, 1) == 9619
    # a process without a collector has none of its own
    assert own_collector(first, hosts, False, "127.0.0.1") is None
    # the pool's only collector is this one, whatever name the host goes by there
    one = config("COLLECTOR_HOST = cm.invalid:9618")
    assert own_collector(one, collector_hosts(one), True, "127.0.0.1") == 0
    # a collector -p names outside the list (an HTCondorView server, say) is no entry
    other = config(two + "COLLECTOR_ARGS = -p 9700")
    assert own_collector(other, hosts, True, "127.0.0.1") is None
    assert collector_port(other, hosts, None) == 9700


def test_a_central_manager_that_is_no_entry_is_told_so():
    remote = config("COLLECTOR_HOST = cm1.invalid:9618, cm2.invalid:9618")
    with pytest.raises(ConfigError) as err:
        own_collector(remote, collector_hosts(remote), True, "127.0.0.1")
    assert err.value.knob == "COLLECTOR_HOST" and "COLLECTOR_ARGS = -p PORT" in str(err.value)
    # port 0 (any free port) only in the collector's own process
    personal = config("COLLECTOR_HOST = 127.0.0.1:0")
    with pytest.raises(ConfigError, match="port 0"):
        own_collector(personal, collector_hosts(personal), False, "127.0.0.1")
    for args in ("-p", "-p nine", "-sock collector", "'-p"):
        bad = config(f"COLLECTOR_HOST = 127.0.0.1:9618\nCOLLECTOR_ARGS = {args}")
        with pytest.raises(ConfigError) as err:
            own_collector(bad, collector_hosts(bad), True, "127.0.0.1")
        assert err.value.knob == "COLLECTOR_ARGS" and "-p PORT" in str(err.value)


def test_network_interface_is_where_a_process_listens_and_what_it_advertises():
    assert interface(config("")).bind == "127.0.0.1"  # fairpool's default: this host only
    assert interface(config("NETWORK_INTERFACE = 127.0.0.1")).advertised == "127.0.0.1"
    assert interface(config("NETWORK_INTERFACE = lo")).advertised == "127.0.0.1"  # a device
    assert interface(config("NETWORK_INTERFACE = 127.*")).advertised == "127.0.0.1"
    assert not interface(config("NETWORK_INTERFACE = *")).advertised.startswith("0.")
    every = interface(config("NETWORK_INTERFACE = 127.0.0.1\nBIND_ALL_INTERFACES = True"))
    assert (every.bind, every.advertised) == ("0.0.0.0", "127.0.0.1")
    for text in ("no-such-device", "10.255.255.*", "::1"):
        with pytest.raises(ConfigError) as err:
            interface(config(f"NETWORK_INTERFACE = {text}"))
        assert err.value.knob == "NETWORK_INTERFACE" and "127.0.0.1" in str(err.value)


def test_local_names():
    assert is_local("127.0.0.1") and is_local("localhost") and is_local("127.0.1.1")
    assert not is_local("cm.invalid")


def test_daemon_names_are_name_at_host():
    assert daemon_name(None, "h.example.org") == "h.example.org"
    assert daemon_name(" sub1 ", "h.example.org") == "sub1@h.example.org"
    assert daemon_name("sub1@elsewhere", "h.example.org") == "sub1@elsewhere"
    assert daemon_name("h.example.org", "h.example.org") == "h.example.org@h.example.org"


def test_startd_name_names_the_slots():
    knobs = "FULL_HOSTNAME = h.example.org\nNUM_CPUS = 2\nNUM_SLOTS = 2\n"
    plain = machine_ads(TextKnobs(knobs))
    named = machine_ads(TextKnobs(knobs + "STARTD_NAME = exec1\n"))
    assert [ad["Name"] for ad in plain] == ["slot1@h.example.org", "slot2@h.example.org"]
    assert [ad["Name"] for ad in named] == [
        "slot1@exec1@h.example.org",
        "slot2@exec1@h.example.org",
    ]
    assert {ad["Machine"] for ad in named} == {"h.example.org"}


def test_pool_start_refuses_a_bad_address_in_one_line(tmp_path: Path):
    for knob, value in (
        ("COLLECTOR_HOST", "127.0.0.1:nine"),
        ("NETWORK_INTERFACE", "no-such-device"),
        ("COLLECTOR_ARGS", "-sock collector"),
    ):
        path = tmp_path / f"{knob}.config"
        path.write_text(f"DAEMON_LIST = MASTER, COLLECTOR\n{knob} = {value}\n")
        result = fairpool(
            "pool", "start", "--dir", str(tmp_path / knob), "--config", str(path), check=False
        )
        assert result.returncode != 0
        message = result.stderr.strip()
        assert len(message.splitlines()) == 1 and knob in message, message
        assert "Traceback" not in result.stderr


def test_a_command_refuses_a_pool_that_is_no_address():
    result = fairpool("status", "--pool", "ftp://cm:21", check=False)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1
    assert message.endswith("the pool 'ftp://cm:21': expected host[:port] or an http(s):// URL")
