"""Reading one attribute of an ad the quick way.

A cycle reads a few attributes of every slot and every idle job (state, names, request
sizes, schedd order). Most of them are literals, whose value needs no evaluation; a
million jobs make the difference count.
"""

from __future__ import annotations

from typing import Any

from ..classad import ClassAd
from ..classad.ad import to_python
from ..classad.scope import NOT_CONST

__all__ = ["attribute"]


def attribute(ad: ClassAd, name: str) -> Any:
    """``ad.eval(name)``, without an evaluation when the attribute is a literal."""
    expr = ad._exprs.get(name.lower())
    if expr is not None and expr.const is not NOT_CONST:
        return to_python(expr.const)
    return ad.eval(name)
