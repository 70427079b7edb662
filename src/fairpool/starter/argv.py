"""The job's argument list and its own environment, read back from the ad.

The reverse of ``fairpool.submit.argv``, which writes them as condor_submit does:
``Arguments`` / ``Environment`` (new syntax, canonical form) are split by the same word
reader that parsed the submit file, so every word round-trips; ``Args`` (old syntax) is split
at blanks, with no quoting, as HTCondor's starter does on Unix; ``Env`` (old syntax) is split
at ``;``.
"""

from __future__ import annotations

import re

from ..classad import ClassAd
from ..errors import SubmitError
from ..submit.argv import split_new_syntax
from .hold import FAILED_TO_CREATE_PROCESS, Hold, StartError

__all__ = ["job_arguments", "job_environment"]

_BLANKS = re.compile(r"[ \t\r\n]+")


def job_arguments(ad: ClassAd) -> list[str]:
    """The words after argv[0]: ``Arguments`` if present, else ``Args``, else none."""
    value = _string(ad, "Arguments")
    if value is not None:
        return _split(value, "Arguments")
    value = _string(ad, "Args")
    return [word for word in _BLANKS.split(value) if word] if value else []


def job_environment(ad: ClassAd) -> dict[str, str]:
    """The variables the job asked for: ``Environment`` if present, else ``Env``."""
    value = _string(ad, "Environment")
    if value is not None:
        entries = _split(value, "Environment")
    else:
        entries = [entry for entry in (_string(ad, "Env") or "").split(";") if entry.strip()]
    environment: dict[str, str] = {}
    for entry in entries:
        name, equals, text = entry.partition("=")
        if not equals or not name.strip():
            raise _bad(f"environment entry {entry!r}: expected name=value")
        environment[name.strip()] = text
    return environment


def _split(value: str, attribute: str) -> list[str]:
    try:
        return split_new_syntax(value, attribute)
    except SubmitError as error:
        raise _bad(error.message) from None


def _string(ad: ClassAd, name: str) -> str | None:
    value = ad.get(name)
    return value if isinstance(value, str) else None


def _bad(message: str) -> StartError:
    return StartError(
        Hold(f"Failed to read the job's command line: {message}", FAILED_TO_CREATE_PROCESS)
    )
