"""The attributes an expression refers to: its own ad's, and the ones it cannot resolve.

Autoclusters and significant attributes are built from these: a job's Requirements needs
the slot attributes it names and the job attributes it reads, directly or through other job
attributes. ``MY.x`` and an unscoped name the ad has are internal; ``TARGET.x``,
``OTHER.x`` and unscoped names the ad lacks are looked up in the other ad of a match.
Names reached only through ``eval()`` cannot be known, as in HTCondor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .nodes import AttrRef, Node, children
from .scope import SPECIAL_NAMES

__all__ = ["References", "references", "unresolved_text"]

_OWN_SCOPES = frozenset({"my", "self"})
_OTHER_SCOPES = frozenset({"target", "other"})


@dataclass
class References:
    """``internal``: own attributes read. ``unresolved``: references that are not the ad's,
    written as HTCondor's ``unresolved()`` lists them (``TARGET.x``, ``x``, ``a.b``).
    ``external``: the attribute names the other ad of a match must supply."""

    internal: set[str] = field(default_factory=set)
    unresolved: set[str] = field(default_factory=set)
    external: set[str] = field(default_factory=set)


def references(node: Node, ad: Any) -> References:
    """What ``node`` refers to when evaluated in ``ad`` (which may be None)."""
    found = References()
    _walk(node, ad, found, set())
    return found


def unresolved_text(refs: References) -> str:
    """HTCondor's ``unresolved()`` text: sorted without case, ``TARGET.`` dropped."""
    ordered = sorted(refs.unresolved, key=str.lower)
    return ",".join(r[7:] if r[:7].lower() == "target." else r for r in ordered)


def _walk(node: Node, ad: Any, found: References, seen: set[str]) -> None:
    if type(node) is AttrRef and _reference(node, ad, found, seen):
        return
    for child in children(node):
        _walk(child, ad, found, seen)


def _has(ad: Any, lname: str) -> bool:
    return ad is not None and lname in ad._exprs


def _reference(node: AttrRef, ad: Any, found: References, seen: set[str]) -> bool:
    """Record one reference; True when its scope needs no further walk."""
    scope = node.scope
    if scope is None:
        if node.lname not in SPECIAL_NAMES or node.absolute:
            _own(node, ad, found, seen, external_if_missing=True)
        return True
    if type(scope) is AttrRef and scope.scope is None and not scope.absolute:
        if scope.lname in _OTHER_SCOPES and not _has(ad, scope.lname):
            found.unresolved.add(
                f"{'TARGET' if scope.lname == 'target' else scope.name}.{node.name}"
            )
            found.external.add(node.name)
            return True
        if scope.lname in _OWN_SCOPES and not _has(ad, scope.lname):
            _own(node, ad, found, seen, external_if_missing=False)
            return True
    from .unparse import unparse

    found.unresolved.add(unparse(node))
    return True


def _own(
    node: AttrRef, ad: Any, found: References, seen: set[str], external_if_missing: bool
) -> None:
    """An attribute of the ad itself, followed into its expression; or an unresolved one."""
    if not _has(ad, node.lname):
        found.unresolved.add(node.name)
        if external_if_missing:
            found.external.add(node.name)
        return
    found.internal.add(ad._names[node.lname])
    if node.lname not in seen:
        seen.add(node.lname)
        _walk(ad._exprs[node.lname].node, ad, found, seen)
