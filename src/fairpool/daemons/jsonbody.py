"""Reading the JSON bodies of the live pool's API: megabytes of ads in a collector's
answer, a startd's slots in each update.

msgspec reads JSON about twice as fast as the standard library and, unlike orjson, keeps
integers beyond 64 bits exact (a ClassAd reads them as the parser does: jsonads.py). What
it refuses and Python's ``json`` takes (``NaN``, ``Infinity``, a lone surrogate, UTF-16)
is read by ``json``, so a body means the same either way and a malformed one fails with
``json``'s own error.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

__all__ = ["loads"]

_decode = msgspec.json.decode


def loads(data: bytes | str) -> Any:
    """The value of a JSON text (``ValueError`` when it is not JSON)."""
    try:
        return _decode(data)
    except msgspec.DecodeError:
        return json.loads(data)
