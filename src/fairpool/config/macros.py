"""Macro expansion, shared by configuration and submit files.

HTCondor stores a knob's text as written and expands ``$(NAME)`` references when the knob
is read, so a macro may be defined after the line that uses it. ``expand`` does that for one
text, given ``lookup`` (a macro's raw text, or None when it is not defined):

* ``$(NAME)`` and ``$(NAME:default)``, recursively; a macro defined as empty text takes
  the default too. Names are letters, digits, ``_`` and ``.``; anything else between the
  parentheses (``$( B )``) is not a reference and stays as written, as in HTCondor.
* ``$$(...)`` stays as written: it is for the schedd and the negotiator, not for us.
* Functions: ``$ENV(X[:default])``, ``$RANDOM_INTEGER(min,max[,step])``,
  ``$RANDOM_CHOICE(a,b,...)``, ``$CHOICE(index,a,b,...)``, ``$INT(X[,fmt])``,
  ``$REAL(X[,fmt])``, ``$STRING(X)`` (the value of X read as a ClassAd expression when it is
  a string, else X's text), ``$SUBSTR(X,start[,length])`` and the file-name forms
  ``$F<letters>(X)`` (see ``filename_parts``). Their arguments are expanded first; an
  argument that names a macro stands for the macro's text. ``functions`` adds or replaces
  ``$NAME(...)`` forms; an unknown ``$NAME(...)`` stays as written.

Errors are ``ConfigError`` with the caller's ``source`` and ``line``: an undefined macro
without default when ``strict`` (HTCondor expands it to nothing; ``strict=False`` does
too), a reference cycle (naming the chain ``A -> B -> A``; HTCondor never returns), an
unclosed ``$(`` when ``strict``, and a function whose argument is not what it needs.

Expansion is bounded (docs/limits.md): references nest at most ``MAX_MACRO_DEPTH`` deep,
and one expansion produces at most ``MAX_EXPANSION`` characters in all, counting every
level and a little for each nested expansion (a macro that doubles itself forty times is an
error, not forty doublings).
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..classad import ClassAdSyntaxError, Expr
from ..classad.parser import parse_old_value
from ..errors import ConfigError
from .filenames import filename_parts

__all__ = ["MAX_EXPANSION", "MAX_MACRO_DEPTH", "UndefinedMacroError", "expand"]

MAX_MACRO_DEPTH = 100  # nested expansions: $(A) whose text has $(B) whose text has ...
MAX_EXPANSION = 1 << 22  # characters one expansion produces, every level counted
_CALL_COST = 16  # each (nested) expansion also counts this much: a million tiny ones is work
_MAX_WIDTH = 1000  # the widest field a $INT/$REAL format may ask for

_NAME = re.compile(r"[A-Za-z0-9_.]+")
_FUNCTION = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\(")
_FILE_FUNCTION = re.compile(r"F[A-Za-z]+")
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")

Function = Callable[[str], str]


class UndefinedMacroError(ConfigError):
    """``$(NAME)`` with no definition and no default (``knob`` names the macro)."""


@dataclass
class _Expander:
    lookup: Callable[[str], str | None]
    source: str | None
    line: int | None
    rng: random.Random
    env: Mapping[str, str]
    functions: Mapping[str, Function]
    strict: bool
    depth: int = 0  # run() calls in progress
    produced: int = 0  # characters produced so far, every level counted

    def error(self, message: str, knob: str | None = None) -> ConfigError:
        return ConfigError(message, self.source, self.line, knob)

    def run(self, text: str, chain: tuple[str, ...]) -> str:
        if "$" not in text:
            return self.count(text, chain)
        self.depth += 1
        if self.depth > MAX_MACRO_DEPTH:
            raise self.error(
                f"macros nest more than {MAX_MACRO_DEPTH} deep ({_chain(chain)})",
                chain[0] if chain else None,
            )
        out: list[str] = []
        i, n = 0, len(text)
        while i < n:
            dollar = text.find("$", i)
            if dollar < 0:
                out.append(text[i:])
                break
            out.append(text[i:dollar])
            i = self.reference(text, dollar, chain, out)
        self.depth -= 1
        return self.count("".join(out), chain)

    def count(self, text: str, chain: tuple[str, ...]) -> str:
        """``text``, counted towards MAX_EXPANSION."""
        self.produced += len(text) + _CALL_COST
        if self.produced > MAX_EXPANSION:
            raise self.error(
                f"macro expansion larger than {MAX_EXPANSION} characters ({_chain(chain)})",
                chain[0] if chain else None,
            )
        return text

    def reference(self, text: str, at: int, chain: tuple[str, ...], out: list[str]) -> int:
        """Expand the reference starting at ``text[at] == '$'``; return where to go on."""
        if text.startswith("$$", at):
            out.append("$$")
            return at + 2
        if text.startswith("$(", at):
            end = self.closing(text, at + 1)
            if end is None:
                out.append(text[at:])
                return len(text)
            body = text[at + 2 : end]
            name, colon, default = body.partition(":")
            if not _NAME.fullmatch(name):
                out.append(text[at : end + 1])
            else:
                out.append(self.macro(name, default if colon else None, chain))
            return end + 1
        call = _FUNCTION.match(text, at + 1)
        if call is None:
            out.append("$")
            return at + 1
        fname = call.group(1)
        handler = self.function(fname)
        end = None if handler is None else self.closing(text, call.end() - 1)
        if handler is None or end is None:
            out.append("$")
            return at + 1
        out.append(handler(self.run(text[call.end() : end], chain), chain))
        return end + 1

    def closing(self, text: str, open_at: int) -> int | None:
        """Index of the ``)`` matching the ``(`` at ``open_at``; None (or an error) if none."""
        depth = 0
        for j in range(open_at, len(text)):
            if text[j] == "(":
                depth += 1
            elif text[j] == ")":
                depth -= 1
                if depth == 0:
                    return j
        if self.strict:
            raise self.error(f"expected ')' to close {text[open_at - 1 : open_at + 30]!r}")
        return None

    def macro(self, name: str, default: str | None, chain: tuple[str, ...]) -> str:
        key = name.upper()
        if key in chain:
            names = [*chain[chain.index(key) :], key]
            raise self.error(f"macro cycle: {' -> '.join(names)}", name)
        value = self.lookup(name)
        if not value and default is not None:
            return self.run(default, chain)
        if value is None:
            if self.strict:
                raise UndefinedMacroError(
                    f"undefined macro $({name}) and no default given", self.source, self.line, name
                )
            return ""
        return self.run(value, (*chain, key))

    def function(self, fname: str) -> Callable[[str, tuple[str, ...]], str] | None:
        if fname in self.functions:
            user = self.functions[fname]
            return lambda args, chain: user(args)
        builtin = _BUILTINS.get(fname.upper())
        if builtin is not None:
            return lambda args, chain: builtin(self, args, chain)
        if _FILE_FUNCTION.fullmatch(fname):
            return lambda args, chain: filename_parts(fname[1:], self.value_of(args.strip(), chain))
        return None

    def value_of(self, arg: str, chain: tuple[str, ...]) -> str:
        """An argument that names a defined macro stands for its expanded text."""
        if _NAME.fullmatch(arg):
            value = self.lookup(arg)
            if value is not None:
                return self.macro(arg, None, chain)
        return arg

    def number(self, fname: str, args: str, chain: tuple[str, ...]) -> tuple[object, str | None]:
        """``$INT``/``$REAL``: the first argument evaluated as a ClassAd expression."""
        arg, _, fmt = args.partition(",")
        text = self.value_of(arg.strip(), chain)
        try:
            if _NUMBER.fullmatch(text.strip()):  # read as C reads it: "-0" stays negative
                value = float(text) if fname == "REAL" else int(float(text))
            else:
                value = Expr(text).eval(now=0) if text.strip() else None
        except (ClassAdSyntaxError, OverflowError):
            value = None
        if type(value) is bool:
            value = int(value)
        if type(value) not in (int, float):
            raise self.error(f"${fname}({args}): expected a number, got {text!r}")
        return value, fmt.strip() or None


def _int(ex: _Expander, args: str, chain: tuple[str, ...]) -> str:
    value, fmt = ex.number("INT", args, chain)
    return _format(ex, "INT", int(value), fmt or "%d")  # type: ignore[call-overload]


def _real(ex: _Expander, args: str, chain: tuple[str, ...]) -> str:
    value, fmt = ex.number("REAL", args, chain)
    if fmt is None:
        return _format(ex, "REAL", float(value), "%.16G")  # type: ignore[arg-type]
    text = _format(ex, "REAL", float(value), fmt)  # type: ignore[arg-type]
    return text if "." in text else text + ".0"  # HTCondor marks a given format's reals


def _format(ex: _Expander, fname: str, value: float, fmt: str) -> str:
    if any(int(width) > _MAX_WIDTH for width in re.findall(r"\d{1,9}", fmt)) or len(fmt) > 100:
        raise ex.error(f"${fname}: a format of at most {_MAX_WIDTH} characters wide, not {fmt!r}")
    try:
        return fmt % value
    except (TypeError, ValueError, OverflowError):
        raise ex.error(f"${fname}: expected a printf format for one number, got {fmt!r}") from None


def _string(ex: _Expander, args: str, chain: tuple[str, ...]) -> str:
    """The text read as an old-syntax ClassAd expression: its value when that is a string
    (``"a b"`` -> ``a b``, ``strcat("a","b")`` -> ``ab``; ``"a" "b"`` is not one), else the
    text as written."""
    text = ex.value_of(args.strip(), chain)
    try:
        value = Expr(parse_old_value(text, whole=True)).eval(now=0) if text.strip() else None
    except ClassAdSyntaxError:
        return text
    return value if isinstance(value, str) else text


def _env(ex: _Expander, args: str, chain: tuple[str, ...]) -> str:
    name, colon, default = args.strip().partition(":")
    value = ex.env.get(name)
    if value is None:
        return default if colon else "UNDEFINED"
    return value


def _integers(ex: _Expander, fname: str, parts: list[str]) -> list[int]:
    try:
        return [int(Expr(p).eval(now=0)) for p in parts]
    except (ClassAdSyntaxError, TypeError, ValueError, OverflowError):
        raise ex.error(f"${fname}: expected whole numbers, got {', '.join(parts)!r}") from None


def _random_integer(ex: _Expander, args: str, chain: tuple[str, ...]) -> str:
    parts = [p.strip() for p in args.split(",")]
    if len(parts) not in (2, 3):
        raise ex.error(f"$RANDOM_INTEGER({args}): expected min, max[, step]")
    low, high, *rest = _integers(ex, "RANDOM_INTEGER", parts)
    step = rest[0] if rest else 1
    if step < 1 or high < low:
        raise ex.error(f"$RANDOM_INTEGER({args}): expected min <= max and a step of 1 or more")
    return str(ex.rng.randrange(low, high + 1, step))


def _random_choice(ex: _Expander, args: str, chain: tuple[str, ...]) -> str:
    choices = [p.strip() for p in args.split(",")]
    return ex.rng.choice(choices)


def _choice(ex: _Expander, args: str, chain: tuple[str, ...]) -> str:
    first, _, rest = args.partition(",")
    (index,) = _integers(ex, "CHOICE", [ex.value_of(first.strip(), chain)])
    choices = [p.strip() for p in rest.split(",")] if rest else []
    if not 0 <= index < len(choices):
        raise ex.error(f"$CHOICE({args}): expected an index from 0 to {len(choices) - 1}")
    return choices[index]


def _substr(ex: _Expander, args: str, chain: tuple[str, ...]) -> str:
    parts = [p.strip() for p in args.split(",")]
    if len(parts) not in (2, 3):
        raise ex.error(f"$SUBSTR({args}): expected a macro, a start and an optional length")
    defined = not _NAME.fullmatch(parts[0]) or ex.lookup(parts[0]) is not None
    text = ex.value_of(parts[0], chain) if defined else ""  # an undefined macro is empty
    start, *length = _integers(ex, "SUBSTR", parts[1:])
    if start < 0:
        start = max(0, len(text) + start)
    if not length:
        return text[start:]
    end = start + length[0] if length[0] >= 0 else len(text) + length[0]
    return text[start:end]


def _chain(chain: tuple[str, ...]) -> str:
    """The macros being expanded, for an error: ``A -> B -> ... -> Y -> Z``."""
    names = list(chain) if len(chain) <= 6 else [*chain[:3], "...", *chain[-2:]]
    return " -> ".join(names) if names else "a function's argument"


_BUILTINS: dict[str, Callable[[_Expander, str, tuple[str, ...]], str]] = {
    "ENV": _env,
    "INT": _int,
    "REAL": _real,
    "STRING": _string,
    "SUBSTR": _substr,
    "CHOICE": _choice,
    "RANDOM_CHOICE": _random_choice,
    "RANDOM_INTEGER": _random_integer,
}


def expand(
    text: str,
    lookup: Callable[[str], str | None],
    *,
    source: str | None = None,
    line: int | None = None,
    rng: random.Random | None = None,
    env: Mapping[str, str] | None = None,
    functions: Mapping[str, Function] | None = None,
    strict: bool = True,
) -> str:
    """``text`` with every macro reference and function expanded (see the module docstring).

    ``rng`` draws ``$RANDOM_*`` (a fresh ``random.Random(0)`` when None, so results repeat);
    ``env`` is ``$ENV``'s environment (``os.environ`` when None).
    """
    expander = _Expander(
        lookup=lookup,
        source=source,
        line=line,
        rng=rng if rng is not None else random.Random(0),
        env=env if env is not None else os.environ,
        functions=functions or {},
        strict=strict,
    )
    return expander.run(text, ())
