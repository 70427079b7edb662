"""Times and durations as condor_q, condor_status and condor_history print them.

Local time is UTC, as everywhere in fairpool (classad/timefmt.py), so listings do not depend
on the machine's time zone. The three forms, from the tools' real output:

* ``duration``: ``D+HH:MM:SS`` (RUN_TIME, ActvtyTime): ``0+00:00:13``, ``14+17:40:01``;
* ``month_day``: ``M/D HH:MM`` in 11 characters, the month right-aligned in 2 and the day
  left-aligned in 2 (SUBMITTED, HELD_SINCE, COMPLETED): `` 4/9  20:26``, ``10/18 14:48``;
* ``stamp``: ``MM/DD/YY HH:MM:SS`` (the ``-- Schedd:`` banner): ``10/22/24 16:46:39``.
"""

from __future__ import annotations

from ...classad.timefmt import civil_from_secs

__all__ = ["duration", "month_day", "stamp"]


def duration(seconds: float) -> str:
    """Whole seconds (a negative span, from clock skew, is shown as none) as ``D+HH:MM:SS``."""
    whole = max(int(seconds), 0)
    days, rest = divmod(whole, 86400)
    return f"{days}+{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"


def month_day(when: float) -> str:
    """`` M/D  HH:MM``: always 11 characters, so a column of them lines up."""
    _, month, day, hour, minute, *_ = civil_from_secs(int(when))
    return f"{month:2d}/{day:<2d} {hour:02d}:{minute:02d}"


def stamp(when: float) -> str:
    """``MM/DD/YY HH:MM:SS``."""
    year, month, day, hour, minute, second, *_ = civil_from_secs(int(when))
    return f"{month:02d}/{day:02d}/{year % 100:02d} {hour:02d}:{minute:02d}:{second:02d}"
