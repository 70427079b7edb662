"""The knobs of high availability (daemons/had_config.py): each central manager finds its
own HAD_LIST entry, the stabilization period follows the seed's formula, and a knob that
describes no central manager is one error naming it; a pool started with such a
configuration exits with that one line."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from fairpool.config import parse_config_text
from fairpool.daemons.had_config import had_settings
from fairpool.errors import ConfigError
from livepool import fairpool


def settings(text: str, port: int):
    return had_settings(parse_config_text(text, env={}), port)


def test_each_central_manager_finds_its_own_entry() -> None:
    text = "HAD_LIST = 127.0.0.1:9618, <localhost:9619>, cm3.invalid:9618\n"
    first, second = settings(text, 9618), settings(text, 9619)
    assert (first.me, first.index, second.me, second.index) == (
        "127.0.0.1:9618",
        0,
        "localhost:9619",
        1,
    )
    assert first.timeout == 5.0 and first.stabilization == 12 * 3 * 5.0  # the seed's formula
    assert first.primary is None  # HAD_USE_PRIMARY is False by default
    fast = settings(text + "HAD_CONNECTION_TIMEOUT = 0.25\nHAD_USE_PRIMARY = True\n", 9619)
    assert fast.stabilization == pytest.approx(9.0) and fast.primary == "127.0.0.1:9618"
    # HAD_PORT names the entry, as HTCondor's sample configurations write HAD_LIST
    by_had_port = settings(f"HAD_LIST = {socket.gethostname()}:51450\nHAD_PORT = 51450\n", 1)
    assert by_had_port.me == f"{socket.gethostname().lower()}:51450"


@pytest.mark.parametrize(
    ("text", "knob", "expected"),
    [
        ("", "HAD_LIST", "the central managers' host:port"),
        ("HAD_LIST = 127.0.0.1:9618, cm2", "HAD_LIST", "host:port entries ('cm2'"),
        ("HAD_LIST = 127.0.0.1:9618, 127.0.0.1:9618", "HAD_LIST", "each central manager once"),
        ("HAD_LIST = 127.0.0.1:1, 127.0.0.1:2", "HAD_LIST", "no entry has this machine"),
        ("HAD_LIST = cm1.invalid:9618", "HAD_LIST", "no entry has this machine"),
        ("HAD_LIST = 127.0.0.1:9618\nHAD_CONNECTION_TIMEOUT = 0", "HAD_CONNECTION_TIMEOUT", ""),
        ("HAD_LIST = 127.0.0.1:9618\nHAD_CONTROLLEE = SCHEDD", "HAD_CONTROLLEE", "NEGOTIATOR"),
    ],
)
def test_a_knob_that_describes_no_central_manager_is_one_error(
    text: str, knob: str, expected: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        settings(text + "\n", 9618)
    assert caught.value.knob == knob and expected in str(caught.value)


@pytest.mark.parametrize(
    ("knobs", "expected"),
    [
        ("DAEMON_LIST = MASTER, COLLECTOR, HAD", "DAEMON_LIST: HAD controls the NEGOTIATOR"),
        ("DAEMON_LIST = MASTER, COLLECTOR, NEGOTIATOR, HAD", "DATABASE_URL"),
    ],
)
def test_a_pool_configured_wrongly_for_high_availability_exits_with_one_line(
    tmp_path: Path, knobs: str, expected: str
) -> None:
    config = tmp_path / "condor_config"
    config.write_text(f"LOCAL_DIR = {tmp_path}\nCOLLECTOR_HOST = 127.0.0.1:0\n{knobs}\n")
    result = fairpool("pool", "start", "--dir", str(tmp_path), "--config", str(config), check=False)
    assert result.returncode != 0
    assert expected in result.stderr and "Traceback" not in result.stderr
