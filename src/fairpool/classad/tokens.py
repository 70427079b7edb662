"""ClassAd lexer: text to a list of tokens.

HTCondor evaluates ClassAds with old-ClassAd compatibility on, and so do we: integer
literals with a leading zero (``010``, ``0x10``) are errors, an integer that does not fit
in 64 bits is 0, and ``..`` is read as ``.``. Strings become byte strings (see values.py);
unknown escapes drop the backslash and a NUL byte is an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, NamedTuple

from ..errors import ClassAdSyntaxError
from .values import ERROR, UNDEFINED

__all__ = ["Token", "scan", "tokenize"]

# Token kinds: "int", "real", "str", "name" (identifiers and 'quoted names'), "lit"
# (true/false/undefined/error), "op" (operators, punctuation and is/isnt), "eof".


class Token(NamedTuple):
    kind: str
    text: str
    pos: int
    value: Any = None
    end: int = 0


_KEYWORD_LITERALS = {"true": True, "false": False, "undefined": UNDEFINED, "error": ERROR}
_KEYWORD_OPS = {"is", "isnt"}
RESERVED = frozenset(_KEYWORD_LITERALS) | _KEYWORD_OPS

# Longest first, so that ">>>" wins over ">>" and ">".
_OPERATORS = (
    ">>>",
    "=?=",
    "=!=",
    "&&",
    "||",
    "==",
    "!=",
    "<=",
    ">=",
    "<<",
    ">>",
    "..",
    "+",
    "-",
    "*",
    "/",
    "%",
    "<",
    ">",
    "!",
    "~",
    "&",
    "|",
    "^",
    "?",
    ":",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ";",
    ".",
    "=",
)
# first character -> the operators starting with it, longest first
_BY_FIRST: dict[str, tuple[str, ...]] = {}
for _op in _OPERATORS:
    _BY_FIRST[_op[0]] = (*_BY_FIRST.get(_op[0], ()), _op)
# The common tokens in one match (blanks and comments before them skipped): names, plain
# integers and operators. Anything else (strings, reals, errors, the end) goes the long way.
_COMMON = re.compile(
    r"(?:[ \t\n\r\f\v]+|//[^\n]*|/\*.*?\*/)*"
    r"(?:(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<int>(?:0|[1-9][0-9]*)(?![0-9.eExX]))"
    r"|(?P<op>>>>|=\?=|=!=|&&|\|\||==|!=|<=|>=|<<|>>|\.\.|\.(?![0-9])|/(?![*/])"
    r"|[-+*%<>!~&|^?:()\[\]{},;=]))?",
    re.S,
)
_WHITESPACE = " \t\n\r\f\v"
_IDENT_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_IDENT_CHARS = _IDENT_START | frozenset("0123456789")
_DIGITS = frozenset("0123456789")
_SIMPLE_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "\\": "\\",
    '"': '"',
    "'": "'",
    "?": "?",
}
_INT_MAX = (1 << 63) - 1


def tokenize(text: str, source: str | None = None, old_strings: bool = False) -> list[Token]:
    """Split ClassAd text into tokens; raise ClassAdSyntaxError on bad input.

    ``old_strings``: old ClassAd syntax, where a backslash in a string is an ordinary
    character except before a double quote.
    """
    return list(scan(text, source, old_strings))


def scan(text: str, source: str | None = None, old_strings: bool = False) -> Iterator[Token]:
    """The tokens of ``text`` one at a time, ending with an ``eof`` token: a parser that
    stops early (an error, nesting too deep) never reads the rest, and a long text is never
    held as a list of tokens."""
    return _Lexer(text, source, old_strings).run()


class _Lexer:
    def __init__(self, text: str, source: str | None, old_strings: bool) -> None:
        self.text = text
        self.source = source
        self.pos = 0
        self.old_strings = old_strings

    def fail(self, message: str, pos: int | None = None) -> ClassAdSyntaxError:
        return ClassAdSyntaxError(message, self.text, self.pos if pos is None else pos, self.source)

    def run(self) -> Iterator[Token]:
        text, n = self.text, len(self.text)
        common = _COMMON.match
        while True:
            m = common(text, self.pos)
            kind = m.lastgroup
            if kind is not None:
                start, end = m.start(kind), m.end()
                word = m.group(kind)
                self.pos = end
                if kind == "name":
                    yield _word(word, start, end)
                elif kind == "op":
                    yield Token("op", word, start, None, end)
                else:
                    yield Token("int", word, start, int_literal(word), end)
                continue
            self.pos = m.end()
            self.skip_blank()
            if self.pos >= n:
                yield Token("eof", "", n, None, n)
                return
            c = text[self.pos]
            if c in _DIGITS or (c == "." and self.pos + 1 < n and text[self.pos + 1] in _DIGITS):
                yield self.number()
            elif c in _IDENT_START:
                yield self.identifier()
            elif c == '"':
                yield self.string('"', "str")
            elif c == "'":
                yield self.string("'", "name")
            else:
                yield self.operator()

    def skip_blank(self) -> None:
        text, n = self.text, len(self.text)
        while self.pos < n:
            c = text[self.pos]
            if c in _WHITESPACE:
                self.pos += 1
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self.pos = n if end < 0 else end + 1
            elif text.startswith("/*", self.pos):
                end = text.find("*/", self.pos + 2)
                if end < 0:
                    raise self.fail("unterminated comment")
                self.pos = end + 2
            else:
                return

    def operator(self) -> Token:
        start = self.pos
        for op in _BY_FIRST.get(self.text[start], ()):
            if self.text.startswith(op, start):
                self.pos += len(op)
                return Token("op", op, start, None, self.pos)
        raise self.fail(f"unexpected character {self.text[start]!r}")

    def identifier(self) -> Token:
        text, start = self.text, self.pos
        end = start + 1
        while end < len(text) and text[end] in _IDENT_CHARS:
            end += 1
        self.pos = end
        return _word(text[start:end], start, end)

    def number(self) -> Token:
        text, start, n = self.text, self.pos, len(self.text)
        end = start
        while end < n and text[end] in _DIGITS:
            end += 1
        is_real = False
        if end < n and text[end] == ".":
            if end + 1 >= n or text[end + 1] not in _DIGITS:
                raise self.fail("expected a digit after the decimal point", end + 1)
            is_real = True
            end += 1
            while end < n and text[end] in _DIGITS:
                end += 1
        if end < n and text[end] in "eE":
            end = self._exponent(end)
            is_real = True
        self.pos = end
        literal = text[start:end]
        if is_real:
            return Token("real", literal, start, float(literal), end)
        if len(literal) > 1 and literal[0] == "0":
            raise self.fail("integer literals may not start with 0", start)
        if end < n and text[end] in "xX" and literal == "0":
            raise self.fail("hexadecimal literals are not ClassAd syntax", start)
        return Token("int", literal, start, int_literal(literal), end)

    def _exponent(self, end: int) -> int:
        text, n = self.text, len(self.text)
        end += 1
        if end < n and text[end] in "+-":
            end += 1
        if end >= n or text[end] not in _DIGITS:
            raise self.fail("expected digits in the exponent", end)
        while end < n and text[end] in _DIGITS:
            end += 1
        return end

    def string(self, quote: str, kind: str) -> Token:
        """A string (or quoted name). In new syntax literals separated only by blanks are
        one literal, joined *before* escapes are decoded (``"\\1" "0"`` is ``"\\10"``);
        a comment between them keeps them apart (and the parser rejects that)."""
        if self.old_strings:
            return self._old_string(quote, kind)
        text, start = self.text, self.pos
        end = self._closing(start, quote, kind)
        body = [text[start + 1 : end]]
        following = self._adjacent(end + 1, quote)
        while following is not None:
            end = self._closing(following, quote, kind)
            body.append(text[following + 1 : end])
            following = self._adjacent(end + 1, quote)
        raw = "".join(body)
        out: list[str] = []
        i = 0
        while i < len(raw):
            if raw[i] == "\\":
                i = self._escape(raw, i + 1, out, start)
            else:
                out.append(raw[i])
                i += 1
        self.pos = end + 1
        return Token(kind, text[start : end + 1], start, _bytes_of("".join(out)), end + 1)

    def _closing(self, opening: int, quote: str, kind: str) -> int:
        """The index of the quote closing the literal opened at ``opening``."""
        text, i = self.text, opening + 1
        while i < len(text):
            c = text[i]
            if c == quote:
                return i
            i += 2 if c == "\\" else 1
        raise self.fail("unterminated string" if kind == "str" else "unterminated name", opening)

    def _adjacent(self, i: int, quote: str) -> int | None:
        """Where another literal opens after blanks only (None if none does)."""
        text = self.text
        while i < len(text) and text[i] in _WHITESPACE:
            i += 1
        return i if i < len(text) and text[i] == quote else None

    def _old_string(self, quote: str, kind: str) -> Token:
        """Old syntax: a backslash is itself, except before a quote."""
        text, start = self.text, self.pos
        out: list[str] = []
        i = start + 1
        n = len(text)
        while True:
            if i >= n:
                raise self.fail(
                    "unterminated string" if kind == "str" else "unterminated name", start
                )
            c = text[i]
            if c == quote:
                break
            if c != "\\":
                out.append(c)
                i += 1
            else:
                # Backslash-quote is a quote, except as the text's last quote
                # (so "ends with backslash\\" keeps its backslash, as HTCondor reads it).
                escaped_quote = text.startswith(quote, i + 1) and bool(text[i + 2 :].strip())
                out.append(quote if escaped_quote else c)
                i += 2 if escaped_quote else 1
        self.pos = i + 1
        return Token(kind, text[start : i + 1], start, _bytes_of("".join(out)), i + 1)

    def _escape(self, body: str, i: int, out: list[str], pos: int) -> int:
        """Decode the escape after a backslash at i-1 of ``body``; return the index after it."""
        c = body[i]
        if c in "01234567":
            limit = 3 if c in "0123" else 2
            j = i
            while j < len(body) and j - i < limit and body[j] in "01234567":
                j += 1
            code = int(body[i:j], 8)
            if code == 0:
                raise self.fail("a string may not contain a NUL byte", pos)
            # A byte, not a character: mark it so the UTF-8 step keeps it as one byte.
            out.append(chr(0xDC00 + code) if code >= 0x80 else chr(code))
            return j
        out.append(_SIMPLE_ESCAPES.get(c, c))
        return i + 1


def _word(word: str, start: int, end: int) -> Token:
    """An identifier: a keyword literal, ``is``/``isnt``, or a name."""
    lower = word.lower()
    if lower in _KEYWORD_LITERALS:
        return Token("lit", word, start, _KEYWORD_LITERALS[lower], end)
    if lower in _KEYWORD_OPS:
        return Token("op", lower, start, None, end)
    return Token("name", word, start, word, end)


def _bytes_of(text: str) -> str:
    """Decoded literal text to a ClassAd byte string (UTF-8 bytes, one per character)."""
    return text if text.isascii() else text.encode("utf-8", "surrogateescape").decode("latin-1")


def int_literal(text: str) -> int:
    """The value of an integer literal's text; 0 when it does not fit in 64 bits (strtoll).

    More than 19 digits never fit (literals have no leading zeros), and are not converted:
    Python refuses to convert more than 4,300."""
    if len(text.lstrip("+-")) > 19:
        return 0
    value = int(text)
    if value > _INT_MAX or value < -_INT_MAX - 1:
        return 0
    return value
