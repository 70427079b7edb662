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
    r"\s*(\d{4})(?:-?(\d{1,2})(?:-?(\d{1,2})"
    r"(?:[T ]?:?(\d{1,2})(?::?(\d{1,2})(?::?(\d{1,2}))?)?|T)?)?)?"
    r"\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?\s*"
)
_RELTIME_CLOCK = re.compile(r"\s*(-)?(?:(\d+)\+)?(\d+)(?::(\d+))?(?::(\d+))?(\.\d+)?\s*")
_RELTIME_UNITS = re.compile(r"\s*(-)?((?:\d+(?:\.\d*)?\s*[dhms]\s*)+)")
_UNIT_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


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

    Missing month is January and missing day is day 0 (so ``"2004"`` is 2003-12-31), and
    out-of-range fields roll over, as HTCondor's reader does. Times before 1970 are refused.
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
    offset = _zone_offset(zone)
    secs -= offset
    if secs < 0:
        return None
    return AbsTime(secs, offset)


def _zone_offset(zone: str | None) -> int:
    if not zone or zone in "Zz":
        return 0
    digits = zone[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:] or 0)
    total = hours * 3600 + minutes * 60
    return -total if zone[0] == "-" else total


def parse_reltime(text: str) -> float | None:
    """Read ``[-][days+]hh:mm:ss[.fff]`` or ``1d2h3m4.5s``; None if it is neither."""
    m = _RELTIME_CLOCK.fullmatch(text)
    if m is not None:
        sign, days, first, second, third, frac = m.groups()
        parts = [int(p) for p in (first, second, third) if p is not None]
        while len(parts) < 3:
            parts.insert(0, 0)
        hours, minutes, seconds = parts
        total = int(days or 0) * 86400 + hours * 3600 + minutes * 60 + seconds
        value = total + (float(frac) if frac else 0.0)
        return -value if sign else float(value)
    m = _RELTIME_UNITS.fullmatch(text)
    if m is not None:
        value = 0.0
        for amount, unit in re.findall(r"(\d+(?:\.\d*)?)\s*([dhms])", m.group(2)):
            value += float(amount) * _UNIT_SECONDS[unit]
        return -value if m.group(1) else value
    return None


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
    """``YYYY-MM-DDTHH:MM:SS±HH:MM`` in the value's own zone; UTC prints as ``-00:00``."""
    year, month, day, hour, minute, sec, _, _ = civil_from_secs(value.secs + value.offset)
    offset = value.offset
    sign = "+" if offset > 0 else "-"
    oh, om = divmod(abs(offset) // 60, 60)
    return (
        f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{sec:02d}{sign}{oh:02d}:{om:02d}"
    )


def strftime(fmt: str, local_secs: int) -> str:
    """C-locale strftime of a moment given as seconds in its own local time."""
    year, month, day, hour, minute, sec, weekday, yday = civil_from_secs(local_secs)
    tm = (year, month, day, hour, minute, sec, (weekday - 1) % 7, yday + 1, 0)
    return time.strftime(fmt, tm)
