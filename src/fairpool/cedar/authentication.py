"""The authentication-method exchange that the schedd's write commands run first.

Even with the security handshake declined, the wheel's submit and act open with it
(spec/cedar.md): the client sends the bitmask of methods it may use, the server picks
one. fairpool offers FS, which proves a local user without secrets: the server names a
directory under /tmp that does not exist, the client creates it (mode 0700), and the
owner of what the server then finds there is the caller. A client offering no method
fairpool has is told so (method 0) and refused.
"""

from __future__ import annotations

import itertools
import os
import stat

from ..daemons.identity import Caller, _name_of
from .wire import WireError, Writer

__all__ = ["FS", "authenticate"]

FS = 4
_numbers = itertools.count(1)


async def authenticate(exchange) -> Caller:  # type: ignore[no-untyped-def]
    """The caller, as the FS method proves it."""
    offered = (await exchange.receive()).int("the authentication methods")
    exchange.server.log.info("auth methods offered %d", offered)
    if not offered & FS:
        await exchange.send(Writer().int(0))
        raise WireError(f"no authentication method fairpool has (offered {offered:#x}; FS is 4)")
    host, port = exchange.connection.local  # the client checks this prefix
    path = f"/tmp/FS_{host}_{port}_{next(_numbers)}"
    await exchange.send(Writer().int(FS))
    await exchange.send(Writer().string(path))
    answer = await exchange.receive()
    exchange.server.log.info("fs answer %r", answer.data)
    try:
        info = os.lstat(path)
    except OSError:
        info = None
    ok = info is not None and stat.S_ISDIR(info.st_mode) and not stat.S_ISLNK(info.st_mode)
    await exchange.send(Writer().int(0 if ok else -1))
    if not ok:
        raise WireError(f"FS authentication failed: the client made no directory {path}")
    assert info is not None
    return Caller(_name_of(info.st_uid), info.st_uid)
