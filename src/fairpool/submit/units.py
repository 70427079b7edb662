"""request_memory / request_disk quantities: a number with an optional unit, or an expression.

condor_submit reads ``K``/``KB``, ``M``/``MB``, ``G``/``GB``, ``T``/``TB`` (powers of 1024
bytes, without case, blanks allowed before the unit). A number without a unit is already in
the attribute's unit: MiB for RequestMemory, KiB for RequestDisk. Scaled values round up to
a whole unit. Anything else must be a ClassAd expression (``MemoryUsage * 2``).
"""

from __future__ import annotations

import math
import re

from ..classad import ClassAdSyntaxError, Expr
from ..errors import SubmitError, excerpt

__all__ = ["KIB", "MIB", "quantity"]

KIB = 1
MIB = 2
_POWERS = {"k": 1, "kb": 1, "m": 2, "mb": 2, "g": 3, "gb": 3, "t": 4, "tb": 4}
_NUMBER_UNIT = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([A-Za-z]*)\Z")


def quantity(text: str, unit_power: int, command: str, source: str, line: int) -> int | Expr:
    """The attribute value for ``command = text``: an int in the unit, or an expression."""
    found = _NUMBER_UNIT.match(text.strip())
    if found:
        number, unit = float(found.group(1)), found.group(2).lower()
        if not unit:
            return math.ceil(number)
        if unit not in _POWERS:
            raise SubmitError(
                f"{command} = {text}: unknown unit {found.group(2)!r}: "
                "expected K, KB, M, MB, G, GB, T or TB",
                source,
                line,
            )
        return math.ceil(number * 1024 ** (_POWERS[unit] - unit_power))
    try:
        return Expr(text)
    except ClassAdSyntaxError as err:
        raise SubmitError(
            f"{command} = {excerpt(text)}: expected a number with an optional unit or a ClassAd "
            f"expression ({err.message})",
            source,
            line,
        ) from err
