"""Time functions: time, absTime, relTime, splitTime, formatTime, interval, dayTime,
timeZoneOffset and the get* accessors. "Now" is the evaluation state's clock, never the
wall clock, so the negotiator and the simulator decide what time it is."""

from __future__ import annotations

from typing import Any

from .. import timefmt
from ..values import ERROR, UNDEFINED, AbsTime, AdBase, RelTime, int32, trunc32, trunc64
from .convert import number_prefix
from .registry import builtin

__all__: list[str] = []


def _c_int(value: Any) -> int:
    """A number or relative time as absTime() takes it: a C ``int`` (32 bits)."""
    if type(value) is int:
        return int32(value)
    return trunc32(value.secs if type(value) is RelTime else value)


def _instant(value: Any) -> Any:
    """A value as an absolute time (numbers are epoch seconds), or UNDEFINED/ERROR."""
    t = type(value)
    if t is AbsTime:
        return value
    if t is int or t is float:
        return AbsTime(trunc64(value), 0)
    if t is RelTime:
        return AbsTime(trunc64(value.secs), 0)
    if value is UNDEFINED:
        return UNDEFINED
    return ERROR


@builtin("time", args=0, pure=False)
def _time(st: Any, args: list[Any]) -> Any:
    return int(st.now)


@builtin("currentTime", args=0, pure=False)
def _current_time(st: Any, args: list[Any]) -> Any:
    """The evaluation's clock as an absolute time (HTCondor's library has it beside
    ``time()``: ``isAbsTime(currentTime())``, classad2 25.14.1)."""
    return AbsTime(int(st.now), 0)


@builtin("absTime", args=(0, 2), pure=False)
def _abs_time(st: Any, args: list[Any]) -> Any:
    """Seconds and zone are converted to C ints (``absTime(2147483648)`` is in 1901)."""
    if not args:
        return AbsTime(int(st.now), 0)
    value = args[0]
    zone = args[1] if len(args) == 2 else 0
    if type(zone) not in (int, float, RelTime):
        return ERROR  # a zone that is not a number fails whatever the first argument is
    t = type(value)
    if t is str or t is AbsTime:
        return value  # a computed string, or a time keeping its own zone (as HTCondor does)
    if t is int or t is float or t is RelTime:
        return AbsTime(_c_int(value), _c_int(zone))
    return UNDEFINED if value is UNDEFINED else ERROR


@builtin("relTime")
def _rel_time(st: Any, args: list[Any]) -> Any:
    value = args[0]
    t = type(value)
    if t is RelTime:
        return value
    if t is int:
        return RelTime(float(int32(value)))  # an integer goes through a C int
    if t is float:
        return RelTime(value)
    if t is AbsTime:
        return RelTime(float(value.secs))
    if t is str:
        return RelTime(0.0)  # a computed string does not convert (HTCondor's library)
    if value is UNDEFINED:
        return UNDEFINED
    return ERROR


def _split_relative(secs: float) -> tuple[int, int, int, float]:
    """Days, hours, minutes and seconds, each carrying the sign (getHours and friends)."""
    days = int(secs / 86400)
    rest = secs - days * 86400
    hours = int(rest / 3600)
    rest -= hours * 3600
    minutes = int(rest / 60)
    return days, hours, minutes, rest - minutes * 60


def _split_signed(secs: float) -> tuple[int, int, int, float]:
    """splitTime's parts: only the largest part that is not zero carries a negative sign
    (``relTime(-3700)`` is -1 hours, 1 minute, 40 seconds; ``relTime(-5)`` is -5 seconds),
    as classad2 25.14.1 gives them."""
    days, hours, minutes, seconds = (abs(x) for x in _split_relative(secs))
    if secs < 0:
        if days:
            days = -days
        elif hours:
            hours = -hours
        elif minutes:
            minutes = -minutes
        else:
            seconds = -seconds
    return int(days), int(hours), int(minutes), float(seconds)


@builtin("splitTime")
def _split_time(st: Any, args: list[Any]) -> Any:
    from ..ad import ClassAd

    value = args[0]
    if type(value) is RelTime:
        days, hours, minutes, seconds = _split_signed(value.secs)
        return ClassAd(
            {
                "Type": "RelativeTime",
                "Days": days,
                "Hours": hours,
                "Minutes": minutes,
                "Seconds": seconds,
            }
        )
    moment = _instant(value)
    if type(moment) is not AbsTime:
        return moment
    year, month, day, hour, minute, sec, _, _ = timefmt.civil_from_secs(moment.secs + moment.offset)
    return ClassAd(
        {
            "Type": "AbsoluteTime",
            "Year": year,
            "Month": month,
            "Day": day,
            "Hours": hour,
            "Minutes": minute,
            "Seconds": sec,
            "Offset": moment.offset,
        }
    )


@builtin("formatTime", args=(0, 2), pure=False)
def _format_time(st: Any, args: list[Any]) -> Any:
    moment = AbsTime(int(st.now), 0) if not args else args[0]
    if type(moment) in (int, float):
        moment = AbsTime(trunc64(moment), 0)
    local = _split_ad_secs(st, moment) if isinstance(moment, AdBase) else None
    if local is None:
        if type(moment) is not AbsTime:
            return ERROR
        local = moment.secs + moment.offset
    fmt = args[1] if len(args) > 1 else "%c"
    if type(fmt) is not str:
        return ERROR
    try:
        return timefmt.strftime(fmt, local)
    except (ValueError, OverflowError):
        return ERROR


def _split_ad_secs(st: Any, ad: Any) -> int | None:
    """The local time a splitTime() ad describes (None if it does not describe one)."""
    from ..scope import select

    fields = [
        select(st, ad, name) for name in ("year", "month", "day", "hours", "minutes", "seconds")
    ]
    if any(type(f) is not int for f in fields):
        return None
    return timefmt.secs_from_civil(*fields)


@builtin("interval")
def _interval(st: Any, args: list[Any]) -> Any:
    """The seconds as a C int: numbers through a 64-bit integer, relative times directly."""
    value = args[0]
    t = type(value)
    if t is RelTime:
        secs = trunc32(value.secs)
    elif t is AbsTime:
        secs = int32(value.secs)
    elif t is bool or t is int:
        secs = int32(int(value))
    elif t is float:
        secs = int32(trunc64(value))
    elif t is str:
        number = number_prefix(value)
        if number is None:
            return ERROR
        secs = int32(trunc64(number))
    else:
        return ERROR
    return _interval_text(secs)


def _interval_text(secs: int) -> str:
    sign = "-" if secs < 0 else ""
    days, rest = divmod(abs(secs), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    if days:
        return f"{sign}{days}+{hours:02d}:{minutes:02d}:{seconds:02d}"
    if hours:
        return f"{sign}{hours}:{minutes:02d}:{seconds:02d}"
    if minutes:
        return f"{sign}{minutes}:{seconds:02d}"
    return f"{sign}{seconds}"


@builtin("dayTime", args=0, pure=False)
def _day_time(st: Any, args: list[Any]) -> Any:
    return RelTime(float(int(st.now) % 86400))


@builtin("timeZoneOffset", args=0)
def _time_zone_offset(st: Any, args: list[Any]) -> Any:
    return RelTime(0.0)


def _calendar_field(index: int) -> Any:
    def field(st: Any, args: list[Any]) -> Any:
        value = args[0]
        if type(value) is not AbsTime:
            return ERROR  # UNDEFINED too, unlike most functions
        return timefmt.civil_from_secs(value.secs)[index]  # local time (UTC), not the offset

    return field


def _relative_field(index: int) -> Any:
    def field(st: Any, args: list[Any]) -> Any:
        value = args[0]
        if type(value) is not RelTime:
            return ERROR  # UNDEFINED too, unlike most functions
        return int(_split_relative(value.secs)[index])

    return field


builtin("getYear")(_calendar_field(0))
builtin("getMonth")(_calendar_field(1))
builtin("getDayOfMonth")(_calendar_field(2))
builtin("getDayOfWeek")(_calendar_field(6))
builtin("getDayOfYear")(_calendar_field(7))
builtin("getDays")(_relative_field(0))


def _hours_minutes_seconds(index: int) -> Any:
    """getHours/getMinutes/getSeconds take an absolute or a relative time."""
    absolute, relative = _calendar_field(3 + index), _relative_field(1 + index)

    def field(st: Any, args: list[Any]) -> Any:
        return relative(st, args) if type(args[0]) is RelTime else absolute(st, args)

    return field


builtin("getHours")(_hours_minutes_seconds(0))
builtin("getMinutes")(_hours_minutes_seconds(1))
builtin("getSeconds")(_hours_minutes_seconds(2))
