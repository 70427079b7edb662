"""CEDAR's framing: a message is one or more packets, each a flag byte (1 on the last
packet of the message), the payload's length as a 32-bit big-endian integer, and the
payload (spec/cedar.md).

Reads are bounded: a packet longer than ``MAX_PACKET`` or a message longer than the
limit the caller gives is refused before its bytes are read, and a whole message must
arrive within the timeout (a peer trickling bytes cannot hold a connection open), so a
peer that sends garbage or stops halfway costs one connection, never the daemon.
"""

from __future__ import annotations

import asyncio
import struct

from .wire import WireError

__all__ = ["MAX_PACKET", "SEND_PACKET", "Closed", "read_message", "write_message"]

MAX_PACKET = 1 << 20  # what the wheel itself accepts in one packet
SEND_PACKET = 1 << 18  # replies are split into packets no larger than this
_HEADER = struct.Struct(">BI")


class Closed(Exception):
    """The peer closed the connection between messages."""


async def read_message(stream: asyncio.StreamReader, limit: int, timeout: float) -> bytes:
    """The next whole message's payload (TimeoutError: it did not come within
    ``timeout`` seconds)."""
    async with asyncio.timeout(timeout):
        return await _message(stream, limit)


async def _message(stream: asyncio.StreamReader, limit: int) -> bytes:
    parts: list[bytes] = []
    size = 0
    while True:
        try:
            header = await stream.readexactly(_HEADER.size)
        except asyncio.IncompleteReadError as err:
            if not parts and not err.partial:
                raise Closed from None
            raise WireError("the connection closed inside a packet header") from None
        end, length = _HEADER.unpack(header)
        if end not in (0, 1):
            raise WireError(f"packet flag {end}: not CEDAR (expected 0 or 1)")
        if length > MAX_PACKET:
            raise WireError(f"a packet of {length} bytes: more than {MAX_PACKET}")
        size += length
        if size > limit:
            raise WireError(f"a message of more than {limit} bytes")
        try:
            parts.append(await stream.readexactly(length))
        except asyncio.IncompleteReadError:
            raise WireError(f"the connection closed inside a packet of {length} bytes") from None
        if end == 1:
            return b"".join(parts)


def write_message(stream: asyncio.StreamWriter, payload: bytes) -> None:
    """Queue one message (drain the writer to send it)."""
    chunks = [payload[i : i + SEND_PACKET] for i in range(0, len(payload), SEND_PACKET)] or [b""]
    for number, chunk in enumerate(chunks):
        last = number == len(chunks) - 1
        stream.write(_HEADER.pack(1 if last else 0, len(chunk)) + chunk)
