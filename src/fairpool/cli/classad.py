"""``fairpool classad``: evaluate and match ClassAds from the command line.

``fairpool classad eval EXPR... [-my FILE] [-target FILE]`` works like HTCondor's
classad_eval: each expression is evaluated in the context of the MY ad (and matched
against the TARGET ad) and its value printed. ``--jsonl`` reads conformance cases
(``{"id", "expr", "my", "target", "kind"}``) on standard input and writes one
``{"id", "got"}`` line per case.
"""

from __future__ import annotations

import json
import sys
import time

import click

from ..classad import ClassAd, Expr, parse_ad, symmetric_match
from ..classad.ad import new_state
from ..classad.canonical import canonical
from ..classad.conformance import EVALUATORS, run_line
from ..errors import ClassAdSyntaxError, InputError
from .errors import fail

__all__ = ["classad"]


@click.group()
def classad() -> None:
    """Evaluate ClassAd expressions and match ads (HTCondor's classad_eval)."""


def _load_ad(path: str | None) -> ClassAd | None:
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            return parse_ad(handle, name=path)
    except OSError as err:
        fail(f"{path}: {err.strerror}")
    except ClassAdSyntaxError as err:
        fail(str(err))
    return None


@classad.command("eval")
@click.argument("expressions", nargs=-1)
@click.option("-my", "--my", "my_file", metavar="FILE", help="The MY ad (old, new or JSON syntax).")
@click.option(
    "-target", "--target", "target_file", metavar="FILE", help="The TARGET ad to match against."
)
@click.option(
    "--jsonl", is_flag=True, help="Batch mode: conformance cases on stdin, results on stdout."
)
@click.option(
    "--evaluator",
    type=click.Choice(sorted(EVALUATORS)),
    default="compiled",
    show_default=True,
    help="The compiled fast path or the reference interpreter.",
)
def eval_command(
    expressions: tuple[str, ...],
    my_file: str | None,
    target_file: str | None,
    jsonl: bool,
    evaluator: str,
) -> None:
    """Evaluate EXPRESSIONS in the MY ad, against the TARGET ad, and print each value."""
    if jsonl:
        _run_jsonl(evaluator)
        return
    if not expressions:
        fail("give at least one expression (or --jsonl)")
    my, target = _load_ad(my_file), _load_ad(target_file)
    if target is not None and my is None:
        my = ClassAd()
    run = EVALUATORS[evaluator]
    for text in expressions:
        try:
            expr = Expr(text)
        except ClassAdSyntaxError as err:
            fail(f"<expression>:{err}")
        st = new_state(run, my, target, time.time())
        click.echo(canonical(run(expr.node, st), st))


def _run_jsonl(evaluator: str) -> None:
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        out.write(json.dumps(run_line(line, evaluator)) + "\n")


@classad.command("match")
@click.argument("job_file", metavar="JOBS")
@click.argument("slot_file", metavar="SLOTS")
def match_command(job_file: str, slot_file: str) -> None:
    """Print, for each job ad in JOBS, the slot ads in SLOTS it matches both ways."""
    jobs, slots = _load_all(job_file), _load_all(slot_file)
    now = time.time()
    for job in jobs:
        name = _label(job, ("GlobalJobId", "ClusterId"))
        matched = [_label(s, ("Name",)) for s in slots if symmetric_match(job, s, now=now)]
        click.echo(f"{name}: {len(matched)} of {len(slots)} slots match")
        for slot_name in matched:
            click.echo(f"  {slot_name}")


def _load_all(path: str) -> list[ClassAd]:
    from ..sim.inputs import read_ads

    try:
        return read_ads(path)
    except (InputError, ClassAdSyntaxError) as err:
        fail(str(err))
    return []


def _label(ad: ClassAd, names: tuple[str, ...]) -> str:
    for name in names:
        if name in ad:
            value = ad.eval(name)
            if name == "ClusterId" and "ProcId" in ad:
                return f"{value}.{ad.eval('ProcId')}"
            return str(value)
    return "<unnamed>"
