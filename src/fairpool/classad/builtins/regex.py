"""Regular-expression functions: regexp, regexpMember, regexps, replace, replaceAll.

Patterns are PCRE in HTCondor; fairpool matches them with RE2 (the ``google-re2``
binding), which reads the same syntax for everything pools use (classes, groups,
alternation, anchors, counted repeats) and matches in time linear in the target: no pattern
can make a match backtrack for hours (``^(a+)+$`` over forty a's and a ``!``), where PCRE
gives up at its match limit and HTCondor answers ERROR. What RE2 does not read
(backreferences, lookaround) is not a valid pattern here: ERROR (docs/compat.md). Options:
``i`` ignore case, ``m`` multi-line anchors, ``s`` dot matches newline, ``x`` extended
(blanks and ``#`` comments outside classes ignored), ``f`` return the whole target with
substitutions, ``g`` substitute every match.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import re2

from ..scope import building, elements
from ..values import ERROR, MAX_STRING, UNDEFINED, ClassAdList, Error
from .registry import builtin

__all__ = ["compile_pattern"]

_FLAGS = {"i": "i", "m": "m", "s": "s"}
_GROUP = re.compile(r"\\(\d)")
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # an invalid pattern is ERROR, not a line on standard error
_EXTENDED = re.compile(r"\\.|\[(?:\\.|[^\]\\])*\]|#[^\n]*|\s+", re.S)


@lru_cache(maxsize=1024)
def _compile(pattern: str, flags: str, extended: bool) -> Any:
    if extended:
        pattern = _EXTENDED.sub(_keep_escapes_and_classes, pattern)
    try:
        return re2.compile(f"(?{flags}){pattern}" if flags else pattern, _OPTIONS)
    except (re2.error, TypeError, ValueError, OverflowError):
        return None


def _keep_escapes_and_classes(match: re.Match[str]) -> str:
    text = match.group(0)
    return text if text[0] in "\\[" else ""


def compile_pattern(pattern: str, options: str = "") -> Any:
    """The compiled pattern (``re``'s interface), or None if it is not a valid pattern."""
    flags = "".join(sorted({_FLAGS[o] for o in options if o in _FLAGS}))
    return _compile(pattern, flags, "x" in options)


def _strings(args: list[Any]) -> Any:
    """ERROR / UNDEFINED if an argument is, ERROR if one is not a string, else None."""
    if any(type(a) is Error for a in args):
        return ERROR
    if any(a is UNDEFINED for a in args):
        return UNDEFINED
    if any(type(a) is not str for a in args):
        return ERROR
    return None


@builtin("regexp", args=(2, 3))
def _regexp(st: Any, args: list[Any]) -> Any:
    bad = _strings(args)
    if bad is not None:
        return bad
    regex = compile_pattern(args[0], args[2] if len(args) > 2 else "")
    return ERROR if regex is None else regex.search(args[1]) is not None


@builtin("regexpMember", args=(2, 3))
def _regexp_member(st: Any, args: list[Any]) -> Any:
    pattern, items = args[0], args[1]
    options = args[2] if len(args) > 2 else ""
    if any(type(a) is Error for a in args):
        return ERROR
    if items is UNDEFINED:
        return UNDEFINED  # before the pattern is looked at
    bad = _strings([pattern, options])
    if bad is not None:
        return bad
    if type(items) is not ClassAdList:
        return ERROR
    regex = compile_pattern(pattern, options)  # an invalid pattern matches nothing
    saw_undefined = False
    for item in elements(st, items):
        if item is UNDEFINED:
            saw_undefined = True
        elif type(item) is not str:
            return ERROR
        elif regex is not None and regex.search(item):
            return True
    return UNDEFINED if saw_undefined else False


def _expand(template: str, match: Any) -> str | None:
    """The substitute text with ``\\0``..``\\9`` replaced by the match's groups; None when
    it names a group the pattern does not have."""
    groups = match.re.groups
    if any(int(m.group(1)) > groups for m in _GROUP.finditer(template)):
        return None
    return _GROUP.sub(lambda m: match.group(int(m.group(1))) or "", template)


def _substitute(st: Any, args: list[Any], options: str) -> Any:
    bad = _strings(args)
    if bad is not None:
        return bad
    pattern, target, template = args[0], args[1], args[2]
    options += args[3] if len(args) > 3 else ""
    regex = compile_pattern(pattern, options)
    if regex is None:
        return ERROR
    full, every = "f" in options, "g" in options
    if every and regex.search("") is not None and regex.fullmatch("") is not None:
        return ERROR  # an empty pattern would substitute forever
    pieces: list[str] = []
    last = length = 0
    for match in regex.finditer(target):
        if full:
            pieces.append(target[last : match.start()])
        expanded = _expand(template, match)
        if expanded is None:
            return ERROR
        pieces.append(expanded)
        length += len(expanded) + (match.start() - last if full else 0)
        if length > MAX_STRING:
            return building(st, length)
        last = match.end()
        if not every:
            break
    if full:
        pieces.append(target[last:])
        length += len(target) - last
    return building(st, length) or "".join(pieces)


@builtin("regexps", args=(3, 4))
def _regexps(st: Any, args: list[Any]) -> Any:
    return _substitute(st, args, "")


@builtin("replace", args=(3, 4))
def _replace(st: Any, args: list[Any]) -> Any:
    return _substitute(st, args, "f")


@builtin("replaceAll", args=(3, 4))
def _replace_all(st: Any, args: list[Any]) -> Any:
    return _substitute(st, args, "fg")
