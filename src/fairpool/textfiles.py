"""Reading a text file a user gave, so that what goes wrong is one error naming the file.

Every reader of user files (scenarios, timelines, map files, traces, logs) goes through
``read_text``: a file that cannot be opened, or is not UTF-8 text (a binary file, another
encoding), is an ``InputError`` of the caller's kind naming the file and the line of the
first bad byte, never a ``UnicodeDecodeError`` from deep inside a parser.
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

from .errors import InputError

__all__ = ["decode", "read_text"]


def read_text(
    path: str | Path, error: type[InputError] = InputError, what: str = "the file"
) -> str:
    """The text of ``path`` (through gzip when it ends in ``.gz``), or ``error`` naming it."""
    path = Path(path)
    try:
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
    except OSError as err:  # gzip.BadGzipFile is an OSError
        raise error(f"cannot read {what}: {err.strerror or err}", str(path)) from None
    except (EOFError, zlib.error) as err:
        raise error(f"cannot read {what}: not a complete gzip file ({err})", str(path)) from None
    return decode(data, str(path), error, what)


def decode(data: bytes, source: str, error: type[InputError] = InputError, what: str = "") -> str:
    """``data`` as UTF-8 text, or ``error`` naming the line of the first byte that is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - data.rfind(b"\n", 0, err.start)
        name = f"{what} is " if what else ""
        raise error(
            f"{name}not UTF-8 text (byte 0x{data[err.start]:02x} at column {column})",
            source,
            line,
        ) from None
