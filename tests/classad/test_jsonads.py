"""ClassAds as JSON values (classad/jsonads.py): every ad comes back from its JSON, the
objects are those of the JSON file form (formats.py), bad input is one error naming the
attribute, and classad2 (HTCondor's library, in a worker) reads and writes the same JSON.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from tests.classad.json_oracle import AVAILABLE, json_oracle
from tests.classad.strategies import SAFE, ads

from fairpool.classad import ClassAd, ClassAdSyntaxError, Expr, parse_ad
from fairpool.classad.formats import write_json, write_new
from fairpool.classad.jsonads import ad_from_json, ad_to_json, expr_from_json
from fairpool.classad.nodes import AdLit, ListLit, Literal, Node

needs_oracle = pytest.mark.skipif(not AVAILABLE, reason="the htcondor wheel is not installed")

# attribute names, no two equal without case (an ad holds one of each)
EXAMPLES = settings.default.max_examples  # 100; HYPOTHESIS_PROFILE=ci: 400
NAMES = ("a", "B", "Memory", "x y", "_z", "Requirements", "if", "c2")
EXPRESSIONS = (
    "error",
    "a + 1",
    'strcat("x", y)',
    "TARGET.Memory >= MY.RequestMemory && Cpus > 1",
    "-x",
    "c2 ? 1 : 2.5",
    "{1, x}",
    "[p = q; r = 2]",
    'real("INF")',
    'real("-INF")',
    'real("NaN")',
)
TIMES = (
    'absTime("2004-01-01T10:20:30+05:30")',
    "absTime(0)",
    'relTime("1:00")',
    "relTime(90.5)",
    'relTime("-1+02:03:04")',
)


def texts(control: bool) -> st.SearchStrategy[str]:
    """Strings with unicode, quotes, backslashes and slashes (control characters only when
    ``control``: classad2's JSON reader garbles \\u escapes, which JSON needs for them)."""
    excluded = ("Cs",) if control else ("Cs", "Cc")
    pieces = st.one_of(
        st.text(st.characters(exclude_categories=excluded, exclude_characters="\x00"), max_size=6),
        st.sampled_from(('"', "\\", "/", "\t", "\n", "é", "€", "😀", "Expr(", ")/", "\\/")),
    )
    return st.lists(pieces, max_size=4).map("".join).filter(not_a_marker)


def not_a_marker(text: str) -> bool:
    """A string that reads as an expression in the JSON form is its own test below."""
    return not (text.startswith("/Expr(") and text.endswith(")/"))


ALL_REALS = st.floats()
# reals classad2 reads back exactly (it reads no more than 15 significant digits)
SHORT_REALS = st.one_of(
    st.integers(-(10**9), 10**9).map(lambda n: n / 64),
    st.sampled_from((0.1, 1e300, 5e-324, -0.0, math.inf, -math.inf, math.nan)),
)


def values(
    times: bool = True, control: bool = True, reals: st.SearchStrategy[float] = ALL_REALS
) -> st.SearchStrategy[object]:
    exprs = EXPRESSIONS + (TIMES if times else ())
    scalars = st.one_of(
        st.integers(-(2**63), 2**63 - 1),
        st.sampled_from((0, 1, -1, 2**63 - 1, -(2**63))),
        reals,  # with inf, -inf, nan, -0.0
        st.booleans(),
        st.none(),
        texts(control),
        st.sampled_from(exprs).map(Expr),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3),
            st.dictionaries(st.sampled_from(NAMES), inner, max_size=3),
        ),
        max_leaves=8,
    )


def ad_dicts(
    times: bool = True, control: bool = True, reals: st.SearchStrategy[float] = ALL_REALS
) -> st.SearchStrategy[ClassAd]:
    attrs = st.dictionaries(st.sampled_from(NAMES), values(times, control, reals), max_size=6)
    return attrs.map(ClassAd)


@settings(max_examples=EXAMPLES, deadline=None)
@given(ad_dicts())
def test_json_gives_back_the_same_ad(ad):
    obj = ad_to_json(ad)
    assert ad_from_json(obj) == ad
    back = ad_from_json(json.loads(json.dumps(obj)))  # as it crosses the API
    assert back == ad
    assert _exact(back) == _exact(ad)  # reals to the last bit (== compares printed text)
    assert [back.spelling(n) for n in ad] == list(ad)  # names as spelled


def _exact(ad: ClassAd) -> dict[str, object]:
    return {key: _bits(expr.node) for key, expr in ad._exprs.items()}


def _bits(node: Node) -> object:
    if isinstance(node, Literal) and type(node.value) is float and math.isfinite(node.value):
        return node.value.hex()  # otherwise real("INF"), a literal or a call, as printed
    if isinstance(node, AdLit):
        return [(name, _bits(value)) for name, value in node.attrs]
    if isinstance(node, ListLit):
        return [_bits(item) for item in node.items]
    return str(Expr._from_node(node))


@settings(
    max_examples=EXAMPLES * 6 // 10, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(ads(SAFE, depth=1, size=4))
def test_generated_ads_come_back_from_json(text):
    """Expressions as the parser makes them; compared after one print-and-parse, which
    may fold a tree (``- 276`` prints as `` -276``, read back as the literal -276)."""
    try:
        ad = ClassAd(text)
    except ClassAdSyntaxError:
        assume(False)
    assume(all(not_a_marker(v) for v in _strings(ad)))
    back = ad_from_json(json.loads(json.dumps(ad_to_json(ad))))
    assert [n.lower() for n in back] == [n.lower() for n in ad]
    for name in ad:
        assert _normal(back.lookup(name)) == _normal(ad.lookup(name)), name


def _normal(expr: Expr) -> str:
    return str(Expr(str(Expr(str(expr)))))


def _strings(ad: ClassAd) -> list[str]:
    return [v for v in (ad.get(n) for n in ad) if isinstance(v, str)]


@settings(max_examples=EXAMPLES * 6 // 10, deadline=None)
@given(ad_dicts())
def test_the_objects_are_those_of_the_json_file_form(ad):
    obj = ad_to_json(ad)
    assert json.loads(write_json(ad)) == _json_equal(obj)
    assert parse_ad(write_json(ad), fmt="json") == ad_from_json(obj) == ad
    assert parse_ad(json.dumps(obj), fmt="json") == ad


def test_reals_inside_lists_and_ads_are_json_numbers():
    ad = ClassAd({"l": [0.30000000000000004, 1], "n": {"r": 2.5, "m": 1.7976931348623155e308}})
    expected = {"l": [0.30000000000000004, 1], "n": {"r": 2.5, "m": 1.7976931348623155e308}}
    assert ad_to_json(ad) == expected == json.loads(write_json(ad))
    assert _exact(ad_from_json(ad_to_json(ad))) == _exact(ad)


def _json_equal(obj: object) -> object:
    """NaN is not equal to itself; JSON objects with NaN compare by their text."""
    if isinstance(obj, float) and math.isnan(obj):
        return "nan"
    if isinstance(obj, dict):
        return {k: _json_equal(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_json_equal(v) for v in obj]
    return obj


def test_values_take_htcondors_json_shapes():
    ad = ClassAd(
        '[i = 3; r = 2.5; b = true; s = "é\\"x"; u = undefined; l = {1, "a", x};'
        ' n = [p = 1; q = r]; e = a + 1; err = error; inf = real("INF");'
        ' t = absTime("2004-01-01T10:20:30+05:30"); d = relTime("1:00")]'
    )
    assert ad_to_json(ad) == {
        "i": 3,
        "r": 2.5,
        "b": True,
        "s": 'é"x',
        "u": None,
        "l": [1, "a", "/Expr(x)/"],
        "n": {"p": 1, "q": "/Expr(r)/"},
        "e": "/Expr(a + 1)/",
        "err": "/Expr(error)/",
        "inf": '/Expr(real("INF"))/',
        "t": '/Expr(absTime("2004-01-01T10:20:30+05:30"))/',
        "d": '/Expr(relTime("01:00"))/',
    }
    assert ad_to_json(ad, {"i", "e"}) == {"i": 3, "e": "/Expr(a + 1)/"}  # a projection
    assert str(expr_from_json(None)) == "undefined"  # null is UNDEFINED
    assert expr_from_json(["/Expr(1 + 1)/"]).eval() == [2]


# -- bad input ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("obj", "where", "expected"),
    [
        ([1, 2], "the ad", "the ad: expected a JSON object, not list"),
        ("text", "job 3.0", "job 3.0: expected a JSON object, not str"),
        ({"A": 1, "Req": (1, 2)}, "the ad", "the ad, attribute Req: a tuple is not"),
        ({"Nested": {"x": [1, {1, 2}]}}, "cluster 7", "cluster 7, attribute Nested: a set"),
        ({"Req": "/Expr(1 +)/"}, "the ad", "the ad, attribute Req: "),
        ({"L": [1, "/Expr(&& x)/"]}, "job 1.0", "job 1.0, attribute L: "),
        ({"M": {"k": "/Expr()/"}}, "the ad", "the ad, attribute M: "),
    ],
)
def test_bad_input_is_one_syntax_error_naming_the_attribute(obj, where, expected):
    with pytest.raises(ClassAdSyntaxError) as caught:
        ad_from_json(obj, where)
    assert caught.value.message.startswith(expected)


def test_a_json_error_prints_as_one_line():
    with pytest.raises(ClassAdSyntaxError) as caught:
        ad_from_json({"Req": "/Expr(1 +)/"}, "job 1.0")
    assert str(caught.value).startswith("job 1.0, attribute Req: ")
    assert "\n" not in str(caught.value)


def test_a_string_that_looks_like_an_expression_stays_a_string():
    ad = ClassAd({"Args": "/Expr(1 + 1)/"})
    assert ad_from_json(json.loads(json.dumps(ad_to_json(ad)))) == ad


def test_integers_beyond_64_bits_read_as_the_parser_reads_them():
    assert ad_from_json({"b": 10**20})["b"] == ClassAd("[b = 100000000000000000000]")["b"] == 0


def test_ads_of_one_shape_keep_their_own_values_and_types():
    """Ads of the same names share the shape worked out once and each value's expression:
    equal values of other types (1, true, 1.0; 0.0 and -0.0) stay apart, a name given
    twice keeps its first spelling and its last value, as an ad read attribute by
    attribute does."""
    rows = [(1, True, 1.0, 0.0), (True, 1, -0.0, 1.0), (1.0, 0.0, 1, True)]
    for row in rows * 2:
        ad = ad_from_json(dict(zip(("A", "b", "C", "d"), row, strict=True)))
        assert [type(ad[n]) for n in "AbCd"] == [type(v) for v in row]
        assert _exact(ad) == _exact(ClassAd(dict(zip("abcd", row, strict=True))))
    twice = ad_from_json({"Mem": 1, "mem": 2, "MEM": 3})
    assert twice["mem"] == 3 and list(twice) == ["Mem"]
    nan = ad_from_json({"x": math.nan})["x"]
    assert math.isnan(nan)
    with pytest.raises(ClassAdSyntaxError, match="the ad, attribute Req: "):
        ad_from_json({"A": 1, "Req": "/Expr(1 +)/"})  # the same shape, a value that fails


def test_a_quoted_name_after_a_scope_comes_back():
    ad = ClassAd("[r = TARGET.'a b' > 1; s = x.'true']")
    assert ad_from_json(ad_to_json(ad)) == ad


# -- classad2 as the oracle -------------------------------------------------------------
@needs_oracle
@settings(
    max_examples=EXAMPLES * 6 // 10, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(ad_dicts(times=True, control=False, reals=SHORT_REALS))
def test_classad2_reads_our_json_as_the_same_ad(ad):
    assume(len(ad) > 0)  # classad2 reads "{}" as no ad at all
    text = json.dumps(ad_to_json(ad), ensure_ascii=False)
    text = text.replace('"/Expr(', '"\\/Expr(').replace(')/"', ')\\/"')  # the file form
    answer = json_oracle().read(write_new(ad), text)
    assert "error" not in answer, answer
    assert answer["same"], answer["read"]


@needs_oracle
@settings(
    max_examples=EXAMPLES * 6 // 10, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(ad_dicts(times=False, control=False, reals=SHORT_REALS))
def test_we_read_classad2s_json_as_the_same_ad(ad):
    """classad2 writes a relative time as a plain real (no type), so no times here; it
    orders a nested ad's attributes its own way."""
    answer = json_oracle().write(write_new(ad))
    assert "error" not in answer, answer
    back = ad_from_json(json.loads(answer["json"]))
    assert {n.lower(): _tree(back.lookup(n).node) for n in back} == {
        n.lower(): _tree(ad.lookup(n).node) for n in ad
    }


def _tree(node: Node) -> object:
    """An expression with nested ads as mappings (attribute order does not matter)."""
    if isinstance(node, AdLit):
        return {name.lower(): _tree(value) for name, value in node.attrs}
    if isinstance(node, ListLit):
        return [_tree(item) for item in node.items]
    return str(Expr._from_node(node))
