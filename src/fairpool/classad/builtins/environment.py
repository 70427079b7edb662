"""HTCondor's job-environment functions: arguments and environments in their "V2" syntax
(items separated by spaces; single quotes protect spaces; ``''`` inside quotes is a quote),
old "V1" environments (``A=1;B=2``), and the user-lookup functions userHome and userMap."""

from __future__ import annotations

import pwd
from typing import Any

from ..scope import elements
from ..values import ERROR, UNDEFINED, ClassAdList, Error
from .registry import builtin

__all__ = ["USER_MAPS", "parse_v2", "quote_v2"]

# userMap() tables: map-set name -> user -> list of groups. The configuration fills it
# (CLASSAD_USER_MAPFILE_<name>); empty means no map is defined.
USER_MAPS: dict[str, dict[str, list[str]]] = {}


def quote_v2(word: str) -> str:
    """One argument in V2 syntax: each blank protected by quotes, a quote doubled."""
    if word == "":
        return "''"
    out = []
    for ch in word:
        if ch == "'":
            out.append("''''")
        elif ch.isspace():
            out.append(f"'{ch}'")
        else:
            out.append(ch)
    return "".join(out)


def parse_v2(text: str) -> list[str] | None:
    """Split V2 text into its items; None when a quote is left open."""
    items: list[str] = []
    current: list[str] = []
    in_word = quoted = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "'":
            if quoted and text.startswith("''", i):
                current.append("'")
                i += 2
                continue
            quoted = not quoted
            in_word = True
        elif ch.isspace() and not quoted:
            if in_word:
                items.append("".join(current))
                current, in_word = [], False
        else:
            current.append(ch)
            in_word = True
        i += 1
    if quoted:
        return None
    if in_word:
        items.append("".join(current))
    return items


@builtin("listToArgs")
def _list_to_args(st: Any, args: list[Any]) -> Any:
    words = args[0]
    if type(words) is not ClassAdList:
        return ERROR
    out = []
    for word in elements(st, words):
        if type(word) is not str:
            return ERROR
        out.append(quote_v2(word))
    return " ".join(out)


@builtin("argsToList")
def _args_to_list(st: Any, args: list[Any]) -> Any:
    text = args[0]
    if type(text) is not str:
        return ERROR
    items = parse_v2(text)
    return ERROR if items is None else ClassAdList(items)


def _v2_environment(text: str) -> dict[str, str] | None:
    items = parse_v2(text)
    if items is None:
        return None
    env: dict[str, str] = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name:
            return None
        env[name] = value
    return env


def _write_environment(env: dict[str, str]) -> str:
    return " ".join(f"{name}={quote_v2(env[name]) if env[name] else ''}" for name in sorted(env))


@builtin("envV1ToV2")
def _env_v1_to_v2(st: Any, args: list[Any]) -> Any:
    text = args[0]
    if text is UNDEFINED:
        return UNDEFINED
    if type(text) is not str:
        return ERROR
    out = []
    for entry in text.split(";"):
        if not entry:
            continue
        name, eq, value = entry.partition("=")
        if not eq or not name:
            return ERROR
        out.append(f"{name}={quote_v2(value) if value else ''}")
    return " ".join(out)


@builtin("mergeEnvironment", args=(0, None))
def _merge_environment(st: Any, args: list[Any]) -> Any:
    merged: dict[str, str] = {}
    for text in args:
        if text is UNDEFINED:
            continue
        if type(text) is not str:
            return ERROR
        env = _v2_environment(text)
        if env is None:
            return ERROR
        merged.update(env)
    return _write_environment(merged)


@builtin("userHome", args=(1, 2), pure=False)
def _user_home(st: Any, args: list[Any]) -> Any:
    """The user's home directory; the default (used only when it is a non-empty string)
    replaces a failure: an unknown user or UNDEFINED name (else UNDEFINED), or a name
    that is not a string (else ERROR)."""
    name = args[0]
    default = args[1] if len(args) > 1 and type(args[1]) is str and args[1] else None
    if type(name) is str:
        try:
            return pwd.getpwnam(name).pw_dir
        except (KeyError, ValueError):
            pass
    elif name is not UNDEFINED:
        return ERROR if default is None else default
    return UNDEFINED if default is None else default


@builtin("userMap", args=(2, 4), pure=False)
def _user_map(st: Any, args: list[Any]) -> Any:
    default = args[3] if len(args) > 3 else UNDEFINED
    map_name, user = args[0], args[1]
    if type(map_name) is Error or type(user) is Error:
        return ERROR
    if type(map_name) is not str or type(user) is not str:
        return default
    groups = USER_MAPS.get(map_name, {}).get(user)
    if not groups:
        return default
    if len(args) == 2:
        return ",".join(groups)
    preferred = args[2]
    if type(preferred) is str and preferred in groups:
        return preferred
    return groups[0]
