"""The vector evaluator gives, cell for cell, what the compiled and interpreted scalar
evaluators give, and what classad2 gives: generated expressions over generated slot
columns (mixed types, UNDEFINED and ERROR cells, missing attributes, attributes that are
expressions, circular references), with the slot as MY and with the job as MY."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st
from tests.classad.oracle import AVAILABLE, oracle
from tests.classad.strategies import SAFE, Grammar, ads, expressions, match_ads
from tests.classad.test_differential import MAX_NESTING, _nesting, _too_deep

from fairpool.classad import ClassAd, ClassAdSyntaxError, Expr
from fairpool.classad.ad import new_state
from fairpool.classad.canonical import canonical
from fairpool.classad.conformance import CASE_NOW, EVALUATORS
from fairpool.classad.match import evaluate, evaluate_attribute, satisfied, symmetric_match
from fairpool.classad.vector.cells import value_at
from fairpool.classad.vector.evaluate import VectorMatch
from fairpool.classad.vector.table import SlotColumns

EXAMPLES = settings.default.max_examples
INSIDE = Grammar().inside_ad()

# Typed cells: every kind a slot column holds, as attribute text.
_CELLS = st.one_of(
    st.integers(-(2**63), 2**63 - 1).map(str),
    st.sampled_from(("0", "1", "-1", "2", "7", "1024", "-9223372036854775808")),
    st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr),
    st.sampled_from(("0.0", "-0.0", "2.5", "1e308", 'real("NaN")', 'real("INF")')),
    st.sampled_from(('"x86_64"', '"X86_64"', '"LINUX"', '"linux"', '""', '"b"', '"B"')),
    st.sampled_from(("true", "false", "undefined", "error", "{1, 2}", "[q = 1]")),
    st.sampled_from(("a + 1", "Cpus * 2", "TARGET.x", "MY.b ?: c", "a", "y > 3")),
)
_COLUMN_NAMES = ("a", "b", "c", "x", "y", "Memory", "Cpus", "CurrentTime")


@st.composite
def slot_rows(draw: st.DrawFn, typed: bool, names: tuple[str, ...] = _COLUMN_NAMES) -> list[str]:
    """2-6 slot ads: typed cells (or generated expressions), some attributes missing."""
    if not typed:
        return draw(st.lists(ads(SAFE, 2, 5), min_size=2, max_size=6))
    rows = []
    for _ in range(draw(st.integers(2, 6))):
        chosen = draw(st.lists(st.sampled_from(names), unique=True, max_size=7))
        rows.append("[" + "; ".join(f"{n} = {draw(_CELLS)}" for n in chosen) + "]")
    return rows


_TYPED_EXPRESSIONS = st.one_of(
    st.builds(
        lambda a, op, b: f"{a} {op} {b}",
        st.sampled_from(("a", "b", "MY.c", "TARGET.x", "y", "Memory", "Cpus", "z", "CurrentTime")),
        st.sampled_from(("+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "=?=", "=!=")),
        st.one_of(st.sampled_from(("a", "x", "c", "TARGET.Cpus", "MY.y")), _CELLS),
    ),
    st.builds(
        lambda a, b, c: f"ifThenElse({a}, {b}, {c}) && ({b} || !{c})",
        st.sampled_from(("a", "x > 1", "isUndefined(c)", "y =?= 2")),
        st.sampled_from(("b", "true", "Cpus > 0", "isString(x)")),
        st.sampled_from(("c", "false", "undefined", "-y", "a ?: 0")),
    ),
)


def _ads(texts: list[str]) -> list[ClassAd] | None:
    try:
        return [ClassAd(t) for t in texts]
    except ClassAdSyntaxError:
        return None


def _text(value, my, target) -> str:
    return canonical(value, new_state(EVALUATORS["compiled"], my, target, CASE_NOW))


def _check(expr_text: str, slot_texts: list[str], job_texts: list[str]) -> None:
    """Every job in turn against the same columns (so values kept from one job's
    evaluation are reused for the next), first on the odd rows, then on all rows."""
    note(f"expr = {expr_text!r}\nslots = {slot_texts!r}\njobs = {job_texts!r}")
    try:
        expr = Expr(expr_text)
    except ClassAdSyntaxError:
        assume(False)
    slots, jobs = _ads(slot_texts), _ads(job_texts)
    assume(slots is not None and jobs is not None)
    columns = SlotColumns(slots)
    everything = np.arange(len(slots))
    for job, my_is_slot, rows in itertools.product(
        jobs, (True, False), (everything[1::2], everything)
    ):
        got = VectorMatch(columns, job, now=CASE_NOW).expression(expr, rows, my_is_slot=my_is_slot)
        for k, row in enumerate(rows):
            slot = slots[row]
            my, target = (slot, job) if my_is_slot else (job, slot)
            vector = _text(value_at(got, k, columns.strings), my, target)
            for name, run in EVALUATORS.items():
                want = _text(evaluate(expr, my, target, now=CASE_NOW, run=run), my, target)
                assert vector == want, (
                    f"row {row}, my_is_slot={my_is_slot}: {vector} != {name} {want}"
                )


@settings(max_examples=EXAMPLES)
@given(_TYPED_EXPRESSIONS, slot_rows(True), st.lists(ads(INSIDE, 1, 4), min_size=1, max_size=3))
def test_typed_columns(expr, slots, jobs):
    _check(expr, slots, jobs)


@settings(max_examples=EXAMPLES)
@given(expressions(SAFE, 3), slot_rows(False), st.lists(ads(SAFE, 2, 4), min_size=1, max_size=3))
def test_generated_expressions(expr, slots, jobs):
    _check(expr.text, slots, jobs)


@settings(max_examples=EXAMPLES)
@given(st.lists(match_ads(), min_size=2, max_size=5), match_ads())
def test_requirements_both_ways(slot_texts, job_text):
    """Requirements of each side, as attributes of MY: the parts of a symmetric match."""
    slots, job = _ads(slot_texts), _ads([job_text])
    assume(slots is not None and job is not None)
    columns = SlotColumns(slots)
    vm = VectorMatch(columns, job[0], now=CASE_NOW)
    rows = np.arange(len(slots))
    of_slot = vm.attribute("Requirements", rows, my_is_slot=True)
    of_job = vm.attribute("Requirements", rows, my_is_slot=False)
    for k, slot in enumerate(slots):
        for got, my, target in ((of_slot, slot, job[0]), (of_job, job[0], slot)):
            want = evaluate_attribute(my, "Requirements", target, now=CASE_NOW)
            assert _text(value_at(got, k, columns.strings), my, target) == _text(want, my, target)
        both = symmetric_match(job[0], slot, now=CASE_NOW)
        vector_both = satisfied(value_at(of_job, k, columns.strings)) and satisfied(
            value_at(of_slot, k, columns.strings)
        )
        assert vector_both == both


@settings(max_examples=max(10, EXAMPLES // 4))
@given(
    st.one_of(_TYPED_EXPRESSIONS, expressions(SAFE, 2).map(lambda g: g.text)),
    slot_rows(True),
    ads(INSIDE, 1, 3),
)
def test_against_classad2(expr_text, slot_texts, job_text):
    """Row 0 with the slot as MY: the vector value is the value classad2 prints."""
    assume(AVAILABLE and "currenttime" not in expr_text.lower())
    slots, job = _ads(slot_texts[:1]), _ads([job_text])
    assume(slots is not None and job is not None)
    try:
        expr = Expr(expr_text)
    except ClassAdSyntaxError:
        assume(False)
    answer = oracle().value(expr_text, slot_texts[0], job_text)
    assume(answer.skip is None and answer.bad_ad is None and answer.value != "PARSE_ERROR")
    columns = SlotColumns(slots)
    got = VectorMatch(columns, job[0], now=CASE_NOW).expression(expr, np.arange(1), my_is_slot=True)
    vector = _text(value_at(got, 0, columns.strings), slots[0], job[0])
    case = {"expr": expr_text, "my": slot_texts[0], "target": job_text, "kind": "value"}
    if vector != answer.value:
        assume(not _too_deep(case) and _nesting(vector) <= MAX_NESTING)
    assert vector == answer.value


def test_circular_reference_is_left_to_the_scalar_path_and_not_reused():
    """A circular reference sends the evaluation to the scalar path, whose reads of the
    job are not logged: the evaluation says it may not be reused for another job."""
    slots = [ClassAd(f"[Cpus = {k}; c = Cpus + TARGET.a]") for k in range(3)]
    job = ClassAd("[a = b; b = a + TARGET.Cpus; Requirements = TARGET.c > 0]")
    vm = VectorMatch(SlotColumns(slots), job, now=CASE_NOW)
    got = vm.attribute("Requirements", np.arange(3), my_is_slot=False)
    for k, slot in enumerate(slots):
        want = evaluate_attribute(job, "Requirements", slot, now=CASE_NOW)
        assert _text(value_at(got, k, vm.strings), job, slot) == _text(want, job, slot)
    assert vm.dynamic
