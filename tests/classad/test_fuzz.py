"""Random text into the parser: only ClassAdSyntaxError ever comes out, and whatever parses
evaluates without raising, through both evaluators, alone and inside ads."""

from hypothesis import given, note
from tests.classad.strategies import FUZZ_TEXT

from fairpool.classad import ClassAd, ClassAdSyntaxError, Expr, parse_ads
from fairpool.classad.conformance import EVALUATORS, evaluate_case


@given(FUZZ_TEXT)
def test_expression_text_parses_or_raises_syntax_error_and_then_evaluates(text):
    try:
        expr = Expr(text)
    except ClassAdSyntaxError as err:
        assert err.line >= 1 and err.column >= 1
        assert "^" in str(err)
        return
    note(f"parsed: {expr}")
    for evaluator in EVALUATORS:
        got = evaluate_case({"expr": text, "my": None, "target": None, "kind": "value"}, evaluator)
        assert isinstance(got, str) and got


@given(FUZZ_TEXT, FUZZ_TEXT)
def test_ad_text_in_every_syntax_parses_or_raises_syntax_error(left, right):
    for text in (f"[ a = {left}; b = {right} ]", f"a = {left}\nb = {right}\n", f"[{left}]"):
        try:
            ads = list(parse_ads(text))
        except ClassAdSyntaxError:
            continue
        for ad in ads:
            assert isinstance(ad, ClassAd)
            for name in list(ad):
                ad.eval(name)  # must not raise, whatever the value


@given(FUZZ_TEXT)
def test_evaluation_inside_a_match_never_raises(text):
    my = "[ a = 1; Requirements = true ]"
    target = "[ b = 2; Requirements = true ]"
    for evaluator in EVALUATORS:
        case = {"expr": text, "my": my, "target": target, "kind": "value"}
        got = evaluate_case(case, evaluator)
        assert isinstance(got, str) and got
