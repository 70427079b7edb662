"""A finished job's JSON text for its history row, made from the last row's pieces.

The schedd writes each finished job's whole ad into its history. Most of its attributes
are the same expressions, under the same names, as in the row written before it (a job
of the same cluster): each ``"Name":value`` piece is kept by its name and expression
(immutable and shared, found by identity), and a row is made from the last one's pieces,
only those of the changed expressions made again (classad/adtext.py). The
text is what msgspec writes of the whole object (``ad_to_json`` then ``_dump`` in
jobs.py); ``json`` writes it when msgspec refuses a piece (a string that is no UTF-8).
"""

from __future__ import annotations

import json

import msgspec

from ..classad import ClassAd, Expr
from ..classad.adtext import AdText
from ..classad.jsonads import ad_to_json, expr_to_json

__all__ = ["JsonText"]

_KEPT = 100_000  # pieces kept before they are all forgotten
_pieces: dict[tuple[str, int], tuple[Expr, str]] = {}  # (name, id(expr)) -> its piece
_encode = msgspec.json.Encoder().encode


def _piece(name: str, expr: Expr) -> str:
    """``"Name":value``; UnicodeEncodeError for a string that is no UTF-8."""
    found = _pieces.get((name, id(expr)))
    if found is None or found[0] is not expr:
        found = (expr, _encode({name: expr_to_json(expr)})[1:-1].decode())
        if len(_pieces) >= _KEPT:
            _pieces.clear()
        _pieces[name, id(expr)] = found
    return found[1]


class JsonText(AdText):
    """Whole ads as JSON text, each mostly the one before it (a schedd's history rows)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(_piece)

    def write(self, ad: ClassAd) -> str:
        try:
            return "{" + ",".join(self.pieces(ad)) + "}"
        except UnicodeEncodeError:
            return json.dumps(ad_to_json(ad), separators=(",", ":"))
