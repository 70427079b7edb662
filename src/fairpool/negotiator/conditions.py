"""The conditions of a job's Requirements against a set of slots: the clauses ``&&``
joins at the top and how many slots each holds for, alone and with the clauses before it.
``condor_q -better-analyze`` prints them as its conditions table (cli/listings/analysis.py),
and the simulator names the first clause no machine satisfies for jobs that can never run
(sim/unmatchable.py).

HTCondor numbers its analysis steps: clause 0 is ``[0]``, clause k is ``[2k-1]``, and
step ``[2k]`` is the clauses up to k together (``[2k-2] && [2k-1]``). A combined step is
given when it holds for fewer slots than each of its two parts (it tells something they
do not).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..classad import ClassAd, Expr
from ..classad.match import evaluate, satisfied
from ..classad.nodes import Binary, Node, Paren
from ..classad.unparse import unparse

__all__ = ["Step", "bare", "clauses", "is_and", "steps"]


@dataclass(frozen=True)
class Step:
    """A row of the conditions table: the step number, the slots it holds for, the text."""

    number: int
    matched: int
    condition: str


def clauses(requirements: Node) -> list[Node]:
    """The clauses ``&&`` joins at the top, also inside parentheses (``(a && b) && c``
    has three), each as written."""
    if is_and(bare(requirements)):
        node = bare(requirements)
        return [*clauses(node.left), *clauses(node.right)]
    return [requirements]


def steps(job: ClassAd, slots: Sequence[ClassAd], now: float) -> list[Step]:
    """The conditions table of ``job``'s Requirements against ``slots``."""
    if "Requirements" not in job:
        return []
    parts = clauses(job.lookup("Requirements").node)
    rows = []
    together: Node | None = None
    before = 0
    for index, part in enumerate(parts):
        step = 0 if index == 0 else 2 * index - 1
        alone = _count(part, job, slots, now)
        rows.append(Step(step, alone, unparse(bare(part), old=True)))
        if together is None:
            together, before = part, alone
            continue
        together = Binary("&&", together, part)
        both = _count(together, job, slots, now)
        if both < min(before, alone):
            earlier = 0 if index == 1 else 2 * index - 2
            rows.append(Step(2 * index, both, f"[{earlier}] && [{step}]"))
        before = both
    return rows


def _count(node: Node, job: ClassAd, slots: Sequence[ClassAd], now: float) -> int:
    expr = Expr(node)
    return sum(satisfied(evaluate(expr, job, slot, now=now)) for slot in slots)


def bare(node: Node) -> Node:
    while type(node) is Paren:
        node = node.inner
    return node


def is_and(node: Node) -> bool:
    return type(node) is Binary and node.op == "&&"
