"""Absolute and relative times: reading and writing their text forms, and calendar math.

"Local time" is UTC everywhere in fairpool (the reference ran with TZ=UTC), so results do not
depend on the machine's time zone. Calendar conversion is done on integers, so any 64-bit
time works, before 1970 included.
"""

from __future__ import annotations

import re
import time

from .values import AbsTime, trunc32

__all__ = [
    "civil_from_secs",
    "format_abstime",
    "format_reltime",
    "format_reltime_literal",
    "parse_abstime",
    "parse_reltime",
    "secs_from_civil",
    "strftime",
]

_ABSTIME = re.compile(
    r"[ \t\n\r\f\v]*([0-9]{4})(?:-?([0-9]{2})(?:-?([0-9]{2})"
    r"(?:[T ]?:?([0-9]{2})(?::?([0-9]{2})(?::?([0-9]{2}))?)?|T)?)?)?"
    r"[ \t\n\r\f\v]*(Z|z|[+-][0-9]{2}:?[0-9]{2})?[ \t\n\r\f\v]*"
)
_RELTIME_TOKEN = re.compile(
    r"[ \t\n\r\f\v]*(?:([0-9]+(?:\.[0-9]*)?|\.[0-9]*)|([-+:dhmsDHMS])|(.))", re.DOTALL
)
_UNIT_RANK = {"s": 0, "m": 1, "h": 2, "d": 3, "+": 3}
_RANK_SECONDS = (1, 60, 3600, 86400)


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (month 1-12)."""
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(days: int) -> tuple[int, int, int]:
    """(year, month 1-12, day 1-31) of a day number since 1970-01-01."""
    days += 719468
    era = days // 146097
    doe = days - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def secs_from_civil(year: int, month: int, day: int, hour: int, minute: int, sec: int) -> int:
    """Epoch seconds of a UTC date and time, normalising out-of-range fields as timegm does."""
    year += (month - 1) // 12
    month = (month - 1) % 12 + 1
    days = days_from_civil(year, month, 1) + day - 1
    return days * 86400 + hour * 3600 + minute * 60 + sec


def civil_from_secs(secs: int) -> tuple[int, int, int, int, int, int, int, int]:
    """(year, month, day, hour, minute, second, weekday with Sunday 0, day of year from 0)."""
    days, rest = divmod(secs, 86400)
    year, month, day = civil_from_days(days)
    weekday = (days + 4) % 7
    yday = days - days_from_civil(year, 1, 1)
    return year, month, day, rest // 3600, rest % 3600 // 60, rest % 60, weekday, yday


def parse_abstime(text: str) -> AbsTime | None:
    """Read ``yyyy-mm-ddThh:mm:ss±hh:mm`` and its shorter forms; None if it is not one.

    Fields after the year have two digits. Missing month is January and missing day is
    day 0 (so ``"2004"`` is 2003-12-31), and out-of-range fields roll over, as HTCondor's
    reader does. The one date refused is 1969-12-31T23:59:59 (before the zone is applied),
    whose seconds are -1, the error value of the C library's conversion.
    """
    m = _ABSTIME.fullmatch(text)
    if m is None:
        return None
    year, month, day, hour, minute, sec, zone = m.groups()
    secs = secs_from_civil(
        int(year),
        int(month) if month else 1,
        int(day) if day else 0,
        int(hour or 0),
        int(minute or 0),
        int(sec or 0),
    )
    if secs == -1:
        return None
    offset = _zone_offset(zone)
    return AbsTime(secs - offset, offset)


def _zone_offset(zone: str | None) -> int:
    if not zone or zone in "Zz":
        return 0
    digits = zone[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:] or 0)
    total = hours * 3600 + minutes * 60
    return -total if zone[0] == "-" else total


def parse_reltime(text: str) -> float | None:
    """Read a relative time literal as HTCondor's parser does; None if it is not one.

    ``[-]`` then groups, each numbers joined by ``:`` and ended by a unit (``+`` or ``d``
    days, ``h``, ``m``, ``s``; nothing at the end means seconds): ``1+02:03:04.5``,
    ``1d2h3m4.5s``, ``1h2:3``. A group's last number has the unit, the numbers before it
    the next larger ones (at most hours before a colon); units only go down; a missing
    number is 0 (``"1:"`` is a minute); only seconds have a fraction; blanks may stand
    between any two tokens.
    """
    tokens = _reltime_tokens(text)
    if tokens is None:
        return None
    negative = tokens[:1] == ["-"]
    total, limit, i = 0.0, len(_RANK_SECONDS), int(negative)
    while i < len(tokens):
        numbers: list[str | None] = [None]
        while i < len(tokens) and tokens[i].lower() not in _UNIT_RANK and tokens[i] != "-":
            if tokens[i] == ":":
                numbers.append(None)
            elif numbers[-1] is None:
                numbers[-1] = tokens[i]
            else:
                return None  # two numbers in a row
            i += 1
        if i < len(tokens) and tokens[i] == "-":
            return None
        unit = tokens[i].lower() if i < len(tokens) else ""
        i += 1
        rank = _UNIT_RANK.get(unit, 0)
        ranks = range(rank + len(numbers) - 1, rank - 1, -1)
        if ranks[0] >= limit or (len(numbers) > 1 and ranks[0] > 2):
            return None
        for number, r in zip(numbers, ranks, strict=True):
            if number is not None and "." in number:
                if r or (number.endswith(".") and unit != "s"):
                    return None  # only seconds have a fraction ("5." only before "s")
                number = number.rstrip(".") or "0"
            total += float(number or 0) * _RANK_SECONDS[r]
        limit = ranks[-1]
    return -total if negative else total


def _reltime_tokens(text: str) -> list[str] | None:
    """Numbers, unit letters, ``:``, ``+`` and a leading ``-``, blanks dropped."""
    tokens = []
    for number, other, bad in _RELTIME_TOKEN.findall(text.strip(" \t\n\r\f\v")):
        if bad or (other == "-" and tokens):
            return None
        tokens.append(number or other)
    return tokens


def format_reltime(secs: float) -> str:
    """A relative time as string() and the unparser write a value: whole seconds (the
    fraction is dropped, toward zero) as ``[-][days+]hh:mm:ss`` without leading zero fields."""
    whole = trunc32(secs)
    sign = "-" if whole < 0 else ""
    return sign + _clock(abs(whole), f"{abs(whole) % 60:02d}")


def format_reltime_literal(secs: float) -> str:
    """A relative time as the unparser writes a parse-time ``relTime("...")`` literal: like
    format_reltime, but seconds with a fraction are written with ``%g`` (``"01:1.5"``)."""
    sign = "-" if secs < 0 else ""
    rest = abs(secs)
    whole = int(rest // 60) * 60
    seconds = rest - whole
    text = f"{seconds:g}" if seconds != int(seconds) else f"{int(seconds):02d}"
    return sign + _clock(whole, text)


def _clock(secs: int, seconds: str) -> str:
    """``[days+]hh:mm:`` (leading zero fields left out) before the seconds text."""
    days, rest = divmod(secs, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return f"{days}+{hours:02d}:{minutes:02d}:{seconds}"
    if hours:
        return f"{hours:02d}:{minutes:02d}:{seconds}"
    if minutes:
        return f"{minutes:02d}:{seconds}"
    return seconds


def format_abstime(value: AbsTime) -> str:
    """``YYYY-MM-DDTHH:MM:SS±HH:MM`` in the value's own zone; UTC prints as ``-00:00``, the
    year without leading zeros (``1-01-01T...``), as the library writes it."""
    year, month, day, hour, minute, sec, _, _ = civil_from_secs(value.secs + value.offset)
    offset = value.offset
    sign = "+" if offset > 0 else "-"
    oh, om = divmod(abs(offset) // 60, 60)
    return f"{year}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{sec:02d}{sign}{oh:02d}:{om:02d}"


def strftime(fmt: str, local_secs: int) -> str:
    """C-locale strftime of a moment given as seconds in its own local time."""
    year, month, day, hour, minute, sec, weekday, yday = civil_from_secs(local_secs)
    tm = (year, month, day, hour, minute, sec, (weekday - 1) % 7, yday + 1, 0)
    return time.strftime(fmt, tm)
