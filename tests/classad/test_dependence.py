"""own_only: what an expression may read, from its tree (classad/dependence.py)."""

import pytest

from fairpool.classad import ClassAd, Expr
from fairpool.classad.dependence import own_only

JOB = ClassAd(
    {
        "RequestMemory": 128,
        "TransferInputSizeMB": 0,
        "RequestDisk": Expr("MAX({1024, (TransferInputSizeMB + 1) * 1.25}) * 1024"),
        "Loop": Expr("Loop + 1"),
        "Later": Expr("CurrentTime + 60"),
    }
)


@pytest.mark.parametrize(
    ("text", "matched", "alone"),
    [
        ("RequestDisk", True, True),  # followed into the job's own expression
        ("MY.RequestMemory * 2", True, True),
        ("MY.Missing", True, True),  # UNDEFINED either way
        ("Missing", False, True),  # matched: the other ad's; alone: UNDEFINED
        ("TARGET.Memory >= RequestMemory", False, False),
        ("Later", True, False),  # the clock: fixed within one match, moves between cycles
        ("time()", True, False),
        ("random(10)", False, False),  # impure
        ('eval("RequestMemory")', False, False),
        ("Loop", False, False),  # circular: left to the evaluator
        ("{1, RequestMemory}[0]", False, False),  # subscripts are not followed
        ("ifThenElse(RequestMemory > 100, 1, 2)", True, True),
    ],
)
def test_own_only(text, matched, alone):
    node = Expr(text).node
    assert own_only(node, JOB, other=True, clock=False) is matched
    assert own_only(node, JOB, other=False, clock=True) is alone
