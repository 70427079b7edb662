"""A finished job's JSON text for its history row, made from the last row's pieces.

The schedd writes each finished job's whole ad into its history. Most of its attributes
are the same expressions, under the same names, as in the row written before it (a job
of the same cluster): each ``"Name":value`` piece is kept by its name and expression
(classad/kept_pieces.py), and a row is made from the last one's pieces,
only those of the changed expressions made again (classad/adtext.py). The
text is what msgspec writes of the whole object (``ad_to_json`` then ``_dump`` in
jobs.py); ``json`` writes it when msgspec refuses a piece (a string that is no UTF-8).
"""

from __future__ import annotations

import json

import msgspec

from ..classad import ClassAd
from ..classad.adtext import AdText
from ..classad.jsonads import ad_to_json, expr_to_json
from ..classad.kept_pieces import KeptPieces

__all__ = ["JsonText"]

_encode = msgspec.json.Encoder().encode
# ``"Name":value``, kept by name and expression; UnicodeEncodeError for a string that is
# no UTF-8 (then nothing kept)
_piece = KeptPieces(lambda name, expr: _encode({name: expr_to_json(expr)})[1:-1].decode())


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
