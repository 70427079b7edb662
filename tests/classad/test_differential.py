"""fairpool against HTCondor's own ClassAd library (classad2, htcondor mode) on generated
expressions and ads: with no scope, inside a MY ad, in a match, and symmetric matches.

Both of fairpool's evaluators must print the value classad2 prints (canonical text, spec
§4). Inputs classad2 cannot answer for (it crashed, raised, or the value nests too deeply
to print) are rejected, not compared.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import assume, event, given, note, settings
from tests.classad.oracle import AVAILABLE, Answer, oracle
from tests.classad.strategies import (
    SAFE,
    Grammar,
    ads,
    cross_scope_cases,
    expressions,
    match_ads,
)

from fairpool.classad import ClassAd, ClassAdSyntaxError, Expr
from fairpool.classad.ad import new_state
from fairpool.classad.canonical import canonical
from fairpool.classad.conformance import CASE_NOW, EVALUATORS, evaluate_case
from fairpool.classad.scope import MAX_DEPTH

pytestmark = pytest.mark.skipif(not AVAILABLE, reason="classad2 (htcondor wheel) not installed")

# Each example costs a round trip to the worker; the profile's count (100 dev, 400 ci) is
# scaled up because the differential tests are the ones that find bugs.
EXAMPLES = settings.default.max_examples * 3
UNSCOPED = Grammar(scoped=False)
MAX_NESTING = 6  # spec §4: deeper values are not printed canonically


def _usable(answer: Answer) -> Answer:
    if answer.skip is not None:
        event(f"oracle skipped: {answer.skip.split(':')[0]}")
    assume(answer.skip is None)
    return answer


def _ad_parses(text: str | None) -> bool:
    try:
        ClassAd(text) if text is not None else None
    except ClassAdSyntaxError:
        return False
    return True


def _too_deep(case: dict) -> bool:
    """Whether fairpool's evaluation reached its nesting limit (MAX_DEPTH), as a list
    element that selects from its own list does (``[a = {a.b}]``). classad2 fails to
    evaluate those ("failed to evaluate expression", or undefined under a subscript):
    excluded, like the failures of spec §9."""
    deepest = 0
    run = EVALUATORS["interpreted"]

    def watched(node, st):
        nonlocal deepest
        deepest = max(deepest, st.depth)
        return run(node, st)

    my = ClassAd(case["my"]) if case["my"] is not None else None
    target = ClassAd(case["target"]) if case["target"] is not None else None
    st = new_state(watched, my, target, CASE_NOW)
    try:
        canonical(watched(Expr(case["expr"]).node, st), st)
    except (ClassAdSyntaxError, RecursionError):
        return True
    return deepest >= MAX_DEPTH - 1


def _nesting(text: str) -> int:
    """How deeply lists and ads nest in a canonical text (strings skipped). A value that
    contains itself (``MY`` inside MY) nests without end in fairpool; classad2 stops such
    values early in ways of its own, and spec §4 leaves them out of the comparison."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if escaped:
            escaped = False
        elif in_string:
            escaped, in_string = ch == "\\", ch != '"'
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "}]":
            depth -= 1
    return deepest


_QUOTED_SELECTION = re.compile(r"\.\s*'")
_THROUGH_TEXT = re.compile(r"\b(eval|string|unparse|strcat|join)\s*\(", re.IGNORECASE)


def _through_misprinted_text(case: dict) -> bool:
    """Whether the case selects a quoted name (``MY.'a b'``) and may print it as text:
    classad2 writes that ``MY.a b``, which does not read back, so ``eval()`` of an ad holding
    it is an error there. fairpool writes what reads back (docs/compat.md)."""
    texts = [t for t in (case["expr"], case["my"], case["target"]) if t is not None]
    return any(map(_QUOTED_SELECTION.search, texts)) and any(map(_THROUGH_TEXT.search, texts))


def _refused_abstime(case: dict) -> bool:
    """Whether fairpool refuses an ``absTime("...")`` literal that classad2 reads leniently
    (digits up to the first other character: ``absTime("2020x")`` is 2020, ``"0x1A"`` year
    0). fairpool's syntax error is deliberate (docs/compat.md)."""
    texts = [(Expr, case["expr"]), (ClassAd, case["my"]), (ClassAd, case["target"])]
    for reader, text in texts:
        if text is None:
            continue
        try:
            reader(text)
        except ClassAdSyntaxError as err:
            if "invalid absolute time" in err.message:
                return True
    return False


def _reordered_text(got: str, want: str) -> bool:
    """Whether two printed values differ only in the order of an ad's attributes written
    into a string (``join``, ``string``, ``strcat`` of a nested ad): classad2 writes its
    hash order, fairpool the order written (docs/compat.md)."""
    return '"[' in want and got != want and sorted(got) == sorted(want)


def check_value(expr: str, my: str | None = None, target: str | None = None) -> None:
    """Both evaluators print the value classad2 prints."""
    note(f"expr   = {expr!r}\nmy     = {my!r}\ntarget = {target!r}")
    answer = _usable(oracle().value(expr, my, target))
    if answer.bad_ad is not None:
        bad = my if answer.bad_ad == "my" else target
        assert not _ad_parses(bad), f"classad2 rejects the {answer.bad_ad} ad, fairpool reads it"
        return
    case = {"expr": expr, "my": my, "target": target, "kind": "value"}
    if answer.value != "PARSE_ERROR":
        assume(not _refused_abstime(case))
    assert _ad_parses(my) and _ad_parses(target), "fairpool rejects an ad classad2 reads"
    results = {evaluator: evaluate_case(case, evaluator) for evaluator in EVALUATORS}
    if answer.value != "PARSE_ERROR" and any(r != answer.value for r in results.values()):
        assume(not _too_deep(case))
        assume(not _through_misprinted_text(case))
        assume(not any(_reordered_text(r, answer.value) for r in results.values()))
        assume(max(map(_nesting, results.values())) <= MAX_NESTING)
    for evaluator, got in results.items():
        assert got == answer.value, f"{evaluator}: fairpool {got}, classad2 {answer.value}"


@settings(max_examples=EXAMPLES)
@given(expressions(UNSCOPED, 3))
def test_expression_without_scope(expr):
    check_value(expr.text)


@settings(max_examples=EXAMPLES)
@given(expressions(SAFE, 3), ads())
def test_expression_in_my_ad(expr, my):
    check_value(expr.text, my)


@settings(max_examples=EXAMPLES)
@given(expressions(SAFE, 3), ads(), ads())
def test_expression_in_a_match(expr, my, target):
    check_value(expr.text, my, target)


@settings(max_examples=EXAMPLES)
@given(ads(SAFE, 3, 6))
def test_every_attribute_of_an_ad(my):
    """Each attribute of a generated ad, evaluated inside it (circular references too)."""
    assume(_ad_parses(my))
    for name in list(ClassAd(my))[:4]:
        check_value(_reference(name), my)


@settings(max_examples=EXAMPLES)
@given(cross_scope_cases())
def test_lists_and_nested_ads_across_my_and_target(case):
    """A function reads a list's elements from the ad it is called in, a subscript where
    they were written; nested ads keep the ad they were written in (issue 14)."""
    expr, my, target = case
    check_value(expr, my, target)


def _reference(name: str) -> str:
    return name if name.isidentifier() and name.lower() not in ("true", "false") else f"'{name}'"


@settings(max_examples=EXAMPLES)
@given(match_ads(), match_ads())
def test_symmetric_match(my, target):
    note(f"my     = {my!r}\ntarget = {target!r}")
    answer = _usable(oracle().match(my, target))
    assume(answer.bad_ad is None and _ad_parses(my) and _ad_parses(target))
    event(f"match {answer.match}")
    for evaluator in EVALUATORS:
        case = {"expr": "MY.Requirements", "my": my, "target": target, "kind": "value"}
        got = evaluate_case(case, evaluator)
        if got != answer.my_requirements:  # a value that contains itself (check_value)
            assume(not _too_deep(case) and _nesting(got) <= MAX_NESTING)
        assert got == answer.my_requirements, evaluator
        case.update(my=target, target=my)
        assert evaluate_case(case, evaluator) == answer.target_requirements, evaluator
        case.update(kind="match", my=my, target=target)
        assert evaluate_case(case, evaluator) == ("true" if answer.match else "false"), evaluator


@pytest.mark.xfail(strict=True, reason="known: a circular reference through ROOT is undefined")
@pytest.mark.skipif(not AVAILABLE, reason="classad2 is not installed")
def test_a_list_element_selecting_itself_through_root():
    """Found by test_expression_without_scope (2026-11-25): a list element that selects its
    own list through ROOT is a circular reference to fairpool (undefined, spec §7.6), but
    classad2 gives error, as fairpool does for the same element without ROOT
    (``[x = {x[0]}].x[0]``). Left as it is for now; this test fails while they differ."""
    expr = "[x = {ROOT.x[0]}].x[0]"
    assert oracle().value(expr, None, None).value == "error"
    case = {"expr": expr, "my": None, "target": None, "kind": "value"}
    assert {evaluate_case(case, evaluator) for evaluator in EVALUATORS} == {"error"}
