"""Reading one attribute of an ad the quick way.

A cycle reads a few attributes of every slot and every idle job (state, names, request
sizes, schedd order, the slot's weight). Most of them are literals, whose value needs no
evaluation, or a plain reference to a literal of the same ad (a slot's ``SlotWeight =
Cpus``), whose value is that literal's; a million jobs or 100,000 slots make the
difference count.
"""

from __future__ import annotations

from typing import Any

from ..classad import ClassAd
from ..classad.ad import to_python
from ..classad.nodes import AttrRef
from ..classad.scope import MATCH_SCOPE_NAMES, NOT_CONST, SPECIAL_NAMES
from ..classad.values import UNDEFINED

__all__ = ["attribute"]


def attribute(ad: ClassAd, name: str, now: float | None = None) -> Any:
    """``ad.eval(name, now=now)``, without an evaluation when the attribute is absent, a
    literal, or names another attribute of the ad that is a literal."""
    exprs = ad._exprs
    expr = exprs.get(name.lower())
    if expr is None:
        return UNDEFINED
    if expr.const is not NOT_CONST:
        return to_python(expr.const)
    node = expr.node
    if type(node) is AttrRef and node.scope is None and not node.absolute:
        lname = node.lname
        if lname not in SPECIAL_NAMES and lname not in MATCH_SCOPE_NAMES:
            found = exprs.get(lname)
            if found is not None and found.const is not NOT_CONST:
                return to_python(found.const)
    return ad.eval(name, now=now)
