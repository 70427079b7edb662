"""Accounting-group map files (seed "Setting Accounting Group automatically per user").

``USE FEATURE: AssignAccountingGroup(file)`` on the access point reads a ClassAd map file
of three columns::

    * Alice            group_physics
    * /^student_.*/    group_students
    * Bob              group_atlas,group_cms

The first column is ``*``; the second a user name, or a regular expression between
slashes (optionally followed by ``i`` for any case); the third the user's group, or a comma
list of the groups the user may choose, the first being the default. Literal names are
tried before expressions, expressions in file order; the first that matches wins. The file
is re-read on reconfiguration: ``reload()`` keeps the old map when the new file is bad.

As the metaknob's job transform and submit requirements do (HTCondor's manual,
"Configuration Templates", ``AssignAccountingGroup( map_filename [, check_request] )``):
a user the map does not name is refused (``SUBMIT_REQUIREMENT_AssignAccountingGroup``);
a requested group the user may not use is refused when ``check_request`` is true or
absent (``SUBMIT_REQUIREMENT_CheckRequestedGroup``), and ignored for the user's first
group when it is false.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..classad import ClassAd, ClassAdSyntaxError, Expr
from ..classad.builtins.regex import compile_pattern
from ..errors import ConfigError, SubmitError
from ..textfiles import read_text

__all__ = ["GroupMap", "MapEntry", "configured_group_map"]

MAP_NAME = "AssignAccountingGroup"  # the map `use FEATURE : AssignAccountingGroup` names


class Knobs(Protocol):
    def get(self, name: str) -> str | None: ...

    def where(self, name: str) -> tuple[str | None, int | None]: ...


@dataclass(frozen=True)
class MapEntry:
    """One line of the map: a literal user or a compiled pattern, and its groups."""

    user: str | None
    pattern: Any  # a compiled pattern (RE2, classad.builtins.regex), or None
    groups: tuple[str, ...]
    line: int


class GroupMap:
    """Which accounting groups each user may submit to."""

    def __init__(
        self,
        entries: list[MapEntry],
        source: str,
        path: Path | None = None,
        check_request: bool = True,
    ) -> None:
        self.entries = entries
        self.source = source
        self.path = path
        self.check_request = check_request

    @classmethod
    def parse(cls, text: str, source: str = "<string>") -> GroupMap:
        """Read map text; SubmitError names the line and what was expected."""
        entries = [
            _entry(line, number, source)
            for number, line in enumerate(text.splitlines(), start=1)
            if line.strip() and not line.lstrip().startswith("#")
        ]
        return cls(entries, source)

    @classmethod
    def read(cls, path: str | Path) -> GroupMap:
        """Read a map file."""
        path = Path(path)
        text = read_text(path, SubmitError, "accounting-group map")
        found = cls.parse(text, str(path))
        found.path = path
        return found

    def reload(self) -> str | None:
        """Re-read the file (condor_reconfig). On a bad or missing file keep the current map
        and return the problem as one line; return None when the new map is in use."""
        if self.path is None:
            return None
        try:
            fresh = GroupMap.read(self.path)
        except SubmitError as err:
            return str(err)
        self.entries = fresh.entries
        return None

    def entry_for(self, user: str) -> MapEntry | None:
        """The entry that decides for ``user``: literal names first, then patterns in order."""
        for entry in self.entries:
            if entry.user == user:
                return entry
        for entry in self.entries:
            if entry.pattern is not None and entry.pattern.search(user):
                return entry
        return None

    def groups_for(self, user: str) -> list[str]:
        """The groups ``user`` may use, default first; [] when the map does not name them."""
        entry = self.entry_for(user)
        return list(entry.groups) if entry is not None else []

    def assign(self, user: str, requested: str | None) -> str:
        """The group a job of ``user`` gets when it asks for ``requested`` (None: nothing);
        SubmitError with the submit requirement's reason when the job is refused."""
        entry = self.entry_for(user)
        if entry is None:
            asked = f" {requested}" if requested is not None else ""
            raise SubmitError(
                "Submit requirement AssignAccountingGroup not met - Could not map "
                f"'{user}' to an accounting group{asked}",
                self.source,
            )
        if requested is None or requested in entry.groups:
            return requested or entry.groups[0]
        if not self.check_request:
            return entry.groups[0]
        raise SubmitError(
            f"Permission denied setting accounting_group to {requested} "
            f"(the map allows {', '.join(entry.groups)})",
            self.source,
            entry.line,
        )


def _entry(line: str, number: int, source: str) -> MapEntry:
    text = line.strip()
    if not text.startswith("*") or not text[1:2].isspace():
        raise SubmitError("expected '*' as the first column of a map line", source, number)
    rest = text[1:].strip()
    if rest.startswith("/"):
        user, pattern, rest = None, *_pattern(rest, source, number)
    else:
        parts = rest.split(None, 1)
        user, pattern, rest = parts[0], None, parts[1] if len(parts) > 1 else ""
    groups = tuple(g.strip() for g in rest.split(",") if g.strip())
    if not groups or any(not re.fullmatch(r"[^\s,]+", g) for g in groups):
        raise SubmitError(
            "expected a third column: an accounting group or a comma list of groups",
            source,
            number,
        )
    return MapEntry(user, pattern, groups, number)


def _pattern(rest: str, source: str, number: int) -> tuple[Any, str]:
    end = rest.find("/", 1)
    while end > 0 and rest[end - 1] == "\\":
        end = rest.find("/", end + 1)
    if end < 0:
        raise SubmitError("regular expression is not closed: expected '/'", source, number)
    flags = rest[end + 1 :].split(None, 1)
    options = flags[0] if flags and not rest[end + 1 : end + 2].isspace() else ""
    if options and options != "i":
        raise SubmitError(
            f"unknown regular-expression option {options!r}: expected 'i'", source, number
        )
    compiled = compile_pattern(rest[1:end], options)
    if compiled is None:
        raise SubmitError(f"bad regular expression /{rest[1:end]}/", source, number)
    remainder = rest[end + 1 + len(options) :].strip()
    return compiled, remainder


def configured_group_map(config: Knobs | None) -> GroupMap | None:
    """The map ``use FEATURE : AssignAccountingGroup(file)`` configures, or None: the
    feature names it in ``SCHEDD_CLASSAD_USER_MAP_NAMES`` and its file in
    ``CLASSAD_USER_MAPFILE_AssignAccountingGroup``."""
    if config is None:
        return None
    names = (config.get("SCHEDD_CLASSAD_USER_MAP_NAMES") or "").replace(",", " ").split()
    if MAP_NAME.lower() not in {name.lower() for name in names}:
        return None
    knob = f"CLASSAD_USER_MAPFILE_{MAP_NAME}"
    path = (config.get(knob) or "").strip()
    if not path:
        source, line = config.where(knob)
        raise ConfigError(f"{knob}: expected the map file's path", source, line, knob)
    found = GroupMap.read(path)
    found.check_request = _checks_request(config)
    return found


def _checks_request(config: Knobs) -> bool:
    """Whether the configured submit requirements refuse a requested group other than the
    one assigned: ``CheckRequestedGroup`` is among ``SUBMIT_REQUIREMENT_NAMES`` and its
    expression is false for such a job (the metaknob's second argument makes it true)."""
    names = (config.get("SUBMIT_REQUIREMENT_NAMES") or "").replace(",", " ").split()
    if "checkrequestedgroup" not in {name.lower() for name in names}:
        return False
    text = config.get("SUBMIT_REQUIREMENT_CheckRequestedGroup")
    if not text or not text.strip():
        return False
    try:
        verdict = Expr(text).eval(ClassAd({"RequestedAcctGroup": "a", "AcctGroup": "b"}), now=0)
    except ClassAdSyntaxError:
        return True
    return verdict is not True
