"""The authentication-method exchange that the schedd's write commands run first.

Even with the security handshake declined, the wheel's submit, act and edit open with
it (spec/cedar.md): the client sends the bitmask of methods it may use (CLAIMTOBE 2,
FS 4, KERBEROS 64, SSL 256, TOKEN 2048, SCITOKENS 4096) and the server answers with the
one it picked. fairpool offers FS, which proves a local user without secrets: the
server names a directory ``/tmp/FS_<its address>_<its port>_<n>`` (the client checks
that prefix), the client creates it and answers 0, and the owner of the directory the
server then finds there (not a symbolic link) is the caller; the server answers 0, and
the client removes it. A client offering no FS is answered method 0 and refused.
"""

from __future__ import annotations

import itertools
import os
import stat
from typing import TYPE_CHECKING

from ..daemons.identity import Caller, user_of
from .wire import WireError, Writer

if TYPE_CHECKING:
    from .server import Exchange

__all__ = ["FS", "authenticate"]

FS = 4
_numbers = itertools.count(1)


async def authenticate(exchange: Exchange) -> Caller:
    """The caller, as the FS method proves it."""
    offered = (await exchange.receive()).int("the authentication methods")
    if not offered & FS:
        await exchange.send(Writer().int(0))
        raise WireError(f"no authentication method fairpool has (offered {offered:#x}; FS is 4)")
    path = _fresh_path(*exchange.connection.local)
    await exchange.send(Writer().int(FS))
    await exchange.send(Writer().string(path))
    status = (await exchange.receive()).int("the client's FS status")
    try:
        info = os.lstat(path)
    except OSError:
        info = None
    proved = status == 0 and info is not None and stat.S_ISDIR(info.st_mode)
    await exchange.send(Writer().int(0 if proved else -1))
    if info is None or not proved:
        raise WireError(f"FS authentication failed: no directory {path} made by the client")
    return user_of(info.st_uid)


def _fresh_path(host: str, port: int) -> str:
    """A directory name nobody has made yet (one made before it was named proves
    nothing about the client)."""
    for _ in range(100):
        path = f"/tmp/FS_{host}_{port}_{next(_numbers)}"
        if not os.path.lexists(path):
            return path
    raise WireError("no fresh FS directory name under /tmp")
