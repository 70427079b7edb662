"""Ganglia's gmond protocol (3.1 and later): a metric as the two XDR packets gmetric sends
over UDP, its metadata and its value.

The metadata packet (format 128, ``gmetadata_full``) carries the metric id (host, name,
spoof flag), its type, name, units, slope, tmax and dmax, and extra data: GROUP, DESC,
TITLE and, for a metric published on behalf of another host, SPOOF_HOST = "ip:host".
The value packet (format 133, ``gmetric_string``) carries the id again, the format
``%s`` and the value as text: gmetric sends every type so, and gmond reads it by the
metadata's type. A spoofed metric's host in the id is "ip:host" as well.
"""

from __future__ import annotations

import struct

__all__ = ["SLOPES", "metric_packets"]

METADATA, STRING_VALUE = 128, 133
SLOPES = {"zero": 0, "positive": 1, "negative": 2, "both": 3, "unspecified": 4}


def metric_packets(
    *,
    host: str,
    ip: str,
    name: str,
    value: str,
    type: str,
    units: str,
    slope: str,
    tmax: int,
    dmax: int,
    group: str,
    desc: str,
    title: str,
    spoof: bool = True,
) -> tuple[bytes, bytes]:
    """The metadata and value packets of one metric of ``host`` (at ``ip``)."""
    sender = f"{ip}:{host}" if spoof else host
    metric_id = _string(sender) + _string(name) + _uint(1 if spoof else 0)
    extra = [("GROUP", group), ("DESC", desc), ("TITLE", title)]
    if spoof:
        extra.append(("SPOOF_HOST", sender))
    metadata = (
        _uint(METADATA)
        + metric_id
        + _string(type)
        + _string(name)
        + _string(units)
        + _uint(SLOPES[slope])
        + _uint(tmax)
        + _uint(dmax)
        + _uint(len(extra))
        + b"".join(_string(key) + _string(text) for key, text in extra)
    )
    packet = _uint(STRING_VALUE) + metric_id + _string("%s") + _string(value)
    return metadata, packet


def _uint(number: int) -> bytes:
    return struct.pack(">I", number & 0xFFFFFFFF)


def _string(text: str) -> bytes:
    data = text.encode()
    return _uint(len(data)) + data + b"\0" * (-len(data) % 4)
