"""CEDAR's encoding of values inside a message: integers, strings, doubles and ads.

As observed between HTCondor's ``htcondor`` wheel and a listener (spec/cedar.md):
integers are 8 bytes, big-endian and signed; strings end with a NUL byte; a double is
two integers, the fraction of ``frexp(x)`` times 2**31 - 1 (truncated) and the exponent;
an ad is the number of its attributes, each as the string ``Name = expression`` in the
old ClassAd syntax, then (where the peer expects them) two more strings, the ad's MyType
and TargetType, sent empty.

A ``Reader`` never reads past its message: a short or malformed message is a
``WireError`` naming what was being read, never an IndexError.
"""

from __future__ import annotations

import math
import struct

from ..classad import ClassAd, Expr
from ..classad.formats import parse_old_line
from ..classad.unparse import quote_string_old, real_text, unparse
from ..classad.values import to_text
from ..errors import ClassAdSyntaxError, FairpoolError

__all__ = ["MAX_ATTRIBUTES", "Reader", "WireError", "Writer"]

MAX_ATTRIBUTES = 100_000  # an ad claiming more is refused before any is read
_INT = struct.Struct(">q")
_SCALE = 2147483647


class WireError(FairpoolError):
    """A message that does not hold what its command says it holds."""


class Reader:
    """The values of one received message, in order."""

    def __init__(self, payload: bytes) -> None:
        self.data = payload
        self.at = 0

    @property
    def left(self) -> int:
        return len(self.data) - self.at

    def int(self, what: str = "an integer") -> int:
        if self.left < 8:
            raise WireError(f"message ends where {what} was expected")
        (value,) = _INT.unpack_from(self.data, self.at)
        self.at += 8
        return value

    def byte(self, what: str = "a flag byte") -> int:
        if self.left < 1:
            raise WireError(f"message ends where {what} was expected")
        self.at += 1
        return self.data[self.at - 1]

    def string(self, what: str = "a string") -> str:
        end = self.data.find(b"\0", self.at)
        if end < 0:
            raise WireError(f"message ends inside {what}")
        raw = self.data[self.at : end]
        self.at = end + 1
        return raw.decode("utf-8", errors="replace")

    def double(self, what: str = "a number") -> float:
        fraction = self.int(what)
        exponent = self.int(what)
        if not -1100 < exponent < 1100:
            raise WireError(f"{what}: exponent {exponent} out of range")
        # The sender truncated the fraction to 31 bits: taking the middle of what it
        # stood for and rounding to the 9 digits that leaves exact gives back any
        # number of 9 significant digits (a factor of 5 arrives as 5.0, not 4.9999999986).
        if fraction:
            fraction += 0.5 if fraction > 0 else -0.5
        return float(f"{math.ldexp(fraction / _SCALE, exponent):.9g}")

    def ad(self, trailer: bool = True, what: str = "an ad") -> ClassAd:
        """An ad; ``trailer``: MyType and TargetType follow (if the message has them)."""
        count = self.int(f"the attribute count of {what}")
        if not 0 <= count <= MAX_ATTRIBUTES or count > self.left:
            raise WireError(f"{what}: {count} attributes cannot fit in the message")
        ad = ClassAd()
        for number in range(count):
            line = self.string(f"attribute {number + 1} of {what}")
            try:
                name, node = parse_old_line(line, number + 1, what)
            except ClassAdSyntaxError as err:
                raise WireError(f"{what}, attribute {number + 1}: {err.message}") from None
            ad.insert_node(name, node)
        if trailer and self.left:
            for field in ("MyType", "TargetType"):
                text = self.string(f"the {field} of {what}")
                if text and field not in ad:
                    ad[field] = text
        return ad


class Writer:
    """The values of one message to send, in order."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def int(self, value: int) -> Writer:
        self.parts.append(_INT.pack(value))
        return self

    def byte(self, value: int) -> Writer:
        self.parts.append(bytes((value,)))
        return self

    def string(self, text: str) -> Writer:
        self.parts.append(text.replace("\0", "").encode("utf-8") + b"\0")
        return self

    def double(self, value: float) -> Writer:
        if not math.isfinite(value):
            value = 0.0
        fraction, exponent = math.frexp(value)
        return self.int(int(fraction * _SCALE)).int(exponent)

    def ad(
        self,
        ad: ClassAd,
        trailer: bool = True,
        projection: set[str] | None = None,
        extra: dict[str, int] | None = None,
    ) -> Writer:
        """An ad's attributes (only the lower-case names in ``projection``, if given) as
        old-syntax lines, and ``extra`` whole numbers after them (the schedd's
        ServerTime); MyType and TargetType after them when ``trailer`` (the peer expects
        them everywhere but in GET_PRIORITY's reply)."""
        names = ad._names
        lines = [
            f"{names[key]} = {_old_text(expr)}"
            for key, expr in ad._exprs.items()
            if projection is None or key in projection
        ]
        lines.extend(f"{name} = {value}" for name, value in (extra or {}).items())
        self.int(len(lines))
        for line in lines:
            self.string(line)
        if trailer:
            self.string("").string("")
        return self

    def payload(self) -> bytes:
        return b"".join(self.parts)


_written: dict[int, tuple[object, str]] = {}  # node id -> (node, its text): shared trees


def _old_text(expr: Expr) -> str:
    """An expression in old syntax, as UTF-8 text: plain values at once, and each
    shared tree (parsed once per distinct text) unparsed once."""
    value = expr.const
    kind = type(value)
    if kind is str:
        return to_text(quote_string_old(value))
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if kind is float:
        return real_text(value)
    node = expr.node
    found = _written.get(id(node))
    if found is not None and found[0] is node:
        return found[1]
    text = to_text(unparse(node, old=True))
    if len(_written) >= 1 << 16:
        _written.clear()
    _written[id(node)] = (node, text)
    return text
