"""The security handshake (DC_AUTHENTICATE), answered honestly.

fairpool's CEDAR front end offers no authentication method during the handshake, no
integrity and no encryption (spec/cedar.md). A client whose policy says OPTIONAL (the
wheel's default) is told "NO" to each and given a session; a client that REQUIRES any
of the three is refused with a message saying which, rather than served in plaintext
(the wheel itself would go on without a word). Who the caller is comes from the
operating system: the kernel's socket table for every local connection (as the HTTP
front end knows its callers), and the FS method's directory owner where the command
runs the authentication-method exchange (authentication.py).

Sessions are kept so that a client's later connections resume them (``UseSession``);
each lives ``SessionLease`` seconds (capped) and the table is bounded.
"""

from __future__ import annotations

import itertools
import os
import time
from collections import OrderedDict
from dataclasses import dataclass

from ..classad import ClassAd
from ..daemons.context import CONDOR_VERSION
from .wire import WireError

__all__ = ["Refusal", "Sessions", "policy_reply", "refusal_of", "session_ad"]

MAX_SESSIONS = 10_000
MAX_LEASE = 3600
_PROTECTIONS = ("Authentication", "Encryption", "Integrity")


class Refusal(WireError):
    """A client whose security policy fairpool cannot meet."""


@dataclass
class Session:
    sid: str
    command: int
    expires: float


class Sessions:
    """The sessions this listener handed out, by id (oldest dropped first when full)."""

    def __init__(self) -> None:
        self.table: OrderedDict[str, Session] = OrderedDict()
        self._numbers = itertools.count(1)

    def new(self, command: int, lease: object) -> Session:
        seconds = lease if type(lease) is int and 0 < lease <= MAX_LEASE else MAX_LEASE
        sid = f"fairpool:{os.getpid()}:{int(time.time())}:{next(self._numbers)}"
        session = self.table[sid] = Session(sid, command, time.monotonic() + seconds)
        while len(self.table) > MAX_SESSIONS:
            self.table.popitem(last=False)
        return session

    def resume(self, sid: object) -> Session | None:
        session = self.table.get(sid) if isinstance(sid, str) else None
        if session is None or session.expires < time.monotonic():
            self.table.pop(sid, None)  # type: ignore[arg-type]
            return None
        return session


def refusal_of(policy: ClassAd) -> Refusal | None:
    """Why fairpool cannot serve a client with this policy (None: it can)."""
    required = [p for p in _PROTECTIONS if str(policy.get(p, "")).upper() == "REQUIRED"]
    if not required:
        return None
    listed = " and ".join(p.lower() for p in required)
    return Refusal(
        f"this fairpool daemon offers no {listed} on its CEDAR port, which the client "
        "requires (set SEC_CLIENT_AUTHENTICATION, SEC_CLIENT_INTEGRITY and "
        "SEC_CLIENT_ENCRYPTION to OPTIONAL, or use the HTTP API)"
    )


def policy_reply() -> ClassAd:
    """The server's half of the policy: nothing offered, negotiation enacted."""
    return ClassAd(
        {
            "Authentication": "NO",
            "Encryption": "NO",
            "Integrity": "NO",
            "AuthMethods": "",
            "CryptoMethods": "",
            "Enact": "YES",
            "RemoteVersion": CONDOR_VERSION,
        }
    )


def session_ad(session: Session, user: str | None, commands: list[int]) -> ClassAd:
    return ClassAd(
        {
            "Sid": session.sid,
            "User": f"{user}@fairpool" if user else "unauthenticated@unmapped",
            "ValidCommands": ",".join(str(c) for c in commands),
            "SessionExpires": int(time.time() + max(0.0, session.expires - time.monotonic())),
            "RemoteVersion": CONDOR_VERSION,
        }
    )
