"""The security handshake (DC_AUTHENTICATE), answered honestly.

fairpool's CEDAR front end offers no authentication method during the handshake, no
integrity and no encryption (spec/cedar.md). A client whose policy says OPTIONAL (the
wheel's default) is told "NO" to each and given a session; a client that REQUIRES any
of the three is refused with a message saying which, rather than served in plaintext
(the wheel itself would go on without a word). Who the caller is comes from the
operating system: the kernel's socket table for a local connection (as the HTTP
front end knows its callers), and the FS method's directory owner where the command
runs the authentication-method exchange (authentication.py).

A session here holds no keys and no identity (the caller is found afresh on every
connection), so a client resuming one (``UseSession``) is always let in: also one
given before the pool restarted, which the wheel would otherwise fail a call over.
"""

from __future__ import annotations

import itertools
import os
import time

from ..classad import ClassAd
from ..daemons.context import CONDOR_VERSION
from .wire import WireError

__all__ = [
    "Refusal",
    "denial",
    "new_session",
    "policy_reply",
    "refusal_of",
    "resumed",
    "session_ad",
]

SESSION_LIFETIME = 3600
_numbers = itertools.count(1)
_PROTECTIONS = ("Authentication", "Encryption", "Integrity")


class Refusal(WireError):
    """A client whose security policy fairpool cannot meet."""


def new_session(command: int) -> str:
    """A session's id, unique within this host."""
    return f"fairpool:{os.getpid()}:{int(time.time())}:{next(_numbers)}:{command}"


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


def session_ad(sid: str, commands: list[int]) -> ClassAd:
    """The session the client keeps (it fails if ValidCommands is empty); no method
    authenticated it."""
    return ClassAd(
        {
            "Sid": sid,
            "User": "unauthenticated@unmapped",
            "ValidCommands": ",".join(str(c) for c in commands),
            "SessionExpires": int(time.time()) + SESSION_LIFETIME,
            "RemoteVersion": CONDOR_VERSION,
        }
    )


def resumed() -> ClassAd:
    """The answer to a client resuming a session."""
    return ClassAd({"ReturnCode": "AUTHORIZED"})


def denial(reason: str) -> ClassAd:
    """What a refused client is told after the policy: the wheel reports "DENIED"
    (SECMAN:2010) and gives up, rather than going on in plaintext."""
    return ClassAd({"ReturnCode": "DENIED", "ErrorString": reason})
