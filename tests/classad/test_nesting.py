"""Nesting is refused at exactly MAX_NESTING levels of the syntax tree, whatever makes it
(parentheses, operators, chains, lists, ads, calls, subscripts), and every walk over a tree
at the limit (parse, unparse, both evaluators, the ad formats, matching, reference
analysis) works from a caller already hundreds of Python frames deep."""

from __future__ import annotations

import pytest

from deadline import deadline
from fairpool.classad import (
    ClassAd,
    ClassAdSyntaxError,
    Expr,
    parse_ads,
    symmetric_match,
    write_json,
    write_old,
)
from fairpool.classad.conformance import EVALUATORS, evaluate_case
from fairpool.classad.nodes import height
from fairpool.classad.parser import MAX_NESTING, parse_expr

# shape -> text of n levels (its tree is n + 1 levels deep: the innermost literal is one)
SHAPES = {
    "parentheses": lambda n: "(" * n + "1" + ")" * n,
    "unary minus": lambda n: "- " * n + "1",
    "left chain": lambda n: "1" + " + 1" * n,
    "or chain": lambda n: "a" + " || a" * n,
    "subscripts": lambda n: "x" + "[1]" * n,
    "selections": lambda n: "a" + ".b" * n,
    "conditionals": lambda n: "a ? " * n + "1" + " : 2" * n,
    "elvis": lambda n: "a" + " ?: b" * n,
    "lists": lambda n: "{" * n + "1" + "}" * n,
    "ads": lambda n: "[a = " * n + "1" + "]" * n,
    "calls": lambda n: "int(" * n + "1" + ")" * n,
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_limit_is_exact(shape):
    make = SHAPES[shape]
    assert height(parse_expr(make(MAX_NESTING - 1))) == MAX_NESTING
    with pytest.raises(ClassAdSyntaxError, match="nests more than 200 levels"):
        parse_expr(make(MAX_NESTING))
    with pytest.raises(ClassAdSyntaxError):
        parse_expr(make(10 * MAX_NESTING))


def _deep(frames: int, work):
    return work() if frames == 0 else _deep(frames - 1, work)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_walk_works_on_a_tree_at_the_limit_from_a_deep_caller(shape):
    text = SHAPES[shape](MAX_NESTING - 1)

    def walks():
        expr = Expr(text)
        str(expr)
        for evaluator in EVALUATORS:
            case = {"expr": text, "my": None, "target": None, "kind": "value"}
            assert evaluate_case(case, evaluator)
        ad = ClassAd({"Requirements": expr, "x": expr})
        again = next(parse_ads(write_old(ad)))
        assert repr(again.eval("x", now=0)) == repr(ad.eval("x", now=0))
        write_json(ad)
        ad.externalRefs(expr)
        symmetric_match(ad, ad, now=0)

    _deep(300, walks)


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 5000])
def test_json_ads_nesting_too_deep_are_syntax_errors(depth):
    text = '{"a": ' + "[" * depth + "1" + "]" * depth + "}"
    with pytest.raises(ClassAdSyntaxError, match="JSON"):
        list(parse_ads(text))


def test_a_json_ad_over_many_lines_is_read_in_linear_time():
    # each line used to decode the whole buffer again (10,000 lines took 18 s)
    count = 100_000
    text = "{\n" + ",\n".join(f'"a{i}": {i}' for i in range(count)) + "\n}\n"
    with deadline(60, "reading the JSON ad"):
        (ad,) = parse_ads(text)
    assert len(ad) == count and ad["a99999"] == 99999
