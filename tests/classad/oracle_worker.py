"""The classad2 side of the differential tests: a worker process speaking JSON lines.

Started by oracle.py with ``CONDOR_CONFIG=/dev/null``, ``TZ=UTC``, ``LC_ALL=C`` and no
``_CONDOR_*`` variables. It imports ``classad2`` *and* ``htcondor2`` up front, so the library
is in htcondor mode (old-ClassAd compatibility, HTCondor's extra functions) for good, and
fairpool's process never loads either (spec/classad.md §3).

One request per line, one answer per line::

    {"kind": "value", "expr": "...", "my": "[...]" | null, "target": "[...]" | null}
      -> {"value": "<canonical text>"} | {"value": "PARSE_ERROR"} | {"skip": "<why>"}
         | {"bad_ad": "my" | "target"}
    {"kind": "match", "my": "[...]", "target": "[...]"}
      -> {"match": bool, "my_requirements": "...", "target_requirements": "..."}

Values are printed with the canonical rules of spec §4 the way the corpus's reference did,
without turning a ClassAd value into a Python object (but see _names): the type comes from
an ``isX()`` test, strings and absolute times are printed by the C++ unparser
(``simplify()``), reals and relative times go through Python floats (shortest round trip),
and list elements and ad attributes are printed one by one as ``(E)[i]`` and ``(E).name``.
"""

from __future__ import annotations

import json
import math
import sys

import classad2
import htcondor2  # noqa: F401  (imported for its side effect: htcondor mode)
from classad2 import ClassAd

MAX_NESTING = 6  # spec §4: deeper values cannot be printed canonically
_TYPES = (
    "isUndefined",
    "isError",
    "isBoolean",
    "isInteger",
    "isReal",
    "isString",
    "isList",
    "isClassAd",
    "isAbsTime",
    "isRelTime",
)
_RESERVED = {"true", "false", "undefined", "error", "is", "isnt"}
_IDENT_START = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_IDENT = _IDENT_START | set("0123456789")


class Skip(Exception):
    """The value cannot be compared (too deep, or classad2 refused to evaluate it)."""


def parse_expr(text: str):
    """The expression, or None when ``text`` is not exactly one expression.

    classad2's ``ExprTree(text)`` parses ``"[expression = " + text + "]"``, which lets
    ``1; b = 2`` and ``1] junk`` through; the parenthesised form rejects those, and the
    plain form rejects ``1) + (2``. The newline keeps a trailing ``//`` comment harmless.
    """
    try:
        ClassAd("[e = (\n" + text + "\n)]")
        return ClassAd("[e = " + text + "\n]").lookup("e")
    except Exception:
        return None


class Context:
    """An evaluation context: no scope, a MY ad, or a match of MY and TARGET."""

    def __init__(self, my: ClassAd | None, target: ClassAd | None) -> None:
        self.args = [ad for ad in (my, target) if ad is not None]

    def tree(self, text: str):
        tree = parse_expr(text)
        if tree is None:
            raise Skip(f"derived expression does not parse: {text!r}")
        return tree

    def eval(self, text: str):
        try:
            return self.tree(text).eval(*self.args)
        except classad2.ClassAdException as err:
            raise Skip(f"classad2 raised: {err}") from err

    def unparsed(self, text: str) -> str:
        try:
            return str(self.tree(text).simplify(*self.args))
        except classad2.ClassAdException as err:
            raise Skip(f"classad2 raised: {err}") from err


def quote_name(name: str) -> str:
    plain = name and name[0] in _IDENT_START and all(c in _IDENT for c in name)
    if plain and name.lower() not in _RESERVED:
        return name
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'"


def canonical_real(value: float) -> str:
    if math.isnan(value):
        return 'real("NaN")'
    if math.isinf(value):
        return 'real("INF")' if value > 0 else 'real("-INF")'
    return repr(value)


def canonical(ctx: Context, text: str, depth: int = 0) -> str:
    """The canonical text of the value of expression ``text`` (already parenthesised)."""
    test = " : ".join(f"{fn}({text}) ? {i}" for i, fn in enumerate(_TYPES)) + " : -1"
    kind = ctx.eval(test)
    if kind in (0, 1):
        return ("undefined", "error")[kind]
    if kind == 2:
        return "true" if ctx.eval(text) is True else "false"
    if kind == 3:
        return str(int(ctx.eval(text)))
    if kind == 4:
        return canonical_real(float(ctx.eval(text)))
    if kind in (5, 8):
        return ctx.unparsed(text)
    if kind == 9:
        return f"relTime({canonical_real(float(ctx.eval(text)))})"
    if depth >= MAX_NESTING:
        raise Skip("value nests too deeply to print")
    if kind == 6:
        size = ctx.eval(f"size({text})")
        items = [canonical(ctx, f"({text}[{i}])", depth + 1) for i in range(size)]
        return "{" + ", ".join(items) + "}"
    if kind == 7:
        return _ad(ctx, text, depth)
    raise Skip(f"value of unknown type: {kind!r}")


def _names(ctx: Context, text: str) -> list[str]:
    """The attribute names of an ad value, read back from the C++ unparser's text. That
    printer leaves names after a ``.`` unquoted (``SELF.a b``); only then is the ad turned
    into a Python ClassAd, harmless here since this process is in htcondor mode already."""
    try:
        return list(ClassAd(ctx.unparsed(text)).keys())
    except classad2.ClassAdException:
        ad = ctx.eval(text)
        if not isinstance(ad, ClassAd):
            raise Skip(f"ad value came back as {type(ad).__name__}") from None
        return list(ad.keys())


def _ad(ctx: Context, text: str, depth: int) -> str:
    """Attributes sorted by lower-cased name, each printed as ``(E).name``."""
    names = _names(ctx, text)
    names.sort(key=lambda n: (n.lower(), n))
    items = [
        f"{quote_name(n)} = {canonical(ctx, f'({text}.{quote_name(n)})', depth + 1)}" for n in names
    ]
    return "[" + "; ".join(items) + "]"


def _ads(request: dict) -> tuple[ClassAd | None, ClassAd | None] | dict:
    ads = []
    for role in ("my", "target"):
        text = request.get(role)
        if text is None:
            ads.append(None)
            continue
        try:
            ads.append(ClassAd(text))
        except Exception:
            return {"bad_ad": role}
    return ads[0], ads[1]


def _requirements(ad: ClassAd, other: ClassAd) -> tuple[bool, str]:
    ctx = Context(ad, other)
    value = canonical(ctx, "(MY.Requirements)")
    met = value == "true" or (value not in ("false", "undefined", "error") and _nonzero(value))
    return met, value


def _nonzero(text: str) -> bool:
    """A canonical number other than zero (NaN counts); anything else is not."""
    if text.startswith('real("'):
        return True
    try:
        return float(text) != 0
    except ValueError:
        return False


def answer(request: dict) -> dict:
    ads = _ads(request)
    if isinstance(ads, dict):
        return ads
    my, target = ads
    if request["kind"] == "match":
        left, my_req = _requirements(my, target)
        right, target_req = _requirements(target, my)
        real = my.symmetricMatch(target)
        if real != (left and right):
            return {"skip": f"symmetricMatch() says {real}, the requirements say otherwise"}
        return {"match": real, "my_requirements": my_req, "target_requirements": target_req}
    if parse_expr(request["expr"]) is None:
        return {"value": "PARSE_ERROR"}
    return {"value": canonical(Context(my, target), "(\n" + request["expr"] + "\n)")}


def main() -> None:
    for line in sys.stdin:
        try:
            reply = answer(json.loads(line))
        except Skip as why:
            reply = {"skip": str(why)}
        except Exception as err:  # report, do not die: one bad input must not end the run
            reply = {"skip": f"worker error {type(err).__name__}: {err}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
