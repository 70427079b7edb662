"""HTCondor's own clients on the CEDAR port go through the same decision as any caller:
they cannot present a token there, so where FS is not an accepted method they are
``unauthenticated@unmapped``. A pool that takes only tokens lets them read what it lets
everyone read, and refuses their updates and submissions until its administrator allows
unauthenticated callers those levels."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import pytest

from livepool import LivePool
from securepool import DOMAIN, Tokens
from wheel import WheelError, wheel

KNOBS = {
    "SEC_DEFAULT_AUTHENTICATION_METHODS": "IDTOKENS",  # PREFERRED: callers may go unproved
    "UID_DOMAIN": DOMAIN,
    "ALLOW_READ": "*",
    "ALLOW_WRITE": f"*@{DOMAIN}",
    "ALLOW_DAEMON": f"condor@{DOMAIN}",
    "ALLOW_ADMINISTRATOR": f"admin@{DOMAIN}, condor@{DOMAIN}",
    "ALLOW_NEGOTIATOR": f"condor@{DOMAIN}",
}
ADVERTISE = """
c = htcondor2.Collector(ADDRESS)
c.advertise([classad2.ClassAd({"MyType": "Generic", "Name": "probe"})], "UPDATE_AD_GENERIC")
out(True)
"""
SUBMIT = """
s = htcondor2.Schedd(htcondor2.Collector(ADDRESS).locate(htcondor2.DaemonType.Schedd))
s.submit(htcondor2.Submit({"executable": "/bin/true"}))
out(True)
"""


@pytest.fixture
def pool(tmp_path: Path):
    tokens = Tokens(tmp_path / "pool")
    with LivePool(tmp_path / "pool", token=tokens.admin, **KNOBS) as live:
        yield live


def refused_update(address: str, tmp_path: Path) -> None:
    """The wheel's update where it is refused: the update has no answer, so the client
    may or may not see its connection closed (and fail) before it is done."""
    with contextlib.suppress(WheelError):
        wheel(address, ADVERTISE, tmp_path)


def probes(pool: LivePool) -> list:
    return pool.get("/collector/ads", type="Generic")["ads"]


def test_the_cedar_port_is_judged_as_an_unauthenticated_caller(pool, tmp_path: Path) -> None:
    address = pool.cedar_address()
    slots = wheel(
        address, "out(ads(htcondor2.Collector(ADDRESS).query(htcondor2.AdTypes.Startd)))", tmp_path
    )
    assert len(slots) == len(pool.slots()) == 2  # READ is everyone's here
    refused_update(address, tmp_path)
    with pytest.raises(WheelError):
        wheel(address, SUBMIT, tmp_path)
    time.sleep(1.0)
    assert probes(pool) == [] and pool.jobs() == []
    log = (pool.directory / "log" / "CedarLog").read_text()
    assert "PERMISSION DENIED to unauthenticated@unmapped" in log
    assert "it needs DAEMON" in log and "it needs WRITE" in log

    # a list that cannot be read is refused at reconfig, naming it; the old one stays
    written = pool.config.read_text()
    pool.config.write_text(written + "DENY_READ = */*.evil.org\n")
    refused = pool.http.post(f"{pool.url}/master/reconfig")
    assert refused.status_code == 400 and "DENY_READ" in refused.json()["error"]["message"]
    pool.config.write_text(written)
    refused_update(address, tmp_path)
    time.sleep(1.0)
    assert probes(pool) == []

    # the administrator lets unauthenticated callers advertise (a reconfig takes it)
    allowed = f"condor@{DOMAIN}, unauthenticated@unmapped"
    pool.config.write_text(pool.config.read_text() + f"ALLOW_DAEMON = {allowed}\n")
    pool.post("/master/reconfig")
    wheel(address, ADVERTISE, tmp_path)
    pool.wait(lambda: probes(pool), 10, "the update, now allowed")
    with pytest.raises(WheelError):  # WRITE is still theirs alone
        wheel(address, SUBMIT, tmp_path)
