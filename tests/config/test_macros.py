"""Macro expansion: each expected text below is what HTCondor's configuration reader gave
for the same definitions (checked once with htcondor2; test_oracle.py checks generated ones)."""

import random

import pytest

from fairpool.config.macros import expand
from fairpool.errors import ConfigError

MACROS = {
    "A": "$(B) x",
    "B": "1",
    "E": "",
    "H": "60*60",
    "K": "/a/b/c.txt",
    "HW": "hello world",
    "Y": "$(Y2)",
    "Y2": "$(Z)",
    "Z": "$(y)",
}


def lookup(name: str) -> str | None:
    return MACROS.get(name.upper())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$(A)", "1 x"),
        ("$(a)", "1 x"),
        ("$(D:dflt $(B))", "dflt 1"),
        ("$(E:dflt)", "dflt"),
        ("$(E)x", "x"),
        ("$(X:a:b) $(X:(p))", "a:b (p)"),
        ("$(a.b:z)", "z"),
        ("$$(Foo) $(foo bar) $( B ) $UNKNOWNFN(x)", "$$(Foo) $(foo bar) $( B ) $UNKNOWNFN(x)"),
        ("$INT(B) $INT(B,%03d) $REAL(B) $STRING(A)", "1 001 1 1 x"),
        ("$INT(H) $REAL(H,%.2f) $INT(1+2) $INT(true)", "3600 3600.00 3 1"),
        ("$REAL(0.1) $REAL(1e20) $INT(2.7) $INT(-2.7) $REAL(1/3)", "0.1 1E+20 2 -2 0"),
        ("$SUBSTR(A,1) $SUBSTR(A,0,1) $SUBSTR(A,-1)", " x 1 x"),
        ("$SUBSTR(HW,1,-1)|$SUBSTR(HW,-3,2)|$SUBSTR(HW,20)|$SUBSTR(HW, 2, 3)", "ello worl|rl||llo"),
        (
            "$Fp(K)|$Fd(K)|$Fn(K)|$Fx(K)|$Fq(K)|$Fnx(K)|$Ff(K)|$Fdb(K)",
            '/a/b/|b/|c|.txt|"/a/b/c.txt"|c.txt|/a/b/c.txt|b',
        ),
        (
            "$Fp(/x/y/z.c) $Fn(z.c.gz) $Fx(noext) $Fd(/x/y/) $Fp(rel/a) $Ff(rel/a)",
            "/x/y/ z.c  y/ rel/ rel/a",
        ),
        ("$STRING(NOPE) $Fq(HW)", 'NOPE "hello world"'),
        ("$CHOICE(1,a,b,c) $CHOICE(B,K,L)", "b L"),
        ("$ENV(HOME) [$ENV(NOPE_ENV)] $ENV(NOPE:dd)", "/home/u [UNDEFINED] dd"),
    ],
)
def test_expands_as_htcondor(text: str, expected: str) -> None:
    assert expand(text, lookup, env={"HOME": "/home/u"}) == expected


def test_random_functions_repeat_with_the_same_seed() -> None:
    text = "$RANDOM_INTEGER(1,100,3) $RANDOM_CHOICE(a,b,c,d)"
    first = expand(text, lookup, rng=random.Random(7))
    assert first == expand(text, lookup, rng=random.Random(7))
    number, choice = first.split()
    assert (int(number) - 1) % 3 == 0 and 1 <= int(number) <= 100
    assert choice in "abcd"


def test_functions_argument_adds_forms() -> None:
    assert expand("$UP(x$(B))", lookup, functions={"UP": str.upper}) == "X1"


def test_undefined_macro_is_an_error_naming_it_when_strict() -> None:
    with pytest.raises(ConfigError) as caught:
        expand("a $(NOPE) b", lookup, source="f.conf", line=3)
    assert "NOPE" in str(caught.value) and str(caught.value).startswith("f.conf:3: ")
    assert caught.value.knob == "NOPE"
    assert expand("a $(NOPE) b", lookup, strict=False) == "a  b"


def test_cycle_names_the_chain() -> None:
    with pytest.raises(ConfigError, match=r"Y -> Y2 -> Z -> Y"):
        expand("$(Y)", lookup, source="f.conf", line=1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$(B", "expected '\\)'"),
        ("$INT(E)", "expected a number"),
        ("$INT(HW)", "expected a number"),
        ("$CHOICE(5,a,b)", "index from 0 to 1"),
        ("$RANDOM_INTEGER(5,1)", "min <= max"),
        ("$SUBSTR(HW)", "start"),
    ],
)
def test_bad_references_are_errors(text: str, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        expand(text, lookup, source="f.conf", line=2)


def test_unclosed_reference_stays_as_written_when_lenient() -> None:
    assert expand("x $(B", lookup, strict=False) == "x $(B"
