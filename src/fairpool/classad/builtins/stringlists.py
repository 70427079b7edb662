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
    item, text = args[0], args[1]
    if type(item) is Error or type(text) is Error:
        return ERROR
    if item is UNDEFINED or text is UNDEFINED:
        return False
    delimiters = _delimiters(args, 2)
    if type(item) is not str or type(text) is not str or delimiters is None:
        return ERROR
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


def _two_lists(args: list[Any]) -> Any:
    first, second = args[0], args[1]
    if type(first) is Error or type(second) is Error:
        return ERROR
    delimiters = _delimiters(args, 2)
    if delimiters is None:
        return ERROR
    lists = []
    for value in (first, second):
        if value is UNDEFINED:
            lists.append(None)
        elif type(value) is str:
            lists.append(string_list_items(value, delimiters))
        else:
            return ERROR
    return lists


@builtin("stringListsIntersect", args=(2, 3))
def _intersect(st: Any, args: list[Any]) -> Any:
    lists = _two_lists(args)
    if lists is ERROR:
        return ERROR
    first, second = lists
    if first is None or second is None:
        return UNDEFINED
    return not set(first).isdisjoint(second)


def _subset(args: list[Any], fold: bool) -> Any:
    lists = _two_lists(args)
    if lists is ERROR:
        return ERROR
    first, second = lists
    if first is None and second is None:
        return UNDEFINED
    if first is None:
        return True
    if second is None:
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
    return any(regex.search(item) for item in string_list_items(args[1], delimiters))
