"""``arguments`` and ``environment``: condor_submit's old and new syntaxes.

New syntax (the whole value in double quotes, ``""`` for a literal ``"``): blanks separate
words, single quotes group blanks into a word, ``''`` inside them is a literal ``'``. It is
stored in canonical form (``Arguments``, ``Environment``): words joined by one blank, a
word holding blanks or ``'`` written in single quotes with ``'`` doubled. Old syntax is
stored as written (``Args``, and ``Env`` with ``;`` between entries), with ``\\"`` read as
``"`` in arguments, as the condor_submit manual describes.
"""

from __future__ import annotations

from ..errors import SubmitError

__all__ = ["arguments_attr", "environment_attr", "split_new_syntax"]


def arguments_attr(text: str, source: str, line: int) -> tuple[str, str]:
    """(attribute name, value) for ``arguments = text``."""
    if text.startswith('"'):
        return "Arguments", _canonical(_new_words(text, "arguments", source, line))
    return "Args", text.replace('\\"', '"')


def environment_attr(text: str, source: str, line: int) -> tuple[str, str]:
    """(attribute name, value) for ``environment = text``; every entry needs ``name=``."""
    if text.startswith('"'):
        entries = _new_words(text, "environment", source, line)
        name, value = "Environment", _canonical(entries)
    else:
        entries = [e for e in text.split(";") if e.strip()]
        name, value = "Env", text
    for entry in entries:
        if "=" not in entry or entry.startswith("="):
            raise SubmitError(f"environment entry {entry!r}: expected name=value", source, line)
    return name, value


def _new_words(text: str, command: str, source: str, line: int) -> list[str]:
    if len(text) < 2 or not text.endswith('"') or '"' in text[1:-1].replace('""', ""):
        raise SubmitError(
            f"{command} = {text}: expected the new syntax's closing '\"' "
            "(write a literal '\"' as '\"\"')",
            source,
            line,
        )
    return _words(text[1:-1].replace('""', '"'), command, source, line)


def split_new_syntax(value: str, attribute: str) -> list[str]:
    """The words of a stored ``Arguments`` or ``Environment`` value: the reverse of how
    condor_submit writes them, so the starter gives the job exactly the words submitted."""
    return _words(value, attribute, None, None)


def _words(body: str, command: str, source: str | None, line: int | None) -> list[str]:
    words: list[str] = []
    current: list[str] | None = None
    index = 0
    while index < len(body):
        char = body[index]
        if char in " \t":
            if current is not None:
                words.append("".join(current))
                current = None
            index += 1
            continue
        current = current if current is not None else []
        if char != "'":
            current.append(char)
            index += 1
            continue
        index = _quoted(body, index + 1, current, command, source, line)
    if current is not None:
        words.append("".join(current))
    return words


def _quoted(
    body: str, index: int, out: list[str], command: str, source: str | None, line: int | None
) -> int:
    """Read a single-quoted section starting after its ``'``; return the index after it."""
    while index < len(body):
        if body[index] == "'":
            if body.startswith("''", index):
                out.append("'")
                index += 2
                continue
            return index + 1
        out.append(body[index])
        index += 1
    raise SubmitError(f'{command}: a single quote is not closed: expected "\'"', source, line)


def _canonical(words: list[str]) -> str:
    return " ".join(_quote(w) for w in words)


def _quote(word: str) -> str:
    if word and not any(c in word for c in " \t'"):
        return word
    return "'" + word.replace("'", "''") + "'"
