"""HTCondor's string-list functions: a string of items separated by any of the delimiter
characters (default comma and space), each item trimmed, empty items dropped."""

from __future__ import annotations

import re
from typing import Any

from ..values import ERROR, UNDEFINED, Error, ascii_lower, wrap
from .convert import number_prefix
from .regex import compile_pattern
from .registry import builtin

__all__ = ["string_list_items"]

_DEFAULT_DELIMITERS = ", "
_INTEGER = re.compile(r"[+-]?\d+")


def string_list_items(text: str, delimiters: str = _DEFAULT_DELIMITERS) -> list[str]:
    """The items of a string list."""
    if not delimiters:
        stripped = text.strip()
        return [stripped] if stripped else []
    pattern = "[" + re.escape(delimiters) + "]"
    return [item.strip() for item in re.split(pattern, text) if item.strip()]


def _delimiters(args: list[Any], index: int) -> str | None:
    if len(args) <= index:
        return _DEFAULT_DELIMITERS
    value = args[index]
    return value if type(value) is str else None


def _list_of(args: list[Any], index: int = 0) -> Any:
    """The items of argument ``index`` (ERROR when it or the delimiters are not strings)."""
    text, delimiters = args[index], _delimiters(args, index + 1)
    if type(text) is not str or delimiters is None:
        return ERROR
    return string_list_items(text, delimiters)


@builtin("stringListSize", args=(1, 2))
def _size(st: Any, args: list[Any]) -> Any:
    items = _list_of(args)
    return items if items is ERROR else len(items)


def _numbers(args: list[Any]) -> Any:
    items = _list_of(args)
    if items is ERROR:
        return ERROR
    numbers: list[int | float] = []
    for item in items:
        if _INTEGER.fullmatch(item):
            numbers.append(wrap(int(item)))
            continue
        value = number_prefix(item)
        if value is None:
            return ERROR
        numbers.append(value)
    return numbers


def _numeric(args: list[Any], how: str) -> Any:
    numbers = _numbers(args)
    if numbers is ERROR:
        return ERROR
    if not numbers:
        return UNDEFINED if how in ("min", "max") else 0.0
    real = any(type(n) is float for n in numbers)
    if how == "sum":
        return float(sum(numbers)) if real else wrap(sum(numbers))
    if how == "avg":
        if real:
            return sum(numbers) / len(numbers)
        return int(sum(numbers) / len(numbers))
    best = min(numbers) if how == "min" else max(numbers)
    return float(best) if real else best


for _how, _name in (("sum", "Sum"), ("avg", "Avg"), ("min", "Min"), ("max", "Max")):
    builtin(f"stringList{_name}", args=(1, 2))(lambda st, args, _how=_how: _numeric(args, _how))


def _member(args: list[Any], fold: bool) -> Any:
    """Every argument must be a string or UNDEFINED; an UNDEFINED item or list is not a
    member (both UNDEFINED: UNDEFINED); UNDEFINED delimiters are the default ones."""
    if any(type(a) is not str and a is not UNDEFINED for a in args):
        return ERROR
    item, text = args[0], args[1]
    if item is UNDEFINED or text is UNDEFINED:
        return UNDEFINED if item is text else False
    delimiters = args[2] if len(args) > 2 and args[2] is not UNDEFINED else _DEFAULT_DELIMITERS
    items = string_list_items(text, delimiters)
    if fold:
        item = ascii_lower(item)
        return any(ascii_lower(i) == item for i in items)
    return item in items


@builtin("stringListMember", args=(2, 3))
def _string_list_member(st: Any, args: list[Any]) -> Any:
    return _member(args, fold=False)


@builtin("stringListIMember", args=(2, 3))
def _string_list_imember(st: Any, args: list[Any]) -> Any:
    return _member(args, fold=True)


def _items_or_none(args: list[Any], index: int) -> list[str] | None:
    """The items of string argument ``index`` (None when it is UNDEFINED); UNDEFINED
    delimiters are the default ones."""
    delimiters = args[2] if len(args) > 2 and args[2] is not UNDEFINED else _DEFAULT_DELIMITERS
    value = args[index]
    return None if value is UNDEFINED else string_list_items(value, delimiters)


@builtin("stringListsIntersect", args=(2, 3))
def _intersect(st: Any, args: list[Any]) -> Any:
    if any(type(a) is Error for a in args):
        return ERROR
    if any(a is UNDEFINED for a in args):
        return UNDEFINED
    if any(type(a) is not str for a in args):
        return ERROR
    if len(args) > 2 and not args[2]:
        args = args[:2]  # here (only) empty delimiters mean the default ones
    return not set(_items_or_none(args, 0) or ()).isdisjoint(_items_or_none(args, 1) or ())


def _subset(args: list[Any], fold: bool) -> Any:
    """Every item of the first list is in the second. An UNDEFINED first list is a subset
    and an UNDEFINED second list has none; a first list that is not empty text but has no
    items (``","``) is not a subset of anything, while ``""`` is of everything."""
    if any(type(a) is not str and a is not UNDEFINED for a in args):
        return ERROR
    if args[0] == "":
        return True
    first, second = _items_or_none(args, 0), _items_or_none(args, 1)
    if first is None or second is None:
        return UNDEFINED if first is second else first is None
    if not first:
        return False
    if fold:
        first = [ascii_lower(i) for i in first]
        second = [ascii_lower(i) for i in second]
    return set(first) <= set(second)


@builtin("stringListSubsetMatch", args=(2, 3))
def _subset_match(st: Any, args: list[Any]) -> Any:
    return _subset(args, fold=False)


@builtin("stringListISubsetMatch", args=(2, 3))
def _isubset_match(st: Any, args: list[Any]) -> Any:
    return _subset(args, fold=True)


@builtin("stringList_regexpMember", args=(2, 4))
def _regexp_member(st: Any, args: list[Any]) -> Any:
    if any(type(a) is not str for a in args):
        return ERROR
    delimiters = args[2] if len(args) > 2 else _DEFAULT_DELIMITERS
    options = args[3] if len(args) > 3 else ""
    regex = compile_pattern(args[0], options)
    if regex is None:
        return ERROR
    items = string_list_items(args[1], delimiters)
    if not items:
        return UNDEFINED  # an empty list is UNDEFINED here, unlike stringListMember
    return any(regex.search(item) for item in items)
