"""Version comparison: versioncmp, versionGT/LT/GE/LE/EQ, version_in_range.

Strings are compared the way GNU ``strverscmp`` orders them (the documented "version sort"):
byte by byte, except where the first difference falls inside a run of digits. There a run
with no leading zero is an integer (a longer run is larger), while a run that starts with a
zero is a fraction (it sorts before integers and compares digit by digit). Like
``strverscmp``, a plain byte difference is returned as the difference of the two bytes.
"""

from __future__ import annotations

from typing import Any

from ..values import ERROR, UNDEFINED, Error
from .convert import to_string
from .registry import builtin

__all__ = ["version_compare"]

# Where we are when the strings first differ: outside digits, in an integer run, in a
# fraction run (a leading zero followed by other digits), or in a run of zeros only.
_PLAIN, _INTEGER, _FRACTION, _ZEROS = "plain", "integer", "fraction", "zeros"
# Character classes: other, non-zero digit, zero.
_OTHER, _DIGIT, _ZERO = 0, 1, 2

_NEXT = {
    _PLAIN: (_PLAIN, _INTEGER, _ZEROS),
    _INTEGER: (_PLAIN, _INTEGER, _INTEGER),
    _FRACTION: (_PLAIN, _FRACTION, _FRACTION),
    _ZEROS: (_PLAIN, _FRACTION, _ZEROS),
}
# Outcome at the first difference, by (state, class of left byte, class of right byte):
# "bytes" = difference of the bytes, "length" = longer digit run wins, or a fixed sign.
_BYTES, _LENGTH = "bytes", "length"
_OUTCOME = {
    _PLAIN: {(_DIGIT, _DIGIT): _LENGTH},
    _INTEGER: {
        (_OTHER, _DIGIT): -1,
        (_OTHER, _ZERO): -1,
        (_DIGIT, _OTHER): 1,
        (_ZERO, _OTHER): 1,
        (_DIGIT, _DIGIT): _LENGTH,
        (_DIGIT, _ZERO): _LENGTH,
        (_ZERO, _DIGIT): _LENGTH,
        (_ZERO, _ZERO): _LENGTH,
    },
    _FRACTION: {},
    _ZEROS: {
        (_OTHER, _DIGIT): 1,
        (_OTHER, _ZERO): 1,
        (_DIGIT, _OTHER): -1,
        (_ZERO, _OTHER): -1,
    },
}


def _class(byte: int) -> int:
    if byte == 0x30:
        return _ZERO
    return _DIGIT if 0x31 <= byte <= 0x39 else _OTHER


def _is_digit(data: bytes, i: int) -> bool:
    return i < len(data) and 0x30 <= data[i] <= 0x39


def version_compare(left: str, right: str) -> int:
    """Negative, zero or positive as ``left`` sorts before, with or after ``right``."""
    a = left.encode("latin-1") + b"\0"
    b = right.encode("latin-1") + b"\0"
    state = _PLAIN
    i = 0
    while a[i] == b[i]:
        if a[i] == 0:
            return 0
        state = _NEXT[state][_class(a[i])]
        i += 1
    outcome = _OUTCOME[state].get((_class(a[i]), _class(b[i])), _BYTES)
    if outcome == _BYTES:
        return a[i] - b[i]
    if outcome == _LENGTH:
        return _longer_run(a, b, i)
    return outcome


def _longer_run(a: bytes, b: bytes, i: int) -> int:
    j = i
    while _is_digit(a, j):
        if not _is_digit(b, j):
            return 1
        j += 1
    return -1 if _is_digit(b, j) else a[i] - b[i]


def _strings(values: list[Any]) -> Any:
    texts = []
    for value in values:
        if type(value) is Error:
            return ERROR
        if value is UNDEFINED:
            return UNDEFINED
        text = to_string(value)
        if text is None:
            return ERROR
        texts.append(text)
    return texts


@builtin("versioncmp", args=2)
def _versioncmp(st: Any, args: list[Any]) -> Any:
    texts = _strings(args)
    return texts if type(texts) is not list else version_compare(*texts)


def _version_test(name: str, test: Any) -> None:
    def fn(st: Any, args: list[Any]) -> Any:
        texts = _strings(args)
        return texts if type(texts) is not list else test(version_compare(*texts))

    builtin(name, args=2)(fn)


_version_test("versionGT", lambda c: c > 0)
_version_test("versionLT", lambda c: c < 0)
_version_test("versionGE", lambda c: c >= 0)
_version_test("versionLE", lambda c: c <= 0)
_version_test("versionEQ", lambda c: c == 0)


@builtin("version_in_range", args=3)
def _version_in_range(st: Any, args: list[Any]) -> Any:
    if type(args[0]) is not str:
        return ERROR
    texts = _strings(args)
    if type(texts) is not list:
        return texts
    version, low, high = texts
    return version_compare(low, version) <= 0 and version_compare(version, high) <= 0
