"""Version comparison: versioncmp, versionGT/LT/GE/LE/EQ, version_in_range.

HTCondor's order, as its library computes it (measured against classad2; it is close to,
but not, GNU ``strverscmp``): the strings are compared byte by byte, except that where both
have a run of digits the two runs are compared as a whole:

* leading zeros are counted (keeping the run's last digit, so ``"0"`` has none); the run
  with more of them is smaller, by the difference of the counts (``"0"`` vs ``"001"`` is 2);
* without leading zeros the runs are integers: a longer run is larger by the difference of
  the lengths (``"1"`` vs ``"100"`` is -2), equal lengths compare by their first differing
  digit;
* with leading zeros they are fractions, compared digit by digit, and where one run ends
  the byte that follows it decides (``"01"`` vs ``"010"`` is ``'\\0' - '0'``).

Otherwise the result is the difference of the first two differing bytes, each taken as
a signed ``char`` as on x86-64 (``"1"`` vs ``"\\200"`` is 49 - (-128) = 177).
"""

from __future__ import annotations

from typing import Any

from ..values import ERROR, UNDEFINED
from .convert import to_string
from .registry import builtin

__all__ = ["version_compare"]


def _is_digit(byte: int) -> bool:
    return 0x30 <= byte <= 0x39


def _run_end(data: bytes, i: int) -> int:
    while _is_digit(data[i]):
        i += 1
    return i


def _difference(x: int, y: int) -> int:
    """``x - y`` of two bytes as signed chars."""
    return (x - 256 if x > 127 else x) - (y - 256 if y > 127 else y)


def _leading_zeros(data: bytes, i: int, end: int) -> int:
    count = 0
    while data[i + count] == 0x30 and i + count + 1 < end:
        count += 1
    return count


def version_compare(left: str, right: str) -> int:
    """Negative, zero or positive as ``left`` sorts before, with or after ``right``."""
    a = left.encode("latin-1") + b"\0"
    b = right.encode("latin-1") + b"\0"
    i = j = 0
    while True:
        if _is_digit(a[i]) and _is_digit(b[j]):
            end_a, end_b = _run_end(a, i), _run_end(b, j)
            zeros_a, zeros_b = _leading_zeros(a, i, end_a), _leading_zeros(b, j, end_b)
            if zeros_a != zeros_b:
                return zeros_b - zeros_a
            i, j = i + zeros_a, j + zeros_b
            if zeros_a == 0 and end_a - i != end_b - j:
                return (end_a - i) - (end_b - j)
            while i < end_a or j < end_b:
                if a[i] != b[j]:
                    return _difference(a[i], b[j])
                i, j = i + 1, j + 1
            continue
        if a[i] != b[j]:
            return _difference(a[i], b[j])
        if a[i] == 0:
            return 0
        i, j = i + 1, j + 1


def _strings(values: list[Any]) -> Any:
    """The arguments as strings; UNDEFINED if one is (even next to ERROR)."""
    if any(value is UNDEFINED for value in values):
        return UNDEFINED
    texts = []
    for value in values:
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
    """UNDEFINED when a bound is; an UNDEFINED version is ERROR."""
    if args[1] is UNDEFINED or args[2] is UNDEFINED:
        return UNDEFINED
    texts = _strings(args) if args[0] is not UNDEFINED else ERROR
    if type(texts) is not list:
        return texts
    version, low, high = texts
    return version_compare(low, version) <= 0 and version_compare(version, high) <= 0
