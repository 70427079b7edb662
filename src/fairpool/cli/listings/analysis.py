"""condor_q -better-analyze for one job, as a pure function of the job, the slot ads and
what the negotiator last said about the job.

Sources (real output quoted in tests/cli/test_analysis.py): the condor_q manual
("Analyze"); HTCondor 8.8 output (2020, KISTI's user guide); HTCondor 23 output (2024,
the OSG school's "Why is my job idle" exercise, and a 2025 pool's output in a public
runbook); HTCondor's 2019 OSG exercise for the "Last failed match" lines.

* ``The Requirements expression for job C.PPP is`` and the expression, 4 blanks in,
  broken after a top-level ``&&`` where the next clause would pass the display width;
* ``Job C.PPP defines the following attributes:``: the job's own attributes the
  expression reads (directly or through each other), sorted, as written; a literal
  RequestDisk or RequestMemory is followed by its unit (``(kb)``, ``(mb)``, as 23.x does);
* ``... reduces to these conditions:`` and the ``Step / Slots Matched / Condition``
  table: one row per top-level ``&&`` clause with the number of slots it holds for.
  HTCondor numbers its analysis steps: clause 0 is ``[0]``, clause k is ``[2k-1]``, and
  step ``[2k]`` is the clauses up to k together (``[2k-2] && [2k-1]``). Which of those
  combined steps HTCondor prints is its own pruning; here a combined step is printed when
  it holds for fewer slots than each of its two parts (it tells something they do not);
* the job's state: running (``Last successful match``), held (``Hold reason``), or idle
  with the negotiator's last word (``Last failed match``, ``Reason for last match
  failure``, and for a limit what it means: the submitter's limit);
* ``C.PPP:  Run analysis summary ignoring user priority.  Of S slots on M machines,``
  then the slots the job's Requirements reject, those whose own Requirements reject the
  job, and those that match both ways (already running the submitter's jobs, serving
  other users, willing to run the job; the first two only when there are any);
* ``WARNING:  Be advised:`` when no slot satisfies the job's Requirements.

A partitionable slot is taken as it is advertised (HTCondor also tries it drained).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from ...classad import ClassAd
from ...classad.match import requirements_met
from ...classad.nodes import Literal, Node
from ...classad.refs import references
from ...classad.unparse import unparse
from ...negotiator.candidates import REJECT_LIMIT, REJECT_NO_MATCH, REJECT_POLICY
from ...negotiator.conditions import Step, clauses, is_and, steps
from ...schedd.queue import HELD, RUNNING
from .attributes import number, text

__all__ = ["LastWord", "Step", "better_analyze", "clauses", "last_word", "steps", "wrap"]

_UNITS = {"requestdisk": "kb", "requestmemory": "mb"}


@dataclass(frozen=True)
class LastWord:
    """What the negotiator's last cycles said about a job: when it last matched, when
    its autocluster was last turned down and why, and for which submitter."""

    matched: float | None = None
    rejected: float | None = None
    reason: str | None = None
    submitter: str | None = None


def last_word(cycles: Sequence[dict], schedd: str, job: str, autocluster: int | None) -> LastWord:
    """The newest match of ``job`` and the newest rejection of its autocluster at
    ``schedd`` in the negotiator's ``cycles`` (oldest first, as /negotiator/cycles gives
    them). A rejection names the autocluster's representative job, not this one."""
    matched = rejected = None
    reason = submitter = None
    for cycle in cycles:
        when = cycle.get("time")
        for match in cycle.get("matches", []):
            if match.get("schedd") == schedd and match.get("job") == job:
                matched = when
        for rejection in cycle.get("rejections", []):
            same = rejection.get("schedd") == schedd and autocluster is not None
            if same and rejection.get("autocluster") == autocluster:
                rejected, reason = when, rejection.get("reason")
                submitter = rejection.get("submitter")
    return LastWord(matched, rejected, reason, submitter)


def _and_chain(node: Node) -> list[Node]:
    """The clauses ``&&`` joins at the top, as the expression is written (for wrapping)."""
    if is_and(node):
        return [*_and_chain(node.left), *_and_chain(node.right)]
    return [node]


def wrap(pieces: Sequence[str], width: int) -> list[str]:
    """Top-level clauses (as written) joined by ``&&`` in lines of at most ``width``
    characters, 4 blanks in, each line but the last ending in ``&&``; a clause longer than
    a line stands on a line of its own."""
    lines: list[str] = []
    line = "    " + pieces[0]
    for index, piece in enumerate(pieces[1:], 1):
        after = len(" &&") if index < len(pieces) - 1 else 0
        if len(line) + len(" && ") + len(piece) + after > width:
            lines.append(line + " &&")
            line = "    " + piece
        else:
            line += " && " + piece
    return [*lines, line]


def better_analyze(
    job: ClassAd,
    slots: Sequence[ClassAd],
    *,
    now: float,
    word: LastWord,
    submitter: str,
    width: int = 80,
) -> str:
    """The analysis of one job (the ``-- Schedd:`` banner is the caller's)."""
    cluster = int(number(job, "ClusterId", now) or 0)
    proc = int(number(job, "ProcId", now) or 0)
    name, summary_name = f"{cluster}.{proc:03d}", f"{cluster:03d}.{proc:03d}"
    out: list[str] = []
    if "Requirements" in job:
        node = job.lookup("Requirements").node
        pieces = [unparse(c, old=True) for c in _and_chain(node)]
        out += [f"The Requirements expression for job {name} is", "", *wrap(pieces, width)]
        out.append("")
        attributes = _own_attributes(job)
        if attributes:
            out += [f"Job {name} defines the following attributes:", "", *attributes, ""]
        out += [f"The Requirements expression for job {name} reduces to these conditions:", ""]
        out += _table(steps(job, slots, now))
        out.append("")
    out += _state(job, word, summary_name, now)
    out += _summary(job, slots, submitter, summary_name, now)
    return "\n".join(out) + "\n"


# -- the parts ------------------------------------------------------------------------------
def _own_attributes(job: ClassAd) -> list[str]:
    found = references(job.lookup("Requirements").node, job).internal
    lines = []
    for attribute in sorted(found - {"Requirements"}, key=str.lower):
        node = job.lookup(attribute).node
        unit = _UNITS.get(attribute.lower())
        literal = type(node) is Literal and type(node.value) in (int, float)
        suffix = f" ({unit})" if unit and literal else ""
        lines.append(f"    {attribute} = {unparse(node, old=True)}{suffix}")
    return lines


def _table(rows: list[Step]) -> list[str]:
    lines = ["         Slots", "Step    Matched  Condition", "-----  --------  ---------"]
    return lines + [f"{f'[{r.number}]':<5}{r.matched:>10}  {r.condition}" for r in rows]


def _state(job: ClassAd, word: LastWord, name: str, now: float) -> list[str]:
    status = number(job, "JobStatus", now)
    matched = number(job, "LastMatchTime", now) or word.matched
    if status == RUNNING:
        lines = [f"{name}:  Job is running.", ""]
        return lines + ([f"Last successful match: {_ctime(matched)}", ""] if matched else [])
    if status == HELD:
        reason = text(job, "HoldReason", now) or ""
        return [f"{name}:  Request is held.", f"Hold reason: {reason}", ""]
    lines = [f"Last successful match: {_ctime(matched)}"] if matched else []
    lines = lines or ["No successful match recorded."]
    if word.rejected is not None:
        lines += [f"Last failed match: {_ctime(word.rejected)}", ""]
        lines.append(f"Reason for last match failure: {word.reason}")
        lines += _meaning(word)
    return [*lines, ""]


def _meaning(word: LastWord) -> list[str]:
    """What the negotiator's reason means for the job."""
    who = word.submitter or "the submitter"
    reason = word.reason or ""
    if reason == REJECT_LIMIT:
        return [
            f"    The negotiator stopped at the submitter's limit: {who} already has its share",
            "    of the pool (fair share, floor, ceiling or group quota); the job waits for that",
            "    share to grow or for the submitter's other jobs to finish.",
        ]
    if reason.startswith("concurrency limit"):
        return ["    A concurrency limit the job needs is in full use; the job waits for it."]
    if reason == REJECT_POLICY:
        return [
            "    The slots the job matches are busy, and PREEMPTION_REQUIREMENTS does not let",
            "    the job preempt them.",
        ]
    if reason == REJECT_NO_MATCH:
        return ["    No slot the negotiator could give matched the job."]
    return []


def _summary(
    job: ClassAd, slots: Sequence[ClassAd], submitter: str, name: str, now: float
) -> list[str]:
    rejected_by_job = rejected_by_slot = mine = others = willing = 0
    for slot in slots:
        if not requirements_met(job, slot, now=now):
            rejected_by_job += 1
        elif not requirements_met(slot, job, now=now):
            rejected_by_slot += 1
        elif text(slot, "State", now) == "Claimed":
            user = text(slot, "RemoteUser", now)
            mine, others = (mine + 1, others) if user == submitter else (mine, others + 1)
        else:
            willing += 1
    machines = len({text(s, "Machine", now) or text(s, "Name", now) for s in slots})
    lines = [
        f"{name}:  Run analysis summary ignoring user priority.  "
        f"Of {len(slots)} slots on {machines} machines,",
        f"  {rejected_by_job:5d} slots are rejected by your job's requirements",
        f"  {rejected_by_slot:5d} slots reject your job because of their own requirements",
    ]
    if mine:
        lines.append(f"  {mine:5d} slots match and are already running your jobs")
    if others:
        lines.append(f"  {others:5d} slots match but are serving other users")
    lines.append(f"  {willing:5d} slots match and are willing to run your job")
    if rejected_by_job == len(slots):
        lines += ["", "WARNING:  Be advised:", "   No machines matched the jobs's constraints"]
    return lines


def _ctime(when: float) -> str:
    """``Wed May 20 21:41:45 2020``, in UTC as every fairpool listing."""
    return time.asctime(time.gmtime(int(when)))
