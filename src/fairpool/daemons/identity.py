"""Who is calling: the operating-system user at the other end of a local connection.

On one machine the pool knows its callers the way ``identd`` does: the client's TCP
socket is in the kernel's table (``/proc/net/tcp``) with the uid that owns it, found by
the client's address and port. So ``fairpool rm`` run by alice is alice's, and her jobs
run as alice when the pool runs as root. Connections from other hosts have no local
user: they authenticate with tokens. Whether a caller may do what it asks is the pool's
authorization policy's answer (security/), which a ``Caller`` carries to the daemons.
"""

from __future__ import annotations

import pwd
import socket
import struct
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Caller", "caller_at", "local_uid", "user_of"]

_TABLES = ("/proc/net/tcp", "/proc/net/tcp6")


@dataclass(frozen=True)
class Caller:
    """A caller as the daemons see one: the user its jobs are owned by (None: not
    authenticated), its uid when it is a local user, and whether the pool's policy
    grants it ADMINISTRATOR (by default the pool's own user and root: security/)."""

    name: str | None
    uid: int | None
    administrator: bool = False

    @property
    def local(self) -> bool:
        return self.uid is not None

    def owns(self, owner: object) -> bool:
        """Whether the caller may act on a job whose Owner is ``owner``: its owner, or an
        administrator (fairpool's queue super users)."""
        return self.administrator or (self.name is not None and owner == self.name)


def user_of(uid: int) -> Caller:
    """The local user with this uid."""
    return Caller(_name_of(uid), uid)


def local_uid(host: str, port: int) -> int | None:
    """The uid owning the local TCP socket bound to ``host:port`` (None: not found)."""
    try:
        address = socket.inet_pton(socket.AF_INET, host)
        wanted = (_hex4(address), port)
        table = _TABLES[0]
    except OSError:
        try:
            address = socket.inet_pton(socket.AF_INET6, host)
        except OSError:
            return None
        wanted = (_hex16(address), port)
        table = _TABLES[1]
    return _lookup(Path(table), wanted)


def caller_at(host: str | None, port: int | None) -> Caller:
    """The caller at the other end of a connection from ``host:port``."""
    if host is None or port is None:
        return Caller(None, None)
    uid = local_uid(host, port)
    return Caller(_name_of(uid), uid) if uid is not None else Caller(None, None)


def _lookup(table: Path, wanted: tuple[str, int]) -> int | None:
    try:
        lines = table.read_text().splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if len(fields) < 8:
            continue
        address, _, port = fields[1].partition(":")
        if address == wanted[0] and int(port, 16) == wanted[1]:
            return int(fields[7])
    return None


def _hex4(address: bytes) -> str:
    """An IPv4 address as the kernel's table writes it (host byte order, hex)."""
    return f"{struct.unpack('=I', address)[0]:08X}"


def _hex16(address: bytes) -> str:
    return "".join(f"{word:08X}" for word in struct.unpack("=4I", address))


def _name_of(uid: int | None) -> str | None:
    if uid is None:
        return None
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)
