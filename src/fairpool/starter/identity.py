"""Whom the job runs as: its Owner when the starter is root, else the starter's own user.

HTCondor's starter does the same: only root can switch users, and a personal (non-root) pool
runs every job as the user who started it. A switch is needed only when root starts a job for
another Owner; without one the starter starts the job and copies its files itself, with no
shim in between.
"""

from __future__ import annotations

import os
import pwd
import time
from dataclasses import dataclass

from .hold import FAILED_TO_ACCESS_USER_ACCOUNT, Hold, StartError

__all__ = ["ACCOUNT_LIFETIME", "JobUser", "job_user"]

ACCOUNT_LIFETIME = 60.0  # seconds an account looked up is used without looking again
_MAX_ACCOUNTS = 10_000
_accounts: dict[tuple[str, int, int], tuple[float, JobUser]] = {}  # by owner and our ids


@dataclass(frozen=True)
class JobUser:
    """A Unix account; ``switch`` is true when the job's processes must take it on (it is
    not the starter's own uid and gid)."""

    name: str
    uid: int
    gid: int
    groups: tuple[int, ...]
    home: str
    switch: bool

    def spec(self) -> dict[str, object] | None:
        """What the child process needs to become this user (None: stay as we are)."""
        if not self.switch:
            return None
        return {"uid": self.uid, "gid": self.gid, "groups": list(self.groups)}


def job_user(owner: str) -> JobUser:
    """The account for a job owned by ``owner``; StartError when root cannot find it.

    An account found is kept for ``ACCOUNT_LIFETIME`` seconds: a lookup reads the password
    and group databases (files, or whatever NSS asks), at every job start otherwise.
    HTCondor's daemons keep a cache of accounts too (``PASSWD_CACHE_REFRESH``)."""
    key = (owner, os.geteuid(), os.getegid())
    now = time.monotonic()
    found = _accounts.get(key)
    if found is not None and found[0] > now:
        return found[1]
    user = _look_up(owner)
    if len(_accounts) >= _MAX_ACCOUNTS:
        _accounts.clear()
    _accounts[key] = (now + ACCOUNT_LIFETIME, user)
    return user


def _look_up(owner: str) -> JobUser:
    if os.geteuid() != 0:
        entry = pwd.getpwuid(os.geteuid())
        return JobUser(entry.pw_name, entry.pw_uid, entry.pw_gid, (), entry.pw_dir, False)
    try:
        entry = pwd.getpwnam(owner)
    except KeyError:
        raise StartError(
            Hold(
                f"Failed to access user account {owner!r}: no such user",
                FAILED_TO_ACCESS_USER_ACCOUNT,
            )
        ) from None
    if (entry.pw_uid, entry.pw_gid) == (os.geteuid(), os.getegid()):  # root's own job
        return JobUser(entry.pw_name, entry.pw_uid, entry.pw_gid, (), entry.pw_dir, False)
    groups = tuple(os.getgrouplist(entry.pw_name, entry.pw_gid))
    return JobUser(entry.pw_name, entry.pw_uid, entry.pw_gid, groups, entry.pw_dir, True)
