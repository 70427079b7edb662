"""Hypothesis strategies for ClassAd expression text and ads.

Expressions are generated as text together with two facts about what they may evaluate
to (``Gen``): a bound on the size of any number involved and whether a time value may
come out. Those facts let the *oracle-safe* grammar stay inside what HTCondor's library
defines (spec/classad.md §9); the unrestricted grammar, used where fairpool is only
compared with itself, drops every restriction below.

Left out of the oracle-safe grammar, and why:

* Shift operands other than literals: a count outside 0..63, ``<<`` of a negative number
  and ``>>>`` of a negative number by 0 are undefined behaviour in C++. Shifts take a
  literal on each side, counts in 0..63, and ``<<``/``>>>`` a non-negative left side.
* Conversions of out-of-range doubles to integers (``int(1e30)``, ``floor(real("INF"))``,
  ``pow(2, 64)``, ``absTime(1e300)``, an absolute time plus a huge relative time, a huge
  relative time printed by ``string()``): undefined in C++ (x86-64 happens to give
  INT64_MIN). Arguments of the converting functions (``SINKS``) are literals whose size is
  known; ``+``/``-`` with a possible time on either side need both sides bounded; a time
  value of unknown size is never passed to any function. To make that decidable, time values
  are never written inside ad literals or generated ads (a reference never yields a time).
* ``time()``, ``random()``, ``dayTime()``, ``CurrentTime``, ``absTime()`` and ``formatTime()``
  of "now": their values change between the two processes.
* ``.name`` with no scope at all: classad2 raises "failed to evaluate" instead of giving a
  value (spec §2), so absolute references are only generated inside an ad.
* Values nesting deeper than six levels cannot be printed canonically (spec §4): literals
  nest at most three deep here, and the oracle skips the rare value that still goes deeper
  through references (``MY`` inside its own ad).
* ``evalInEachContext(E, ...)`` where E yields a list or an ad: classad2 returns the list
  emptied (``{{}}`` for ``evalInEachContext({1}, {[a = 1]})``) and crashes on an ad, the
  signs of a result that outlives its storage; E is a literal or an operator expression.
  In ``cross_scope_cases`` E may also be a name the calling ad defines (HTCondor looks it
  up there first, fairpool too); a name found nowhere, in a match, gives classad2 results
  that depend on where the contexts are stored (``evalInEachContext(z, l)`` with
  ``l = {[z = 4]}`` is undefined, written in place it is ``{4}``), and ``TARGET.x`` as E
  gives undefined or a value of no type: not generated, not modelled.
* The crash of spec §7.10 (``[b = {[c = 2]}]["b"][0]``): the oracle survives it (the
  worker is restarted and the input skipped), so nothing is excluded for it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache

from hypothesis import strategies as st

from fairpool.classad.builtins import FUNCTIONS

__all__ = [
    "FUZZ_TEXT",
    "NAMES",
    "SAFE",
    "UNRESTRICTED",
    "Gen",
    "Grammar",
    "ads",
    "cross_scope_cases",
    "expressions",
    "match_ads",
]

INT_BOUND = 15  # numbers converted to integers stay below 10**15
TIME_BOUND = 9  # times stay below 10**9 seconds: the library converts them to C ints
# Binding powers beyond the binary operators' (see BINARY_POWER).
ATOM, POSTFIX, ELVIS, UNARY, CONDITIONAL = 15, 14, 13, 12, 1


@dataclass(frozen=True)
class Gen:
    """Generated expression text. ``mag``: every number it may produce (or convert from a
    string) is below ``10**mag``; None when it may be huge or not finite. ``time``: it may
    yield (or contain) an absolute or relative time. ``prec``: how tightly its outermost
    operator binds (the parser's binding powers; ATOM for atoms), so that operands are
    parenthesised exactly where the parser would otherwise regroup them."""

    text: str
    mag: int | None = 0
    time: bool = False
    prec: int = ATOM


@dataclass(frozen=True)
class Grammar:
    """What may be generated. ``safe``: only behaviour classad2 defines (module docstring).
    ``scoped``: evaluated inside an ad, so ``.name`` resolves. ``times``: time values.
    ``malformed``: now and then a literal that does not parse (never inside an ad, where
    it would make the whole ad unreadable). ``rootless``: inside an ad literal of an
    expression evaluated with no scope at all, where a root-relative reference (``.x``,
    ``ROOT``, ``TOPLEVEL``) has no root: classad2 crashes on some and fails others'
    evaluations whole (``{(ROOT.x)}`` is error, ``{ROOT.x}`` undefined), so spec §2
    leaves them out of the comparison."""

    safe: bool = True
    scoped: bool = True
    times: bool = True
    malformed: bool = True
    rootless: bool = False

    def inside_ad(self) -> Grammar:
        rootless = self.rootless or not self.scoped
        return Grammar(self.safe, True, self.times and not self.safe, False, rootless)


SAFE = Grammar()
UNRESTRICTED = Grammar(safe=False)


def _bounded(g: Gen, bound: int = INT_BOUND) -> bool:
    return g.mag is not None and g.mag <= bound


def _join_mag(*gens: Gen) -> int | None:
    mags = [g.mag for g in gens]
    return None if None in mags else max(mags, default=0)


def _grow(mag: int | None, by: int | None) -> int | None:
    if mag is None or by is None or mag + by > 300:
        return None
    return mag + by


def _digits(value: float) -> int:
    if math.isinf(value) or math.isnan(value):
        return 400
    return 0 if value == 0 else max(0, math.floor(math.log10(abs(value))) + 1)


def _operand(g: Gen, min_prec: int) -> str:
    """The text of ``g`` as an operand that must bind at least ``min_prec``."""
    return g.text if g.prec >= min_prec else f"({g.text})"


# -- names ----------------------------------------------------------------------------
NAMES = ("a", "b", "c", "x", "y", "Memory", "Cpus", "Name", "Requirements", "Rank", "n")
_QUOTED_NAMES = ("'a b'", "'true'", "'x.y'")
_SCOPES = ("MY", "TARGET", "OTHER", "SELF", "PARENT", "ROOT", "TOPLEVEL")


def _case_variants(word: str) -> st.SearchStrategy[str]:
    return st.sampled_from((word, word.lower(), word.upper(), word.capitalize()))


names = st.sampled_from(NAMES).flatmap(_case_variants)
ad_names = st.one_of(names, st.sampled_from(_QUOTED_NAMES))


# -- literals -------------------------------------------------------------------------
_INT_EDGES = (0, 1, -1, 2, 7, 63, 64, 2**31, -(2**31), 2**62, 2**63 - 1, -(2**63))


def _number(text: str, mag: int | None) -> Gen:
    """A numeric literal; a leading minus makes it bind like a unary operator."""
    return Gen(text, mag, prec=UNARY if text.startswith("-") else ATOM)


def _int(value: int) -> Gen:
    return _number(str(value), _digits(value))


ints = st.one_of(
    st.integers(-1000, 1000).map(_int),
    st.sampled_from(_INT_EDGES).map(_int),
    st.integers(-(2**63), 2**63 - 1).map(_int),
    # out of 64-bit range: the literal is 0
    st.sampled_from(("9223372036854775808", "-9223372036854775809")).map(lambda t: _number(t, 19)),
)
_MALFORMED = ("010", "0x10", "00", "1.", "1e", '"\\0"', 'absTime("garbage")', 'relTime("x")')
malformed = st.sampled_from(_MALFORMED).map(lambda t: Gen(t, 19))

_REAL_TEXTS = ("0.0", "-0.0", ".5", "1E5", "1e+2", "2.5", "-2.5", "0.1", "1e-05", "5e-324")
_HUGE_REALS = ("1e400", "1e308", "-1e308")
_SPECIAL_REALS = ('real("NaN")', 'real("INF")', 'real("-INF")')


def _real(value: float) -> Gen:
    return _number(repr(value), _digits(value))


reals = st.one_of(
    st.sampled_from(_REAL_TEXTS).map(lambda t: _number(t, _digits(float(t)))),
    st.floats(-1e6, 1e6, allow_nan=False).map(_real),
    st.floats(allow_nan=False, allow_infinity=False).map(_real),
    st.sampled_from(_HUGE_REALS).map(lambda t: _number(t, None)),
    st.sampled_from(_SPECIAL_REALS).map(lambda t: Gen(t, None)),
)

_ESCAPES = ("\\n", "\\t", "\\\\", '\\"', "\\'", "\\?", "\\a", "\\b", "\\f", "\\v", "\\r")
_OCTALS = ("\\101", "\\44", "\\1", "\\177", "\\200", "\\377", "\\342\\200\\223", "\\7")
_ODD_PIECES = ("\\x41", "\\u00e9", "ü", "ï", "–", "€", "😀", "\t")
_NUMERIC_STRINGS = ("12", "-3", " 42", "0x1A", "1e3", "3.5abc", "abc", "", "7 ", "+8", "-0")
_STRING_WORDS = ("a", "A", "abc", "ABC", "b,c", "x y", "_", "Z", "1.0", "true", "@", "a@b")
_WHITE_ESCAPES = {"\\t": "\t", "\\n": "\n", "\\v": "\v", "\\f": "\f", "\\r": "\r"}
_STRTOD = re.compile(
    r"[ \t\n\v\f\r]*([+-]?(?:0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*(?:[pP][+-]?[0-9]+)?"
    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|nan))",
    re.IGNORECASE,
)


def _string_mag(body: str) -> int | None:
    """How large a number strtod reads from the start of the string (None: inf/nan)."""
    for escape, char in _WHITE_ESCAPES.items():
        body = body.replace(escape, char)
    m = _STRTOD.match(body)
    if m is None:
        return 0
    literal = m.group(1).lower().lstrip("+-")
    try:
        value = float.fromhex(literal) if literal.startswith("0x") else float(literal)
    except ValueError:
        return 0
    mag = _digits(value)
    return None if mag > 300 else mag


string_bodies = st.lists(
    st.one_of(
        st.text(st.characters(min_codepoint=32, max_codepoint=126, exclude_characters='"\\')),
        st.sampled_from(_ESCAPES + _OCTALS + _STRING_WORDS + _NUMERIC_STRINGS),
        st.sampled_from(_ODD_PIECES),
    ),
    max_size=4,
).map("".join)


def _string(body: str) -> Gen:
    return Gen(f'"{body}"', _string_mag(body))


strings = st.one_of(
    st.sampled_from(_NUMERIC_STRINGS + _STRING_WORDS).map(_string),
    string_bodies.map(_string),
    st.tuples(string_bodies, string_bodies).map(
        lambda p: Gen(f'"{p[0]}" "{p[1]}"', _string_mag(p[0] + p[1]))
    ),
)
keywords = st.sampled_from(("true", "false", "undefined", "error")).flatmap(_case_variants)

_ABSTIME_TEXTS = (
    "2004-01-01T10:20:30+05:30",
    "2004-01-01",
    "2004-02-30",
    "2004",
    "20040101T102030Z",
    "2004-01-01 10:20",
    "1970-01-01T00:00:00Z",
    "2038-01-19T03:14:08-08:00",
)
_RELTIME_TEXTS = ("1:00", "-1:00", "1+02:03:04.5", "1d2h3m4.5s", "5", "90", "1:2:3", "00:00:01")


def _time_call(name: str, *args: Gen) -> Gen:
    return Gen(f"{name}({', '.join(a.text for a in args)})", _join_mag(*args), True)


def _time_literals() -> st.SearchStrategy[Gen]:
    secs = st.integers(-(10**9), 4 * 10**9).map(_int)
    zones = st.integers(-50400, 50400).map(_int)
    spans = st.one_of(st.integers(-(10**7), 10**7).map(_int), st.floats(-1e7, 1e7).map(_real))
    return st.one_of(
        st.sampled_from(_ABSTIME_TEXTS).map(lambda t: Gen(f'absTime("{t}")', TIME_BOUND, True)),
        st.sampled_from(_RELTIME_TEXTS).map(lambda t: Gen(f'relTime("{t}")', 6)),
        secs.map(lambda g: _time_call("absTime", g)),
        st.tuples(secs, zones).map(lambda p: _time_call("absTime", *p)),
        spans.map(lambda g: _time_call("relTime", g)),
    )


def literals(grammar: Grammar) -> st.SearchStrategy[Gen]:
    """Scalar literals of every type (times only when the grammar has them)."""
    parts = [ints, reals, strings, keywords.map(Gen)]
    if grammar.times:
        parts.append(_time_literals())
    if grammar.malformed:
        parts.append(malformed)
    return st.one_of(*parts)


def bounded_literals(grammar: Grammar, bound: int) -> st.SearchStrategy[Gen]:
    """Literals whose numbers stay below ``10**bound`` (the safe arguments of conversions)."""
    if not grammar.safe:
        return literals(grammar)
    limit = 10**bound - 1
    numbers = st.one_of(
        st.integers(-limit, limit).map(_int),
        st.floats(-limit, limit, allow_nan=False).map(_real),
        st.sampled_from(_REAL_TEXTS).map(lambda t: _number(t, _digits(float(t)))),
    )
    parts = [numbers, strings, keywords.map(Gen)]
    if grammar.times:
        parts.append(_time_literals())
    return st.one_of(*parts).filter(lambda g: _bounded(g, bound))


# -- references -----------------------------------------------------------------------
def references(grammar: Grammar) -> st.SearchStrategy[Gen]:
    """Attribute references: unscoped, scoped, nested, absolute, and the scope names."""
    rooted = [s for s in _SCOPES if not grammar.rootless or s not in ("ROOT", "TOPLEVEL")]
    scopes = st.sampled_from(rooted).flatmap(_case_variants)
    parts = [
        names,
        st.sampled_from(_QUOTED_NAMES),
        st.tuples(scopes, ad_names).map(".".join),
        st.tuples(names, names).map(".".join),
        st.tuples(scopes, names, names).map(".".join),
        st.tuples(names, names).map("..".join),
        scopes,
    ]
    if grammar.scoped and not grammar.rootless:
        parts.append(names.map(lambda n: "." + n))
    return st.one_of(*parts).map(lambda t: Gen(t, None, prec=POSTFIX if "." in t else ATOM))


# -- operators ------------------------------------------------------------------------
# Binding powers, as in the parser: the loosest binds least.
BINARY_POWER = {
    **dict.fromkeys(("||",), 2),
    **dict.fromkeys(("&&",), 3),
    **dict.fromkeys(("|",), 4),
    **dict.fromkeys(("^",), 5),
    **dict.fromkeys(("&",), 6),
    **dict.fromkeys(("==", "!=", "=?=", "=!=", "is", "isnt"), 7),
    **dict.fromkeys(("<", "<=", ">", ">="), 8),
    **dict.fromkeys(("<<", ">>", ">>>"), 9),
    **dict.fromkeys(("+", "-"), 10),
    **dict.fromkeys(("*", "/", "%"), 11),
}
_SPACING = (" {} ", "{}", " {}", "{} ")
_SAFE_DIVISOR = re.compile(r"-?[1-9][0-9]*(\.[0-9]+)?")


def _binary(op: str, left: Gen, right: Gen, spacing: str, grammar: Grammar) -> Gen:
    huge = not (_bounded(left, TIME_BOUND) and _bounded(right, TIME_BOUND))
    if grammar.safe and op in ("+", "-") and (left.time or right.time) and huge:
        op = "=="  # an absolute time plus a huge relative time is undefined behaviour
    power = BINARY_POWER[op]
    if op in ("is", "isnt"):
        spacing = " {} "
    text = _operand(left, power) + spacing.format(op) + _operand(right, power + 1)
    time = left.time or right.time
    if op in ("+", "-"):
        mag = _grow(_join_mag(left, right), 1)
    elif op == "*":
        mag = _grow(left.mag, right.mag)
    elif op == "/":
        mag = left.mag if _SAFE_DIVISOR.fullmatch(right.text) else None
    elif op == "%":
        mag = left.mag
    else:
        mag, time = (19 if op in ("&", "|", "^") else 0), False
    return Gen(text, mag, time, power)


def _shift_operands(grammar: Grammar, op: str) -> st.SearchStrategy[tuple[Gen, Gen]]:
    """Literal operands with a defined result: counts 0..63, no negative ``<<``."""
    if not grammar.safe:
        return st.tuples(literals(grammar), literals(grammar))
    others = st.one_of(reals, strings, keywords.map(Gen))
    left = st.one_of(st.integers(0, 2**63 - 1).map(_int), others)
    if op == ">>":
        left = st.one_of(left, st.integers(-(2**63), -1).map(_int))
    if op == ">>>":
        negative = st.integers(-(2**63), -1).map(_int)
        return st.one_of(
            st.tuples(left, st.integers(0, 63).map(_int)),
            st.tuples(negative, st.integers(1, 63).map(_int)),
        )
    return st.tuples(left, st.one_of(st.integers(0, 63).map(_int), others))


def _shifts(grammar: Grammar) -> st.SearchStrategy[Gen]:
    def build(op: str) -> st.SearchStrategy[Gen]:
        power = BINARY_POWER[op]
        return _shift_operands(grammar, op).map(
            lambda p: Gen(
                f"{_operand(p[0], power)} {op} {_operand(p[1], power + 1)}", 19, False, power
            )
        )

    return st.sampled_from(("<<", ">>", ">>>")).flatmap(build)


def _unary(op: str, operand: Gen, spaced: bool) -> Gen:
    text = op + (" " if spaced else "") + _operand(operand, UNARY)
    mag = {"!": 0, "~": 19}.get(op, operand.mag)
    return Gen(text, mag, operand.time and op in "-+", UNARY)


def _conditional(test: Gen, then: Gen, other: Gen, form: str) -> Gen:
    """``c ? a : b``, or the elvis ``a ?: b``, which binds tighter than unary operators
    and takes a primary on its right."""
    if form == "if":
        cond, rest = _operand(test, CONDITIONAL + 1), _operand(other, CONDITIONAL)
        text = f"{cond} ? {then.text} : {rest}"
        return Gen(text, _join_mag(then, other), then.time or other.time, CONDITIONAL)
    text = f"{_operand(test, ELVIS)} {form} {_operand(other, POSTFIX)}"
    return Gen(text, _join_mag(test, other), test.time or other.time, ELVIS)


# -- calls ----------------------------------------------------------------------------
# Functions whose value depends on the clock or a random generator.
EXCLUDED_FUNCTIONS = frozenset({"time", "random", "daytime", "currenttime"})
# Uses of the clock whose value does not depend on the time.
CLOCK_FREE = (
    "isAbsTime(currentTime())",
    "isRelTime(currentTime() - absTime(0))",
    "splitTime(currentTime()).Type",
    "isInteger(time())",
    "currentTime(1)",
)
# Functions that convert a double to an integer (or to a date) somewhere inside, with the
# size their arguments must stay under.
SINKS = {
    **dict.fromkeys(("int", "real", "floor", "ceiling", "ceil", "round"), INT_BOUND),
    **dict.fromkeys(("interval", "quantize"), INT_BOUND),
    **dict.fromkeys(("abstime", "reltime", "splittime", "formattime", "getdays"), TIME_BOUND),
    **dict.fromkeys(("getyear", "getmonth", "getdayofmonth", "getdayofweek"), TIME_BOUND),
    **dict.fromkeys(("getdayofyear", "gethours", "getminutes", "getseconds"), TIME_BOUND),
}
_TIME_RESULTS = frozenset({"abstime", "reltime"})
_BOOLEAN_RESULTS = frozenset({"member", "identicalmember", "regexp", "regexpmember"})
_PATTERNS = ("a", "^a", "b$", "[0-9]+", "(a)(b)?", "a|B", ".*", "x y", "(", "\\\\d", "")
_FORMATS = ("%Y-%m-%d", "%c", "%H:%M:%S %j", "%a %b %e %Z %z", "%%", "%s", "")
_LISTS = ("a, b,c", "a b", "1, 2, 3", "", " ", "x;y", "2.5,1")
_EVAL_TEXTS = ("1 + 2", "a", "x.y", "{1, 2}", "[a = 1]", "1 +", "MY.a", "strcat(a, b)")


def _strings_from(pool: tuple[str, ...]) -> st.SearchStrategy[Gen]:
    return st.sampled_from(pool).map(_string)


def _special_arguments(name: str) -> st.SearchStrategy[Gen] | None:
    """Arguments that make a function do its real work, not just fail on types."""
    if "regexp" in name or name in ("replace", "replaceall", "regexps"):
        return st.one_of(_strings_from(_PATTERNS), _strings_from((*_STRING_WORDS, "i", "g")))
    if name.startswith("stringlist") or name.startswith("split"):
        return st.one_of(_strings_from(_LISTS), _strings_from((*_STRING_WORDS, ",", ";")))
    if name == "formattime":
        return _strings_from(_FORMATS)
    if name == "eval":
        return _strings_from(_EVAL_TEXTS)
    if name.startswith("version"):
        return _strings_from(("1.2.3", "1.10", "1.02", "8.9.11", "abc", "1.2", "10"))
    if name in ("anycompare", "allcompare"):
        return _strings_from(("<", "<=", "==", "!=", ">", ">=", "is", "isnt", "=?=", "x"))
    if name in ("envv1tov2", "mergeenvironment", "argstolist"):
        return _strings_from(("A=1;B=2", "A=1 B='x y'", "a 'b c' d", "'unterminated", "X="))
    return None


def _argument(grammar: Grammar, name: str, sub: st.SearchStrategy[Gen]) -> st.SearchStrategy:
    special = _special_arguments(name)
    if name in SINKS and grammar.safe:
        bounded = bounded_literals(grammar, SINKS[name])
        if name == "quantize":
            bounded = st.one_of(bounded, st.lists(bounded, max_size=3).map(_list_gen))
        return bounded if special is None else st.one_of(bounded, special)
    if name == "pow" and grammar.safe:
        return bounded_literals(grammar, 1)  # integer powers must fit in 64 bits
    generic = sub
    if grammar.safe:  # a time of unknown size must not reach any function
        generic = sub.filter(lambda g: not g.time or _bounded(g, TIME_BOUND))
    return generic if special is None else st.one_of(special, generic)


def _call_result(name: str, text: str, args: list[Gen]) -> Gen:
    if name.startswith("is") or name in _BOOLEAN_RESULTS:
        return Gen(text, 0)
    if name in SINKS or name in ("size", "strcmp", "stricmp", "versioncmp"):
        return Gen(text, _join_mag(*args), name in _TIME_RESULTS)
    return Gen(text, None)


def _calls(
    grammar: Grammar, sub: st.SearchStrategy[Gen], scalar: st.SearchStrategy[Gen]
) -> st.SearchStrategy[Gen]:
    """Calls of every builtin, mostly with a right number of arguments, in any spelling.
    ``scalar`` yields expressions that cannot evaluate to a list or an ad."""
    function_names = sorted(n for n in FUNCTIONS if n not in EXCLUDED_FUNCTIONS)

    @st.composite
    def call(draw: st.DrawFn) -> Gen:
        name = draw(st.sampled_from(function_names))
        spec = FUNCTIONS[name]
        low, high = spec.min_args, spec.max_args if spec.max_args is not None else 4
        count = draw(st.one_of(st.integers(low, high), st.sampled_from((low - 1, high + 1))))
        if name in ("formattime", "abstime") and grammar.safe:
            count = max(count, 1)  # no argument means "now"
        args = [draw(_argument(grammar, name, sub)) for _ in range(max(count, 0))]
        if name == "evalineachcontext" and args and grammar.safe:
            args[0] = draw(scalar)  # classad2 mangles list and ad results (docstring)
        spelled = draw(st.sampled_from((spec.name, name, name.upper())))
        separator = draw(st.sampled_from((", ", ",", "; ")))
        return _call_result(name, f"{spelled}({separator.join(a.text for a in args)})", args)

    return call()


# -- structure ------------------------------------------------------------------------
def _list_gen(items: list[Gen]) -> Gen:
    text = "{" + ", ".join(g.text for g in items) + "}"
    return Gen(text, _join_mag(*items), any(g.time for g in items))


def _ad_gen(attrs: list[tuple[str, Gen]], separator: str) -> Gen:
    body = separator.join(f"{n} = {g.text}" for n, g in attrs)
    return Gen(f"[{body}]", _join_mag(*(g for _, g in attrs)), any(g.time for _, g in attrs))


def _select(base: Gen, name: str) -> Gen:
    return Gen(f"{_operand(base, POSTFIX)}.{name}", base.mag, base.time, POSTFIX)


def _subscript(base: Gen, index: Gen) -> Gen:
    return Gen(f"{_operand(base, POSTFIX)}[{index.text}]", base.mag, base.time, POSTFIX)


_separators = st.sampled_from(("; ", ";", " ; ", ";; "))


@cache
def expressions(grammar: Grammar = SAFE, depth: int = 3) -> st.SearchStrategy[Gen]:
    """Expressions of at most ``depth`` levels of operators, calls and literals."""
    leaves = st.one_of(literals(grammar), references(grammar))
    if depth <= 0:
        return leaves
    sub = expressions(grammar, depth - 1)
    inner = expressions(grammar.inside_ad(), min(depth - 1, 2))
    ops = st.sampled_from(tuple(BINARY_POWER))
    binary = st.builds(
        lambda o, a, b, s: _binary(o, a, b, s, grammar), ops, sub, sub, st.sampled_from(_SPACING)
    )
    strategy = st.one_of(
        leaves,
        binary,
        st.builds(_unary, st.sampled_from("-+!~"), sub, st.booleans()),
        sub.map(lambda g: Gen(f"({g.text})", g.mag, g.time)),
        st.builds(_conditional, sub, sub, sub, st.sampled_from(("if", "?:", "? :"))),
        _calls(grammar, sub, st.one_of(literals(grammar), binary)),
        st.lists(sub, max_size=3).map(_list_gen),
        st.builds(_ad_gen, st.lists(st.tuples(ad_names, inner), max_size=3), _separators),
        st.builds(_subscript, sub, st.one_of(ints, strings, names.map(_string), sub)),
        st.builds(_select, sub, ad_names),
        _shifts(grammar),
        st.sampled_from(CLOCK_FREE).map(lambda t: Gen(t, 0)),
    )
    return st.deferred(lambda: strategy)  # keeps hypothesis from printing the whole grammar


# -- ads ------------------------------------------------------------------------------
def ads(grammar: Grammar = SAFE, depth: int = 2, size: int = 5) -> st.SearchStrategy[str]:
    """New-syntax ad text whose attributes (from a small shared pool of names, so that
    references find them and circular references happen) hold generated expressions."""
    values = expressions(grammar.inside_ad(), depth)
    attrs = st.lists(st.tuples(ad_names, values), max_size=size)
    return st.builds(_ad_gen, attrs, _separators).map(lambda g: g.text)


def _requirement(grammar: Grammar) -> st.SearchStrategy[str]:
    """Requirements as pools write them: comparisons of attributes joined by && and ||."""
    scopes = st.sampled_from(("", "MY.", "TARGET.", "other.", "target."))
    ref = st.tuples(scopes, names).map("".join)
    value = st.one_of(ints, strings, keywords.map(Gen)).map(lambda g: g.text)
    ops = st.sampled_from(("==", "!=", "<", ">=", "=?=", "=!=", "is"))
    compare = st.builds(lambda r, o, v: f"{r} {o} {v}", ref, ops, st.one_of(value, ref))
    other = expressions(grammar.inside_ad(), 1).map(lambda g: _operand(g, 4))
    terms = st.lists(st.one_of(compare, ref, other), min_size=1, max_size=4)
    joined = st.builds(lambda t, j: j.join(t), terms, st.sampled_from((" && ", " || ")))
    return st.one_of(joined, st.sampled_from(("true", "false", "1", "0", "undefined")))


def match_ads(grammar: Grammar = SAFE) -> st.SearchStrategy[str]:
    """Ads with a Requirements expression that compares attributes of both sides."""
    value = st.one_of(ints, strings, keywords.map(Gen)).map(lambda g: g.text)
    plain = st.lists(st.tuples(names, value).map(" = ".join), max_size=5)
    nested = st.lists(ads(grammar, 1, 2).map(lambda t: f"n = {t}"), max_size=1)
    return st.builds(
        lambda a, r, n: "[" + "; ".join([*a, f"Requirements = {r}", *n]) + "]",
        plain,
        _requirement(grammar),
        nested,
    )


# -- lists and nested ads across MY and TARGET -----------------------------------------
# Both ads define a and b; l holds element expressions that read names (some through
# nested ads), m holds nested ads. Functions over those lists evaluate the elements from
# the calling ad, subscripts where they were written (fairpool.classad.scope).
_ELEMENTS = (
    "a", "b", "n.p", "MY.a", "TARGET.b", "[x = a].x", "{a, b}[1]", "ifThenElse(true, a, b)",
    "1", "2.5", '"s"', "undefined", "n", "{a}", "size(l)", "PARENT.a",
)  # fmt: skip
_CONTEXTS = ("[q = a]", "[q = b; a = 30]", "[q = n.p]", "[a = 40]", "[q = TARGET.a]", "3")
_LIST_CALLS = (
    "sum({})", "avg({})", "min({})", "max({})", "member(2, {})", "identicalMember(a, {})",
    'anyCompare("<", {}, 3)', 'allCompare(">=", {}, 1)', 'join(",", {})', "size({})",
    "quantize(2, {})", 'regexpMember("s", {})', "{}[0]", "{}[1]", "{}", "sum({}) + a",
)  # fmt: skip
_CONTEXT_CALLS = (
    "evalInEachContext(q + a, {})", "evalInEachContext(a, {})",
    "evalInEachContext(b * 2, {})", "evalInEachContext(sum(l), {})", "countMatches(q > 1, {})",
    "countMatches(a, {})", "evalInEachContext(MY.b, {})", "{}.q", "{}[0].q", "size({})",
    "evalInEachContext(a + PARENT.b, {})", "evalInEachContext(isUndefined(q), {})",
)  # fmt: skip
# Not unparse(m) or unparse(n): an ad of two attributes prints in classad2's hash-table
# order, fairpool's in written order (docs/compat.md).
_UNPARSED = ("unparse(l)", "unparse(MY.l)", "unparse(TARGET.n)", "unparse(a)")
_UNFOUND = ("evalInEachContext(q, {})", "countMatches(q, {})")  # outside a match only


def _cross_ad(draw: st.DrawFn, a: int) -> str:
    elements = draw(st.lists(st.sampled_from(_ELEMENTS), max_size=4))
    contexts = draw(st.lists(st.sampled_from(_CONTEXTS), max_size=3))
    nested = draw(st.sampled_from(("[p = a]", f"[p = {a + 5}]", "[p = b; b = 9]", "[q = 1]")))
    return (
        f"[a = {a}; b = {draw(st.integers(-3, 12))}; n = {nested}; "
        f"l = {{{', '.join(elements)}}}; m = {{{', '.join(contexts)}}}]"
    )


@st.composite
def cross_scope_cases(draw: st.DrawFn) -> tuple[str, str, str | None]:
    """(expression, MY, TARGET or None): functions, subscripts and unparse over lists and
    nested ads whose elements read names of MY, TARGET and their own ad."""
    my, target = _cross_ad(draw, 1), _cross_ad(draw, 2)
    if draw(st.integers(0, 9)) == 0:  # a name found nowhere (module docstring)
        call = draw(st.sampled_from(_UNFOUND)).format(draw(st.sampled_from(("m", "MY.m"))))
        return call, my, None
    scope = draw(st.sampled_from(("", "MY.", "TARGET.")))
    call = draw(
        st.one_of(
            st.sampled_from(_LIST_CALLS).map(lambda c: c.format(f"{scope}l")),
            st.sampled_from(_CONTEXT_CALLS).map(lambda c: c.format(f"{scope}m")),
            st.sampled_from(_UNPARSED),
        )
    )
    return call, my, target


# -- text for the parser fuzz ---------------------------------------------------------
_FRAGMENTS = (
    *BINARY_POWER,
    *("!", "~", "?", ":", "?:", "(", ")", "[", "]", "{", "}", ",", ";", ".", "..", "="),
    *("'", '"', "\\", "/*", "*/", "//", "\n", " ", "$", "#", "@", "\\0", "\\377", "ü"),
    *("true", "FALSE", "undefined", "error", "MY", "TARGET", "parent", "x", "strcat"),
    *("ifThenElse", "absTime", "relTime", "real", "eval", "size", "regexp", "unparse"),
    *("0", "1", "010", "0x", "1e", "1.5", "9223372036854775808", "-", "("),
)
FUZZ_TEXT = st.one_of(
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40),
    st.lists(st.sampled_from(_FRAGMENTS), max_size=25).map("".join),
    st.lists(st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=3)), max_size=20).map("".join),
    st.text(st.characters(codec=None), max_size=30),
    expressions(UNRESTRICTED, 2).map(lambda g: g.text),
)
