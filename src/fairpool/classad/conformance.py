"""Running the ClassAd conformance format: one JSON case in, one JSON result out.

A case is ``{"id", "expr", "my", "target", "kind"}`` (the format of HTCondor's corpus,
spec/classad.md §1); the result is ``{"id", "got"}`` with ``got`` in canonical text, or
``PARSE_ERROR`` when the expression does not parse, or ``true``/``false`` of the symmetric
match for ``kind: "match"``.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import ClassAdSyntaxError
from . import compile as compiled_path
from . import interpret
from .ad import ClassAd, Expr, new_state
from .canonical import canonical
from .match import symmetric_match

__all__ = ["EVALUATORS", "evaluate_case", "run_line"]

EVALUATORS = {"compiled": compiled_path.run, "interpreted": interpret.run}
# A fixed clock: the corpus only compares time() with bounds that hold from 2001 to 2096.
CASE_NOW = 1_750_000_000


def evaluate_case(case: dict[str, Any], evaluator: str = "compiled") -> str:
    """The canonical result text of one case."""
    run = EVALUATORS[evaluator]
    my = ClassAd(case["my"]) if case.get("my") is not None else None
    target = ClassAd(case["target"]) if case.get("target") is not None else None
    if case.get("kind") == "match":
        assert my is not None and target is not None
        return "true" if symmetric_match(my, target, now=CASE_NOW, run=run) else "false"
    try:
        expr = Expr(case["expr"])
    except ClassAdSyntaxError:
        return "PARSE_ERROR"
    st = new_state(run, my, target, CASE_NOW)
    try:
        value = run(expr.node, st)
    except RecursionError:
        return "error"
    return canonical(value, st)


def run_line(line: str, evaluator: str = "compiled") -> dict[str, Any]:
    """One input line to one output object; bad input becomes an error entry."""
    try:
        case = json.loads(line)
    except json.JSONDecodeError as err:
        return {"id": None, "error": f"not JSON: {err.msg} at column {err.colno}"}
    if not isinstance(case, dict) or "expr" not in case:
        return {"id": None, "error": "expected an object with 'id' and 'expr'"}
    try:
        return {"id": case.get("id"), "got": evaluate_case(case, evaluator)}
    except ClassAdSyntaxError as err:
        return {
            "id": case.get("id"),
            "error": f"bad ad: {err.message} (line {err.line}, column {err.column})",
        }
