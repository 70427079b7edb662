"""HTTPS when the pool is given a certificate (AUTH_SSL_SERVER_CERTFILE and
AUTH_SSL_SERVER_KEYFILE, one made by the ``openssl`` command for 127.0.0.1): a central
manager and an execute host in two processes and two directories, tokens required. The
execute host has no signing key: its daemons present the token given to them in
SEC_TOKEN_SYSTEM_DIRECTORY, over TLS checked against AUTH_SSL_CLIENT_CAFILE."""

from __future__ import annotations

import shutil
import ssl
from pathlib import Path

import httpx
import pytest

from livepool import LivePool, fairpool
from securepool import SECURED, Tokens, certificate

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl command")


def test_a_pool_over_https_with_an_execute_host_holding_only_a_token(tmp_path: Path) -> None:
    cert, key = certificate(tmp_path)
    tls = {
        "AUTH_SSL_SERVER_CERTFILE": cert,
        "AUTH_SSL_SERVER_KEYFILE": key,
        "AUTH_SSL_CLIENT_CAFILE": cert,
    }
    tokens = Tokens(tmp_path / "cm")
    trusting = ssl.create_default_context(cafile=str(cert))
    manager = LivePool(
        tmp_path / "cm",
        token=tokens.admin,
        verify=trusting,
        **SECURED,
        **tls,
        DAEMON_LIST="MASTER, COLLECTOR, NEGOTIATOR, SCHEDD",
    )
    manager.start(wait_for_slots=False)
    execute = None
    try:
        assert manager.url.startswith("https://127.0.0.1:")
        port = manager.url.rsplit(":", 1)[1]
        system = tmp_path / "execute" / "tokens.d"  # its SEC_TOKEN_SYSTEM_DIRECTORY
        system.mkdir(parents=True)
        (system / "condor").write_text(tokens.make("condor") + "\n")
        execute = LivePool(
            tmp_path / "execute",
            **SECURED,
            **tls,
            DAEMON_LIST="MASTER, STARTD",
            COLLECTOR_HOST=f"127.0.0.1:{port}",
        )
        execute.start(wait_for_slots=False)
        assert not (tmp_path / "execute" / "passwords.d").exists()  # no key made there
        slots = manager.wait(lambda: manager.slots(), 30, "the execute host's slots")
        assert all(ad["ApiAddress"].startswith(execute.url) for ad in slots)
        assert execute.url.startswith("https://")

        with pytest.raises(httpx.ConnectError):  # a client that does not trust it
            httpx.get(f"{manager.url}/master/status", timeout=10)
        with pytest.raises(httpx.HTTPError):  # plain HTTP to the TLS port
            httpx.get(f"http://127.0.0.1:{port}/master/status", timeout=10)

        folder = tmp_path / "admin-tokens"
        folder.mkdir()
        (folder / "admin").write_text(tokens.admin + "\n")
        environment = {"_CONDOR_SEC_TOKEN_DIRECTORY": str(folder)}
        trusted = {**environment, "_CONDOR_AUTH_SSL_CLIENT_CAFILE": str(cert)}
        status = fairpool("pool", "status", "--pool", manager.url, env=trusted).stdout
        assert f"pool at {manager.url}" in status and f"slots: {len(slots)}" in status
        refused = fairpool("pool", "status", "--pool", manager.url, env=environment, check=False)
        assert refused.returncode == 1 and "CERTIFICATE_VERIFY_FAILED" in refused.stderr
        assert len(refused.stderr.splitlines()) == 1  # one line, no traceback
    finally:
        if execute is not None:
            execute.stop()
        manager.stop()


@pytest.mark.parametrize(
    ("text", "knob", "message"),
    [
        ("AUTH_SSL_SERVER_CERTFILE = {cert}", "AUTH_SSL_SERVER_KEYFILE", "go together"),
        ("AUTH_SSL_SERVER_KEYFILE = {key}", "AUTH_SSL_SERVER_CERTFILE", "go together"),
        (
            "AUTH_SSL_SERVER_CERTFILE = {dir}/none.pem\nAUTH_SSL_SERVER_KEYFILE = {key}",
            "AUTH_SSL_SERVER_CERTFILE",
            "an existing PEM file",
        ),
        (
            "AUTH_SSL_SERVER_CERTFILE = {key}\nAUTH_SSL_SERVER_KEYFILE = {key}",
            "AUTH_SSL_SERVER_CERTFILE",
            "a PEM certificate that",
        ),
    ],
)
def test_a_certificate_that_cannot_be_served_stops_the_start(
    tmp_path: Path, text: str, knob: str, message: str
) -> None:
    cert, key = certificate(tmp_path)
    config = tmp_path / "condor_config"
    config.write_text(f"LOCAL_DIR = {tmp_path}\n" + text.format(cert=cert, key=key, dir=tmp_path))
    refused = fairpool(
        "pool", "start", "--dir", str(tmp_path), "--config", str(config), check=False
    )
    assert refused.returncode == 1, refused.stdout
    (line,) = refused.stderr.splitlines()
    assert line.startswith("fairpool: error: ") and knob in line and message in line
    assert not (tmp_path / "address").exists()
