"""An ad written out again and again as it changes a little each time.

A startd's starter writes each job's ad and its slot's ad into the job's sandbox
(``.job.ad``, ``.machine.ad``), and a schedd writes each finished job's ad into its
history. A slot's ad differs from the one written at its last job's start in a few values
(its state's times, the job's id), and a job's ad from the last job's of its cluster in a
few more; each of their ninety or fifty attributes was written again all the same.
``AdText`` keeps the last ad's pieces (one per attribute) and makes only those of the
expressions that changed, found by identity (expressions are immutable and shared).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from operator import is_not

from .ad import ClassAd, Expr
from .formats import old_line

__all__ = ["AdText", "OldText"]


class AdText:
    """Each attribute's piece of text (``piece(name, expr)``) of a sequence of ads, each
    mostly the one before it."""

    __slots__ = ("_last", "_piece")

    def __init__(self, piece: Callable[[str, Expr], str]) -> None:
        self._piece = piece
        # the last ad's names (by key), keys, expressions and pieces, in its order
        self._last: tuple[dict[str, str], list[str], list[Expr], list[str]] | None = None

    def pieces(self, ad: ClassAd) -> list[str]:
        """The ad's pieces in its order (the caller's to keep: a new list each time);
        whatever ``piece`` raises, with nothing kept of this ad."""
        keys, exprs = list(ad._exprs), list(ad._exprs.values())
        last, piece = self._last, self._piece  # one read: another thread only replaces it
        if last is None or last[1] != keys or last[0] != ad._names:
            names = dict(ad._names)
            made = [piece(names[key], expr) for key, expr in zip(keys, exprs, strict=True)]
        else:
            names, made = last[0], last[3].copy()
            for i in compress(range(len(exprs)), map(is_not, exprs, last[2])):
                made[i] = piece(names[keys[i]], exprs[i])
        self._last = (names, keys, exprs, made)
        return made.copy()


class OldText(AdText):
    """``write_old`` of a sequence of ads, each mostly the one before it."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(old_line)

    def write(self, ad: ClassAd) -> str:
        """The ad in the old syntax, as ``write_old`` gives it."""
        return "".join(self.pieces(ad))
