"""``-l``: whole ads in old ClassAd syntax, as condor_q -l and condor_status -l print them.

Attributes are sorted by name without regard to case (real condor_q -l and condor_status -l
output is: data/ads/chtc and data/ads/ospool in the shared data), one ``Name = expr`` per
line, a blank line between ads. ``fairpool submit --dry-run -l`` prints the same layout.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...classad import ClassAd
from ...classad.formats import write_old

__all__ = ["long_form", "sorted_ad"]


def long_form(ads: Sequence[ClassAd]) -> str:
    return "\n".join(write_old(sorted_ad(ad)) for ad in ads)


def sorted_ad(ad: ClassAd) -> ClassAd:
    """The same ad with its attributes in -l's order (expressions shared, not copied)."""
    ordered = ClassAd()
    for name in sorted(ad, key=str.lower):
        ordered.insert_expr(name, ad.lookup(name))
    return ordered
