"""An ad written in the old syntax again and again as it changes a little each time.

A startd's starter writes each job's ad and its slot's ad into the job's sandbox
(``.job.ad``, ``.machine.ad``). A slot's ad differs from the one written at its last job's
start in a few values (its state's times, the job's id), and a job's ad from the last
job's of its cluster in a few more; each of their ninety or thirty lines was looked up
again all the same. ``OldText`` keeps the last ad's lines and makes only those of the
expressions that changed, found by identity (expressions are immutable and shared), so
the text is always ``write_old``'s.
"""

from __future__ import annotations

from itertools import compress
from operator import is_not

from .ad import ClassAd, Expr
from .formats import old_line

__all__ = ["OldText"]


class OldText:
    """``write_old`` of a sequence of ads, each mostly the one before it."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        # the last ad's names (by key), keys, expressions and lines, in its order
        self._last: tuple[dict[str, str], list[str], list[Expr], list[str]] | None = None

    def write(self, ad: ClassAd) -> str:
        """The ad in the old syntax, as ``write_old`` gives it."""
        keys, exprs = list(ad._exprs), list(ad._exprs.values())
        last = self._last  # one read: another thread's write only replaces it
        if last is None or last[1] != keys or last[0] != ad._names:
            names = dict(ad._names)
            lines = [old_line(names[key], expr) for key, expr in zip(keys, exprs, strict=True)]
            self._last = (names, keys, exprs, lines)
            return "".join(lines)
        names, lines = last[0], last[3].copy()
        for i in compress(range(len(exprs)), map(is_not, exprs, last[2])):
            lines[i] = old_line(names[keys[i]], exprs[i])
        self._last = (names, keys, exprs, lines)
        return "".join(lines)
