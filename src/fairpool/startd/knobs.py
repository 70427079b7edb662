"""Every startd knob fairpool honours, with its default in each profile.

The SEED defaults are the seed's default policy (seed 004 §3.6.9.1) with its macros
expanded as HTCondor expands them, textually and without added parentheses (spec
startd.md §10.2); ``SmallJob``, ``IsPVM`` and ``IsVanilla``, which the seed uses but never
lists, come from the 6.6 ``condor_config.generic``. The MODERN defaults are current
HTCondor's built-in ones (startd.md §10.5). A knob whose default is None is unset.

``attribute`` names the slot-ad attribute a policy expression is copied into, so that the
expressions can refer to each other by name (PREEMPT reads ``SUSPEND`` and
``WANT_SUSPEND``), as the startd's ``init_config_classad`` does.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KNOBS", "POLICY_EXPRESSIONS", "SEED_POLICY", "Knob"]

# Seed 004 §3.6.9.1, expanded (startd.md §10.2).
SEED_POLICY: dict[str, str] = {
    "START": (
        "( (KeyboardIdle > 15 * 60) && ( (LoadAvg - CondorLoadAvg) <= 0.3 || "
        '(State != "Unclaimed" && State != "Owner")) )'
    ),
    "WANT_SUSPEND": (
        "( (TARGET.ImageSize < (15 * 1024)) || (KeyboardIdle < 60 == False) || "
        "(TARGET.JobUniverse == 4) || (TARGET.JobUniverse == 5) )"
    ),
    "WANT_VACATE": (
        "( (CurrentTime - JobStart) > 10 * 60 || (TARGET.JobUniverse == 4) || "
        "(TARGET.JobUniverse == 5) )"
    ),
    "SUSPEND": (
        "( KeyboardIdle < 60 || ( (CpuBusyTime > 2 * 60) && (CurrentTime - JobStart) > 90 ) )"
    ),
    "CONTINUE": (
        "( (LoadAvg - CondorLoadAvg) <= 0.3 && ((CurrentTime - EnteredCurrentActivity) > 10) "
        "&& (KeyboardIdle > 5 * 60) )"
    ),
    "PREEMPT": (
        '( ((Activity == "Suspended") && ((CurrentTime - EnteredCurrentActivity) > 10 * 60)) '
        "|| (SUSPEND && (WANT_SUSPEND == False)) )"
    ),
    "KILL": "(CurrentTime - EnteredCurrentActivity) > 10 * 60",
    "PERIODIC_CHECKPOINT": (
        "( (ImageSize < 60000) && ((CurrentTime - LastPeriodicCheckpoint) > (6 * (60 * 60))) ) "
        "|| ( (CurrentTime - LastPeriodicCheckpoint) > (12 * (60 * 60)) )"
    ),
    "CpuBusy": "(LoadAvg - CondorLoadAvg) >= 0.5",
}

# The policy expressions and the slot-ad attribute each is copied into.
POLICY_EXPRESSIONS: dict[str, str] = {
    "START": "START",
    "IS_OWNER": "IsOwner",
    "RANK": "Rank",
    "SUSPEND": "SUSPEND",
    "CONTINUE": "CONTINUE",
    "PREEMPT": "PREEMPT",
    "KILL": "KILL",
    "WANT_SUSPEND": "WANT_SUSPEND",
    "WANT_VACATE": "WANT_VACATE",
    **{f"{n}_VANILLA": f"{n}_VANILLA" for n in ("SUSPEND", "CONTINUE", "PREEMPT", "KILL")},
    "WANT_SUSPEND_VANILLA": "WANT_SUSPEND_VANILLA",
    "WANT_VACATE_VANILLA": "WANT_VACATE_VANILLA",
    "PERIODIC_CHECKPOINT": "PERIODIC_CHECKPOINT",
    "RunBenchmarks": "RunBenchmarks",
    "CpuBusy": "CpuBusy",
    "MaxJobRetirementTime": "MaxJobRetirementTime",
    "MachineMaxVacateTime": "MachineMaxVacateTime",
    "SLOT_WEIGHT": "SlotWeight",
}


@dataclass(frozen=True)
class Knob:
    """One knob: its kind (expr, int, float, bool, list), defaults, and what it does."""

    name: str
    kind: str
    seed: str | None
    modern: str | None
    doc: str
    aliases: tuple[str, ...] = ()


_MODERN_POLICY = {
    "START": "True",
    "SUSPEND": "False",
    "CONTINUE": "True",
    "PREEMPT": "False",
    "KILL": "False",
    "WANT_SUSPEND": "False",
    "WANT_VACATE": "True",
    "PERIODIC_CHECKPOINT": "False",
    "CpuBusy": "False",
}


def _policy(name: str, doc: str) -> Knob:
    return Knob(name, "expr", SEED_POLICY.get(name), _MODERN_POLICY.get(name), doc)


KNOBS: tuple[Knob, ...] = (
    _policy("START", "when the slot is willing to start a job; Requirements is built on it"),
    Knob(
        "IS_OWNER",
        "expr",
        "(START =?= False)",
        "False",
        "TRUE keeps the slot in the Owner state",
        ("IsOwner",),
    ),
    Knob("RANK", "expr", "0", "0", "how much the slot prefers a job (CurrentRank)"),
    _policy("SUSPEND", "suspend the job (if WANT_SUSPEND)"),
    _policy("CONTINUE", "resume a suspended job"),
    _policy("PREEMPT", "evict the job (if not WANT_SUSPEND, or while suspended)"),
    _policy("KILL", "hard-kill a job that is vacating"),
    _policy("WANT_SUSPEND", "consider SUSPEND rather than PREEMPT"),
    _policy("WANT_VACATE", "vacate (soft kill) rather than kill on preemption"),
    *(
        Knob(f"{n}_VANILLA", "expr", None, None, f"{n} for vanilla-universe jobs")
        for n in ("SUSPEND", "CONTINUE", "PREEMPT", "KILL", "WANT_SUSPEND", "WANT_VACATE")
    ),
    _policy("PERIODIC_CHECKPOINT", "checkpoint a standard-universe job now"),
    Knob("RunBenchmarks", "expr", None, None, "run benchmarks (Unclaimed)"),
    Knob("CpuBusy", "expr", SEED_POLICY["CpuBusy"], "False", "drives CpuBusyTime"),
    Knob("MaxJobRetirementTime", "expr", None, None, "seconds a job may retire before eviction"),
    Knob("MachineMaxVacateTime", "expr", "600", "600", "seconds a job may take to vacate"),
    Knob("CLAIM_WORKLIFE", "int", None, "1200", "seconds a claim may start new jobs"),
    Knob("SLOT_WEIGHT", "expr", "Cpus", "Cpus", "the slot's weight (SlotWeight)"),
    Knob("MATCH_TIMEOUT", "int", "300", "120", "seconds in Matched before giving up (DIV-5)"),
    Knob("KILLING_TIMEOUT", "int", "30", "30", "seconds in Killing before SIGKILL"),
    Knob("POLLING_INTERVAL", "int", "5", "5", "seconds between passes while claimed"),
    Knob("UPDATE_INTERVAL", "int", "300", "300", "seconds between passes otherwise"),
    *(
        Knob(
            f"MODIFY_REQUEST_EXPR_REQUEST{r.upper()}",
            "expr",
            f"quantize(Request{r},{{{q}}})",
            f"quantize(Request{r},{{{q}}})",
            f"rounds Request{r} when a dynamic slot is carved",
        )
        for r, q in (("Cpus", "1"), ("Memory", "128"), ("Disk", "1024"))
    ),
    Knob("DEFAULT_DRAINING_START_EXPR", "expr", None, None, "START while draining"),
    Knob("MATCHED_CHECKS_START", "bool", "True", "False", "DIV-1"),
    Knob("STALE_AD_IN_ENTER_ACTION", "bool", "True", "True", "DIV-10"),
    Knob("UNCLAIMED_CURRENT_RANK", "float", "-1.0", "0.0", "DIV-8"),
    Knob("STARTD_ATTRS", "list", None, None, "more knobs to copy into the slot ad"),
    Knob("STARTD_EXPRS", "list", None, None, "the same, the older name"),
)
