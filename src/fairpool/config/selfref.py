"""A knob that refers to itself takes its previous text at the line that sets it.

``PATH = $(PATH):/more`` extends the previous value; ``$(NAME:default)`` gives ``default``
when there was none. Other references are left for expansion when the knob is read.
"""

from __future__ import annotations

__all__ = ["replace_self"]


def replace_self(value: str, name: str, previous: str) -> str:
    """``value`` with every ``$(name)`` / ``$(name:default)`` replaced (case-insensitive)."""
    key, out, i = name.upper(), [], 0
    while True:
        at = value.find("$(", i)
        if at < 0:
            out.append(value[i:])
            return "".join(out)
        end = _closing(value, at + 1)
        body = value[at + 2 : end] if end is not None else ""
        ref, colon, default = body.partition(":")
        if end is None or ref.upper() != key or (at > 0 and value[at - 1] == "$"):
            out.append(value[i : at + 2])
            i = at + 2
            continue
        out.append(value[i:at])
        out.append(previous if previous or not colon else default)
        i = end + 1


def _closing(text: str, open_at: int) -> int | None:
    depth = 0
    for j in range(open_at, len(text)):
        depth += (text[j] == "(") - (text[j] == ")")
        if depth == 0:
            return j
    return None
