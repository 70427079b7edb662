"""Whom a job runs as: an account looked up once is kept for a while, not looked up at
every job start."""

from __future__ import annotations

import os
import pwd

import pytest

from fairpool.starter import StartError, identity
from fairpool.starter.identity import ACCOUNT_LIFETIME, job_user


def test_an_account_is_looked_up_again_only_after_its_lifetime(monkeypatch):
    owner = pwd.getpwuid(os.geteuid()).pw_name
    clock = [1000.0]
    monkeypatch.setattr(identity.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(identity, "_accounts", {})
    first = job_user(owner)
    looked = []

    def gone(*args: object) -> object:
        looked.append(args)
        raise KeyError(args)

    monkeypatch.setattr(identity.pwd, "getpwnam", gone)
    monkeypatch.setattr(identity.pwd, "getpwuid", gone)
    clock[0] += ACCOUNT_LIFETIME - 1
    assert job_user(owner) is first and looked == []
    clock[0] += 2
    if os.geteuid() == 0:  # root looks the Owner up, and holds a job whose Owner is gone
        with pytest.raises(StartError):
            job_user(owner)
    else:  # anyone else runs every job as themselves
        with pytest.raises(KeyError):
            job_user(owner)
    assert looked
