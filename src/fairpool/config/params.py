"""The parameter table: every knob fairpool names, with its type, default and meaning.

Defaults are the seeds' where they give one, spec/README.md's where the seeds and
HTCondor disagree (``NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION`` is False here), and
HTCondor's documented defaults otherwise; they agree with the values coded in
``negotiator/params.py``, ``accounting/accountant.py`` and ``startd/knobs.py`` (SEED
profile), which tests/config/test_params.py checks. A default of None means the knob is
unset unless a file sets it. Defaults are configuration text, expanded like any knob
(``GROUP_QUOTA_MAX_ALLOCATION_ROUNDS`` falls back to ``HFS_MAX_ALLOCATION_ROUNDS`` that
way). Knobs that are not in the table are kept and readable as text.

Types: ``bool``, ``int``, ``float`` (numbers and booleans are read as ClassAd
expressions, as HTCondor reads them), ``expr`` (a ClassAd expression), ``string``,
``list`` (names separated by commas or blanks), ``path``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .param_rows import ROWS

__all__ = ["PARAMS", "Param", "lookup_param"]


@dataclass(frozen=True)
class Param:
    """One knob of the table. ``default`` is configuration text, or None (unset)."""

    name: str
    type: str
    default: str | None
    doc: str


PARAMS: dict[str, Param] = {row[0].upper(): Param(*row) for row in ROWS}


def lookup_param(name: str) -> Param | None:
    """The table's entry for ``name`` (any case), or None for a knob it does not list."""
    return PARAMS.get(name.upper())
