"""ClassAd values and the Python types that carry them.

| ClassAd type | Python                                   |
|--------------|------------------------------------------|
| undefined    | the singleton ``UNDEFINED``              |
| error        | ``Error`` (all errors compare equal)     |
| boolean      | ``bool``                                 |
| integer      | ``int``, kept within 64 bits by ``wrap`` |
| real         | ``float``                                |
| string       | ``str`` holding *bytes* (see below)      |
| absolute time| ``AbsTime``                              |
| relative time| ``RelTime``                              |
| list         | ``ClassAdList`` (elements evaluated lazily, in the scope they were written in) |
| classad      | ``fairpool.classad.ad.ClassAd``          |

Strings hold one byte per character (latin-1), because HTCondor's library counts, slices,
case-folds and escapes bytes: ``size("ünï")`` is 5. ``from_text``/``to_text`` convert at the
edges, where Python text comes in or goes out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ERROR",
    "MAX_STRING",
    "UNDEFINED",
    "AbsTime",
    "AdBase",
    "ClassAdList",
    "Error",
    "RelTime",
    "Undefined",
    "ascii_lower",
    "from_text",
    "int32",
    "is_number",
    "to_text",
    "trunc32",
    "trunc64",
    "wrap",
]

_INT_MIN = -(1 << 63)
_INT_MAX = (1 << 63) - 1
# The longest string a function builds (strcat, join, replaceAll...): longer is ERROR, so
# that an ad doubling a string through its attributes stops instead of exhausting memory.
MAX_STRING = 1 << 24


class Undefined:
    """The ClassAd value UNDEFINED: an attribute that has no value."""

    __slots__ = ()
    _instance: Undefined | None = None

    def __new__(cls) -> Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __reduce__(self):
        return (Undefined, ())


class Error:
    """The ClassAd value ERROR. ``reason`` is for diagnostics only: all errors are equal."""

    __slots__ = ("reason",)

    def __init__(self, reason: str = "") -> None:
        self.reason = reason

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Error)

    def __hash__(self) -> int:
        return hash(Error)

    def __repr__(self) -> str:
        return f"ERROR({self.reason!r})" if self.reason else "ERROR"


UNDEFINED = Undefined()
ERROR = Error()


@dataclass(frozen=True, slots=True)
class AbsTime:
    """An instant: whole seconds since the epoch (UTC) and the zone offset it is shown in."""

    secs: int
    offset: int = 0


@dataclass(frozen=True, slots=True)
class RelTime:
    """A time interval in seconds."""

    secs: float


class AdBase:
    """Base of ClassAd, so that value-level code can recognise ads without importing them."""

    __slots__ = ()
    detached = False  # see ClassAd.detached_copy


class ClassAdList:
    """A ClassAd list value.

    A list written in an expression keeps its element expressions and evaluates each one
    on demand, in the scope the list was written in (``{x, y}`` sees the ad's ``x``);
    ``scope`` is that ad (functions read the elements from elsewhere: scope.elements).
    Lists made by functions hold values. ``resolve`` is the evaluator's callback.
    """

    __slots__ = ("_nodes", "_resolve", "_values", "scope")

    def __init__(
        self,
        values: tuple[Any, ...] | list[Any] | None = None,
        nodes: tuple[Any, ...] | None = None,
        resolve: Callable[[Any], Any] | None = None,
        scope: Any = None,
    ) -> None:
        self.scope = scope
        if nodes is None:
            self._values: list[Any] = list(values or ())
            self._nodes: tuple[Any, ...] = ()
        else:
            self._values = [_PENDING] * len(nodes)
            self._nodes = nodes
        self._resolve = resolve

    def __len__(self) -> int:
        return len(self._values)

    def __getitem__(self, index: int) -> Any:
        value = self._values[index]
        if value is _PENDING:
            assert self._resolve is not None
            value = self._resolve(self._nodes[index])
            self._values[index] = value
        return value

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self._values)):
            yield self[i]

    @property
    def nodes(self) -> tuple[Any, ...] | None:
        """The element expressions, for lists written as literals (None otherwise)."""
        return self._nodes or None

    def __repr__(self) -> str:
        return f"ClassAdList({list(self)!r})"


_PENDING = object()


def wrap(value: int) -> int:
    """Reduce an integer to 64-bit two's complement, as C++ arithmetic does."""
    if _INT_MIN <= value <= _INT_MAX:
        return value
    return ((value - _INT_MIN) & 0xFFFFFFFFFFFFFFFF) + _INT_MIN


def int32(value: int) -> int:
    """A 64-bit integer narrowed to a C ``int`` (its low 32 bits), as the library's time
    and substring functions take them."""
    return ((value + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def trunc64(value: float) -> int:
    """A double converted to a 64-bit integer, truncating. Out of range (or NaN) the C++
    conversion is undefined; we give what x86-64 gives, the lowest integer."""
    if value != value or not -(2.0**63) <= value < 2.0**63:
        return _INT_MIN
    return int(value)


def trunc32(value: float) -> int:
    """A double converted to a C ``int``, truncating; out of range as x86-64 (see trunc64)."""
    if value != value or not -(2.0**31) - 1 < value < 2.0**31:
        return -(1 << 31)
    return int(value)


def is_number(value: Any) -> bool:
    """True for integers and reals (not booleans)."""
    t = type(value)
    return t is int or t is float


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def ascii_lower(text: str) -> str:
    """Lower-case ASCII letters only, as strcasecmp in the C locale does."""
    if text.isascii():
        return text.lower()
    return text.translate(_ASCII_LOWER)


def from_text(text: str) -> str:
    """Python text to a ClassAd byte string (UTF-8 bytes, one per character)."""
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("latin-1")


def to_text(raw: str) -> str:
    """A ClassAd byte string back to Python text (invalid UTF-8 kept as escapes)."""
    if raw.isascii():
        return raw
    return raw.encode("latin-1").decode("utf-8", "surrogateescape")
