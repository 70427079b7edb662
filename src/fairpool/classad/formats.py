"""Reading and writing ads in HTCondor's three text forms, large files as a stream.

* **old**: ``Name = expr`` lines as ``condor_status -l`` and ``condor_q -l`` print them,
  ads separated by blank lines. Lines starting with ``#`` are comments. A line that is not
  ``Name = expr`` is an error naming the file and line (HTCondor silently drops the rest
  of the ad there; docs/compat.md).
* **new**: ``[ Name = expr; ... ]``, one after another.
* **json**: HTCondor's JSON ad format, an array of objects (or one object); expressions that
  are not plain values are strings written ``"\\/Expr(<expr>)\\/"``.

``parse_ads`` accepts text or an open file and yields ads one by one; ``fmt="auto"`` looks
at the first character to choose.
"""

from __future__ import annotations

import io
import itertools
import json
import math
import re
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import IO, Any

from ..errors import ClassAdSyntaxError
from .ad import ClassAd, node_of
from .kept_pieces import KeptPieces
from .nodes import AdLit, ListLit, Literal, Node
from .parser import MAX_NESTING, parse_ad_literal, parse_expr, parse_old_value
from .unparse import quote_name, unparse
from .values import AbsTime, Error, RelTime, Undefined, from_text, to_text

__all__ = [
    "clear_cache",
    "old_line",
    "parse_ad",
    "parse_ads",
    "parse_old_line",
    "write_json",
    "write_new",
    "write_old",
]

_FORMATS = ("auto", "old", "new", "json")
_EXPR_PREFIX, _EXPR_SUFFIX = "/Expr(", ")/"


def parse_ads(
    source: str | IO[str] | Iterable[str], fmt: str = "auto", name: str | None = None
) -> Iterator[ClassAd]:
    """Yield the ads in ``source`` (text, a file, or lines); ``name`` labels errors."""
    if fmt not in _FORMATS:
        raise ValueError(f"unknown ad format {fmt!r}; expected one of {', '.join(_FORMATS)}")
    lines = _lines(source)
    if fmt == "auto":
        fmt, lines = _detect(lines)
    if fmt == "old":
        return _read_old(lines, name)
    if fmt == "new":
        return _read_new(lines, name)
    return _read_json(lines, name)


def parse_ad(source: str | IO[str], fmt: str = "auto", name: str | None = None) -> ClassAd:
    """Exactly one ad (an error if there is none or more than one)."""
    ads = list(parse_ads(source, fmt, name))
    if len(ads) != 1:
        label = name or "<text>"
        raise ClassAdSyntaxError(f"expected one ClassAd in {label} but found {len(ads)}")
    return ads[0]


def _lines(source: str | IO[str] | Iterable[str]) -> Iterator[str]:
    if isinstance(source, str):
        return iter(io.StringIO(source))
    return iter(source)


def _detect(lines: Iterator[str]) -> tuple[str, Iterator[str]]:
    """Choose the format from the first significant character; give back every line."""
    seen: list[str] = []
    fmt = "old"
    for line in lines:
        seen.append(line)
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if text.startswith("{"):
            fmt = "json"
        elif text.startswith("["):
            rest = text[1:].lstrip() or _peek_next(lines, seen)
            fmt = "json" if rest.startswith(("{", "]")) else "new"
        break
    return fmt, _chain(seen, lines)


def _peek_next(lines: Iterator[str], seen: list[str]) -> str:
    for line in lines:
        seen.append(line)
        if line.strip():
            return line.strip()
    return ""


def _chain(first: list[str], rest: Iterator[str]) -> Iterator[str]:
    yield from first
    yield from rest


# -- old syntax -----------------------------------------------------------------------
def _read_old(lines: Iterable[str], name: str | None) -> Iterator[ClassAd]:
    ad = ClassAd()
    for number, line in enumerate(lines, 1):
        text = line.rstrip("\r\n")
        stripped = text.strip()
        if not stripped:
            if len(ad):
                yield ad
                ad = ClassAd()
            continue
        if stripped.startswith("#"):
            continue
        attr, value = parse_old_line(text, number, name)
        ad.insert_node(attr, value)
    if len(ad):
        yield ad


def parse_old_line(text: str, number: int, source: str | None) -> tuple[str, Node]:
    """One ``Name = expression`` line of an old-syntax ad (``number`` counts from 1)."""
    eq = text.find("=")
    if eq <= 0 or not text[:eq].strip():
        raise ClassAdSyntaxError(
            "expected 'Name = expression'", text, len(text) - len(text.lstrip()), source, number - 1
        )
    attr = text[:eq].strip()
    value = text[eq + 1 :]
    start = eq + 1 + len(value) - len(value.lstrip())
    try:
        return attr, _old_value(value.strip())
    except ClassAdSyntaxError as err:
        raise ClassAdSyntaxError(
            err.message, text, start + err.offset, source, number - 1
        ) from None


_PLAIN_INT = re.compile(r"-?(?:[1-9]\d{0,17}|0)")
_PLAIN_STRING = re.compile(r'"[^"\\]*"')
_KEYWORDS = {"true": True, "false": False}


@lru_cache(maxsize=1 << 16)
def _old_value(text: str) -> Node:
    """The parsed value of an old-syntax line. Pools repeat the same expressions in
    thousands of ads, so identical text shares one tree (and one compiled closure); plain
    numbers and strings skip the parser."""
    if _PLAIN_INT.fullmatch(text):
        return Literal(int(text))
    if _PLAIN_STRING.fullmatch(text):
        return Literal(from_text(text[1:-1]))
    keyword = _KEYWORDS.get(text.lower())
    if keyword is not None:
        return Literal(keyword)
    return parse_old_value(text)


def clear_cache() -> None:
    """Forget shared parse results (benchmarks measure parsing from cold with it)."""
    _old_value.cache_clear()


def write_old(ad: ClassAd) -> str:
    """``Name = expr`` lines as condor_status -l prints them (strings as UTF-8 text).
    Each line is kept by its name and expression (kept_pieces.py): a starter writes each
    job's ad and its slot's ad into the job's sandbox, and most of their lines were
    written before, by the ads of the same cluster or of the same slot."""
    names = ad._names
    return "".join([old_line(names[key], expr) for key, expr in ad._exprs.items()])


# One attribute's line as ``write_old`` writes it (and keeps it).
old_line = KeptPieces(lambda name, expr: f"{name} = {_old_text(expr.node)}\n")

_KEPT = 100_000  # texts kept before they are all forgotten
_old_texts: dict[int, tuple[Node, str]] = {}  # id(node) -> (node, its old-syntax text)


def _old_text(node: Node) -> str:
    """A node in old syntax, each written once: the same expressions are written again
    and again (a starter writes each job's ad and its slot's ad into the job's sandbox).
    An integer is new more often than not (a time, a job's number) and is its digits."""
    if type(node) is Literal and type(node.value) is int and node.text is None:
        return str(node.value)
    found = _old_texts.get(id(node))
    if found is not None and found[0] is node:
        return found[1]
    text = to_text(unparse(node, old=True))
    if len(_old_texts) >= _KEPT:
        _old_texts.clear()
    _old_texts[id(node)] = (node, text)
    return text


# -- new syntax -----------------------------------------------------------------------
def _read_new(lines: Iterable[str], name: str | None) -> Iterator[ClassAd]:
    """Split the text into top-level ``[...]`` blocks and parse each one."""
    buffer: list[str] = []
    depth = 0
    quote = ""
    first_line = 1
    for number, line in enumerate(lines, 1):
        if not buffer and not line.strip():
            continue
        if not buffer:
            first_line = number
        buffer.append(line)
        depth, quote = _scan_brackets(line, depth, quote)
        if depth == 0 and not quote and "".join(buffer).strip():
            yield _new_block("".join(buffer), name, first_line)
            buffer = []
    if "".join(buffer).strip():
        yield _new_block("".join(buffer), name, first_line)


def _scan_brackets(line: str, depth: int, quote: str) -> tuple[int, str]:
    i = 0
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        i += 1
    return depth, quote


def _new_block(text: str, source: str | None, first_line: int) -> ClassAd:
    try:
        literal = parse_ad_literal(text, source)
    except ClassAdSyntaxError as err:
        raise ClassAdSyntaxError(err.message, text, err.offset, source, first_line - 1) from None
    ad = ClassAd()
    for attr, node in literal.attrs:
        ad.insert_node(attr, node)
    return ad


def write_new(ad: ClassAd) -> str:
    """The ad in new syntax, one attribute per line."""
    items = [f"  {quote_name(ad.spelling(k))} = {unparse(e.node)}" for k, e in ad._exprs.items()]
    return "[\n" + ";\n".join(items) + ("\n" if items else "") + "]\n"


# -- JSON -------------------------------------------------------------------------------
def _read_json(lines: Iterable[str], name: str | None) -> Iterator[ClassAd]:
    decoder = json.JSONDecoder()
    buffer = ""
    pending = iter(lines)
    exhausted = False
    more = 1  # lines to add when the buffer ends inside an ad: doubles, so reading is linear
    while True:
        buffer = buffer.lstrip(" \t\r\n,[]")
        if not buffer:
            if exhausted:
                return
            chunk = next(pending, None)
            exhausted = chunk is None
            buffer += chunk or ""
            continue
        try:
            obj, end = decoder.raw_decode(buffer)
        except json.JSONDecodeError as err:
            chunk = None if exhausted else "".join(itertools.islice(pending, more))
            if not chunk:
                raise ClassAdSyntaxError(
                    f"invalid JSON ad: {err.msg}", buffer, err.pos, name
                ) from None
            buffer += chunk
            more *= 2
            continue
        except RecursionError:
            raise ClassAdSyntaxError("the JSON nests too deeply", buffer, 0, name) from None
        buffer = buffer[end:]
        more = 1
        yield _json_ad(obj, name)


def _json_ad(obj: Any, source: str | None) -> ClassAd:
    if not isinstance(obj, dict):
        raise ClassAdSyntaxError(
            f"a JSON ad must be an object, not {type(obj).__name__}", source=source
        )
    ad = ClassAd()
    for attr, value in obj.items():
        ad.insert_node(attr, _json_node(value, source, 1))
    return ad


def _json_node(value: Any, source: str | None, depth: int) -> Node:
    if depth > MAX_NESTING:
        raise ClassAdSyntaxError(
            f"the JSON value nests more than {MAX_NESTING} levels deep", source=source
        )
    if isinstance(value, str) and value.startswith(_EXPR_PREFIX) and value.endswith(_EXPR_SUFFIX):
        return parse_expr(value[len(_EXPR_PREFIX) : -len(_EXPR_SUFFIX)], source)
    if isinstance(value, list):
        return ListLit(tuple(_json_node(v, source, depth + 1) for v in value))
    if isinstance(value, dict):
        return AdLit(tuple((k, _json_node(v, source, depth + 1)) for k, v in value.items()))
    return node_of(value)


def write_json(ads: ClassAd | Iterable[ClassAd]) -> str:
    """HTCondor's JSON form of one ad (an object) or of several (an array)."""
    if isinstance(ads, ClassAd):
        return _escape_expr_markers(json.dumps(_json_object(ads), indent=2, ensure_ascii=False))
    body = [_json_object(ad) for ad in ads]
    return _escape_expr_markers(json.dumps(body, indent=2, ensure_ascii=False))


def _json_object(ad: ClassAd) -> dict[str, Any]:
    return {ad.spelling(k): _json_value(e.node) for k, e in ad._exprs.items()}


def _json_value(node: Node) -> Any:
    if type(node) is Literal and node.text is None:
        value = node.value
        t = type(value)
        if t is bool or t is int:
            return value
        if t is float and math.isfinite(value):
            return value
        if t is str:
            return to_text(value)
        if t is Undefined:
            return None
        if t in (AbsTime, RelTime, Error, float):
            return f"{_EXPR_PREFIX}{unparse(node)}{_EXPR_SUFFIX}"
    if type(node) is ListLit:
        return [_json_value(item) for item in node.items]
    if type(node) is AdLit:
        return {attr: _json_value(expr) for attr, expr in node.attrs}
    return f"{_EXPR_PREFIX}{to_text(unparse(node))}{_EXPR_SUFFIX}"


def _escape_expr_markers(text: str) -> str:
    return text.replace('"/Expr(', '"\\/Expr(').replace(')/"', ')\\/"')
