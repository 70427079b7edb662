"""HTCondor's authorization levels and which level implies which.

A request needs one level; a caller granted a level also holds the levels it implies
(HTCondor's security chapter, "Access Level Descriptions"): WRITE implies READ;
ADMINISTRATOR and DAEMON imply WRITE and READ; NEGOTIATOR implies READ. HTCondor's
CONFIG, ADVERTISE_* and CLIENT levels have nothing to guard here (docs/security.md).
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Level", "parse_levels"]


class Level(StrEnum):
    """An authorization level, by HTCondor's name."""

    READ = "READ"
    WRITE = "WRITE"
    ADMINISTRATOR = "ADMINISTRATOR"
    DAEMON = "DAEMON"
    NEGOTIATOR = "NEGOTIATOR"

    @property
    def implied(self) -> frozenset[Level]:
        """This level and every level it implies."""
        return _IMPLIES[self]

    @property
    def implied_by(self) -> frozenset[Level]:
        """The levels that grant this one (itself among them)."""
        return _IMPLIED_BY[self]


_IMPLIES = {
    Level.READ: frozenset({Level.READ}),
    Level.WRITE: frozenset({Level.WRITE, Level.READ}),
    Level.ADMINISTRATOR: frozenset({Level.ADMINISTRATOR, Level.WRITE, Level.READ}),
    Level.DAEMON: frozenset({Level.DAEMON, Level.WRITE, Level.READ}),
    Level.NEGOTIATOR: frozenset({Level.NEGOTIATOR, Level.READ}),
}
_IMPLIED_BY = {
    level: frozenset(other for other in Level if level in _IMPLIES[other]) for level in Level
}


def parse_levels(words: list[str], where: str) -> frozenset[Level]:
    """Level names (any case) as levels; ValueError naming ``where`` and the word."""
    levels = set()
    for word in words:
        try:
            levels.add(Level(word.strip().upper()))
        except ValueError:
            names = ", ".join(level.value for level in Level)
            raise ValueError(f"{where}: {word!r} is not an authorization level ({names})") from None
    return frozenset(levels)
