"""The negotiator core's edits for HTCondor's clients (Negotiator.edit_record): only
ADMINISTRATOR (the pool's user or root) may edit, and only full names and values
condor_userprio accepts. The wheel refuses most bad values itself, and a refused edit
has no answer on the wire, so the core is tested here directly."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from fairpool.config import parse_config_text
from fairpool.daemons.context import Context, PoolPaths
from fairpool.daemons.errors import BadRequest, Forbidden
from fairpool.daemons.identity import Caller
from fairpool.daemons.negotiator import Negotiator
from fairpool.runtime.realtime import RealtimeEnvironment
from fairpool.security.principal import Principal
from fairpool.security.settings import Security
from fairpool.store.database import open_database


@pytest.fixture
def negotiator(tmp_path: Path):
    paths = PoolPaths(tmp_path, tmp_path / "spool", tmp_path / "log", tmp_path / "execute")
    paths.make()
    ctx = Context(
        parse_config_text("", env={}),
        RealtimeEnvironment(clock=lambda: 1_000.0),
        paths,
        open_database(paths.spool),
        url="http://127.0.0.1:9618",
    )
    made = Negotiator(ctx)
    yield made
    ctx.engine.dispose()


ADMIN = Caller("pool", os.getuid(), administrator=True)
OTHER = Caller("mallory", 54321 if os.getuid() != 54321 else 54322)  # neither root nor the pool


def test_an_administrator_edits_and_the_edit_is_saved(negotiator: Negotiator):
    asyncio.run(negotiator.edit_record(ADMIN, "factor", "alice@example.org", 5.0))
    asyncio.run(negotiator.edit_record(ADMIN, "ceiling", "alice@example.org", 4.0))
    record = negotiator.accountant.customers["alice@example.org"]
    assert (record.factor, record.ceiling) == (5.0, 4)
    saved = negotiator.store.load(negotiator.policy, lambda name: None)
    assert saved.customers["alice@example.org"].factor == 5.0
    assert negotiator.version == 2


def test_others_may_not_edit(negotiator: Negotiator):
    with pytest.raises(Forbidden, match="mallory may not edit the accountant"):
        asyncio.run(negotiator.edit_record(OTHER, "factor", "alice@example.org", 5.0))
    with pytest.raises(Forbidden):
        asyncio.run(negotiator.edit_all(OTHER, "reset"))
    assert negotiator.accountant.customers == {}


def test_by_default_root_and_the_pools_user_are_administrators_and_no_one_else():
    security = Security(parse_config_text("", env={}))
    for uid, administrator in ((0, True), (os.getuid(), True), (OTHER.uid, False)):
        assert security.caller(security.from_uid(uid, "127.0.0.1")).administrator is administrator
    assert not security.caller(Principal.nobody("10.0.0.1")).administrator


@pytest.mark.parametrize(
    ("edit", "user", "value", "message"),
    [
        ("factor", "nobody", 5.0, "expected a full user@domain submitter name"),
        ("factor", "bob@example.org", 0.5, "0.5 is not a number of 1.0 or more"),
        ("ceiling", "bob@example.org", -2.0, "-2.0 is not a number of -1.0 or more"),
        ("priority", "bob@example.org", float("nan"), "nan is not a number"),
        ("colour", "bob@example.org", 1.0, "unknown accountant edit 'colour'"),
    ],
)
def test_values_condor_userprio_refuses_are_refused(
    negotiator: Negotiator, edit: str, user: str, value: float, message: str
):
    with pytest.raises(BadRequest, match=message):
        asyncio.run(negotiator.edit_record(ADMIN, edit, user, value))
    assert negotiator.accountant.customers == {}
