"""The conditions of ``if`` and ``elif`` lines, as HTCondor's configuration reader allows them.

After macro expansion a condition is ``defined NAME`` (the knob has a non-empty value,
table defaults included), ``version <op> X.Y[.Z]`` (compared with ``HTCONDOR_VERSION``),
a boolean or number (``true``, ``yes``, ``0``...), any of these after ``!``. HTCondor
refuses anything more complex (``$(X) == 1``), and so do we.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable

from ..errors import ConfigError

__all__ = ["HTCONDOR_VERSION", "evaluate_condition"]

# The HTCondor release whose configuration language fairpool reads.
HTCONDOR_VERSION = (25, 0, 0)

_TRUE = {"true", "yes", "t", "y"}
_FALSE = {"false", "no", "f", "n"}
_VERSION = re.compile(r"version\s*(>=|<=|==|!=|>|<)\s*(\d+)\.(\d+)(?:\.(\d+))?\s*\Z", re.I)
_DEFINED = re.compile(r"defined\s+(\S+)\s*\Z", re.I)
_OPS: dict[str, Callable[[object, object], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    "<": operator.lt,
}


def evaluate_condition(
    text: str, is_defined: Callable[[str], bool], source: str, line: int
) -> bool:
    """True or False for an expanded condition; ConfigError for one HTCondor refuses."""
    condition = text.strip()
    if condition.startswith("!"):
        return not evaluate_condition(condition[1:], is_defined, source, line)
    lowered = condition.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE or not condition:
        return False
    defined = _DEFINED.match(condition)
    if defined:
        return is_defined(defined.group(1))
    version = _VERSION.match(condition)
    if version:
        wanted = tuple(int(part or 0) for part in version.group(2, 3, 4))
        return _OPS[version.group(1)](HTCONDOR_VERSION, wanted)
    try:
        return float(condition) != 0
    except ValueError:
        pass
    raise ConfigError(
        f"expected a condition (true/false, a number, defined NAME or version >= X.Y), "
        f"got {condition!r}",
        source,
        line,
    )
