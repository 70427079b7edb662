"""List and string functions: size, sum/avg/min/max, split, join, strcat, substr, strcmp,
stricmp, toUpper/toLower, splitUserName/splitSlotName, and version comparison."""

from __future__ import annotations

from typing import Any

from ..scope import building, elements
from ..values import (
    ERROR,
    UNDEFINED,
    AdBase,
    ClassAdList,
    Error,
    Undefined,
    ascii_lower,
    int32,
    wrap,
)
from .convert import to_string
from .registry import builtin

__all__: list[str] = []


@builtin("size")
def _size(st: Any, args: list[Any]) -> Any:
    value = args[0]
    if type(value) is str or type(value) is ClassAdList or isinstance(value, AdBase):
        return len(value)
    if value is UNDEFINED:
        return UNDEFINED
    return ERROR


def _numbers(st: Any, value: Any) -> Any:
    """The defined elements of a list as numbers; UNDEFINED/ERROR when it cannot be."""
    if value is UNDEFINED:
        return UNDEFINED
    if type(value) is not ClassAdList:
        return ERROR
    numbers = []
    for item in elements(st, value):
        t = type(item)
        if item is UNDEFINED:
            continue
        if t is bool:
            numbers.append(int(item))
        elif t is int or t is float:
            numbers.append(item)
        else:
            return ERROR
    return numbers


def _aggregate(st: Any, args: list[Any], how: str) -> Any:
    numbers = _numbers(st, args[0])
    if type(numbers) is not list:
        return numbers
    if not numbers:
        return UNDEFINED if how in ("min", "max") else 0
    real = any(type(n) is float for n in numbers)
    if how == "sum":
        return float(sum(numbers)) if real else wrap(sum(numbers))
    if how == "avg":
        return sum(float(n) for n in numbers) / len(numbers)
    best = min(numbers) if how == "min" else max(numbers)
    return float(best) if real else best


for _how in ("sum", "avg", "min", "max"):
    builtin(_how)(lambda st, args, _how=_how: _aggregate(st, args, _how))


_BLANKS = " \t\n\r\f\v"


@builtin("split", args=(1, 2))
def _split(st: Any, args: list[Any]) -> Any:
    if any(type(a) is not str for a in args):
        return ERROR  # UNDEFINED too, unlike most functions
    text = args[0]
    separators = args[1] if len(args) > 1 else " ,\t\r\n"
    return ClassAdList(_split_items(text, separators))


def _split_items(text: str, separators: str) -> list[str]:
    """Tokens between separators, as HTCondor's split() finds them. A non-blank separator
    that does not end a token makes an empty token when it repeats the previous non-blank
    separator (``"a,,b"``, also ``"a,b ,c"``), and none when it differs (``"a,;b"``);
    blank separators only end tokens."""
    items: list[str] = []
    current: list[str] = []
    previous = None
    for ch in text:
        if ch not in separators:
            current.append(ch)
            continue
        if current:
            items.append("".join(current))
            current = []
        elif ch == previous:
            items.append("")
        if ch not in _BLANKS:
            previous = ch
    if current:
        items.append("".join(current))
    return items


@builtin("join", args=(0, None))
def _join(st: Any, args: list[Any]) -> Any:
    if not args:
        return ""
    if len(args) == 1:
        if type(args[0]) is not ClassAdList:
            return "" if type(args[0]) not in (Error, Undefined) else args[0]
        return _join_values(st, "", list(elements(st, args[0])))
    separator = args[0]
    if type(separator) is Error:
        return ERROR
    no_items = UNDEFINED if separator is UNDEFINED else ""
    separator = "" if separator is UNDEFINED else to_string(separator)
    if separator is None:
        return ERROR
    rest = args[1:]
    if len(rest) == 1 and type(rest[0]) is ClassAdList:
        rest = list(elements(st, rest[0]))
    return _join_values(st, separator, rest, no_items)


def _join_values(st: Any, separator: str, values: list[Any], no_items: Any = "") -> Any:
    """UNDEFINED items are skipped (if every item is, the result is UNDEFINED; with no
    items at all it is ``no_items``). As in HTCondor, the separator goes in front of an
    item only once the text so far is not empty: ``join(",", "", "a")`` is ``"a"``."""
    parts: list[str] = []
    length = 0
    defined = False
    for value in values:
        if value is UNDEFINED:
            continue
        text = to_string(value)
        if text is None:
            return ERROR
        if length:  # joined in one go at the end: linear, not quadratic
            parts.append(separator)
            length += len(separator)
        parts.append(text)
        length += len(text)
        defined = True
    if not defined:
        return UNDEFINED if values else no_items
    return building(st, length) or "".join(parts)


@builtin("strcat", args=(0, None))
def _strcat(st: Any, args: list[Any]) -> Any:
    parts = []
    for value in args:
        if type(value) is Error:
            return ERROR
        if value is UNDEFINED:
            return UNDEFINED
        text = to_string(value)
        if text is None:
            return ERROR
        parts.append(text)
    return building(st, sum(map(len, parts))) or "".join(parts)


@builtin("substr", args=(2, 3))
def _substr(st: Any, args: list[Any]) -> Any:
    if any(a is UNDEFINED for a in args):
        return UNDEFINED
    if any(type(a) is Error for a in args):
        return ERROR
    text = args[0]
    if type(text) is not str or any(type(a) is not int for a in args[1:]):
        return ERROR
    size = len(text)
    offset = int32(args[1])  # offsets and lengths are C ints
    if offset < 0:
        offset = max(size + offset, 0)
    offset = min(offset, size)
    length = int32(args[2]) if len(args) > 2 else size - offset
    if length < 0:
        length = max(size - offset + length, 0)
    return text[offset : offset + length]


def _string_compare(args: list[Any], fold: bool) -> Any:
    """strcmp/stricmp: UNDEFINED if either argument is (even next to ERROR)."""
    if any(value is UNDEFINED for value in args):
        return UNDEFINED
    texts = []
    for value in args:
        text = to_string(value)
        if text is None:
            return ERROR
        texts.append(ascii_lower(text) if fold else text)
    a, b = (t.encode("latin-1") for t in texts)
    return (a > b) - (a < b)


@builtin("strcmp", args=2)
def _strcmp(st: Any, args: list[Any]) -> Any:
    return _string_compare(args, fold=False)


@builtin("stricmp", args=2)
def _stricmp(st: Any, args: list[Any]) -> Any:
    return _string_compare(args, fold=True)


_UPPER = {c: c - 32 for c in range(ord("a"), ord("z") + 1)}
_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def _case(args: list[Any], table: dict[int, int]) -> Any:
    value = args[0]
    if value is UNDEFINED:
        return UNDEFINED
    text = to_string(value)
    return ERROR if text is None else text.translate(table)


@builtin("toUpper")
def _to_upper(st: Any, args: list[Any]) -> Any:
    return _case(args, _UPPER)


@builtin("toLower")
def _to_lower(st: Any, args: list[Any]) -> Any:
    return _case(args, _LOWER)


def _split_at(value: Any, no_at: str) -> Any:
    if type(value) is not str:
        return ERROR  # UNDEFINED too
    head, at, tail = value.partition("@")
    if not at:
        return ClassAdList([value, ""] if no_at == "first" else ["", value])
    return ClassAdList([head, tail])


@builtin("splitUserName")
def _split_user_name(st: Any, args: list[Any]) -> Any:
    return _split_at(args[0], "first")


@builtin("splitSlotName")
def _split_slot_name(st: Any, args: list[Any]) -> Any:
    return _split_at(args[0], "second")
