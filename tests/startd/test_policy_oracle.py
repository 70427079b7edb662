"""The seed's default policy as fairpool evaluates it, against HTCondor's ClassAd library
(classad2, test-only oracle): 400 machine/job states drawn at random, every policy
expression of startd.md §10.2 evaluated in the slot ad matched against the job (as TRUE,
FALSE, UNDEFINED or ERROR). classad2 runs in a subprocess (a crash there must not take the
test session with it)."""

import importlib.util
import json
import random
import subprocess
import sys

import pytest

from fairpool.classad import UNDEFINED, ClassAd, Error
from fairpool.classad.match import evaluate_attribute
from fairpool.startd.policy import StartdPolicy

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("classad2") is None, reason="classad2 (htcondor wheel) missing"
)
NAMES = [
    "START",
    "IsOwner",
    "WANT_SUSPEND",
    "WANT_VACATE",
    "SUSPEND",
    "CONTINUE",
    "PREEMPT",
    "KILL",
    "PERIODIC_CHECKPOINT",
    "CpuBusy",
]
# Importing htcondor2 puts classad2 in the old-ClassAd mode HTCondor's daemons use, where
# an unscoped name missing from MY is looked up in TARGET (startd.md §1.5).
ORACLE = """
import json, sys
import htcondor2, classad2
out = []
for case in json.loads(sys.stdin.read()):
    slot = classad2.ClassAd()
    for name, value in case["slot"].items():
        slot[name] = value
    for name, text in case["policy"].items():
        slot[name] = classad2.ExprTree(text)
    job = classad2.ClassAd()
    for name, value in case["job"].items():
        job[name] = value
    row = {}
    for name in case["names"]:
        value = slot.lookup(name).eval(slot, job)
        if isinstance(value, bool):
            row[name] = str(value).lower()
        elif value is classad2.Value.Undefined:
            row[name] = "undefined"
        elif value is classad2.Value.Error:
            row[name] = "error"
        else:
            row[name] = "other"
    out.append(row)
print(json.dumps(out))
"""


def cases(n=400, seed=4):
    rng = random.Random(seed)
    now = 100000
    for _ in range(n):
        slot = {
            "CurrentTime": now,
            "KeyboardIdle": rng.choice([0, 34, 59, 60, 299, 301, 900, 901, 5000]),
            "LoadAvg": rng.choice([0.0, 0.3, 0.31, 0.5, 1.2]),
            "CondorLoadAvg": rng.choice([0.0, 0.0, 0.7]),
            "CpuBusyTime": rng.choice([0, 120, 121, 500]),
            "EnteredCurrentActivity": now - rng.choice([5, 10, 11, 600, 601, 5000]),
            "Activity": rng.choice(["Idle", "Busy", "Suspended", "Vacating"]),
            "State": rng.choice(["Owner", "Unclaimed", "Claimed", "Preempting"]),
        }
        if rng.random() < 0.8:
            slot["JobStart"] = now - rng.choice([30, 90, 91, 600, 601, 50000])
        if rng.random() < 0.7:
            slot["LastPeriodicCheckpoint"] = now - rng.choice([21600, 21601, 43201])
        job = {"Owner": rng.choice(["alice", "coltrane"])}
        if rng.random() < 0.9:
            job["JobUniverse"] = rng.choice([1, 4, 5])
        if rng.random() < 0.8:
            job["ImageSize"] = rng.choice([10000, 15360, 20000, 70000])
        yield slot, job


def kind(value) -> str:
    if value is True or value is False:
        return str(value).lower()
    if value is UNDEFINED:
        return "undefined"
    return "error" if isinstance(value, Error) else "other"


def test_the_seed_policy_agrees_with_classad2():
    policy = StartdPolicy.from_knobs({})
    texts = {name: policy.text(name) for name in NAMES}
    drawn = list(cases())
    request = [{"slot": s, "job": j, "policy": texts, "names": NAMES} for s, j in drawn]
    done = subprocess.run(
        [sys.executable, "-c", ORACLE],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    expected = json.loads(done.stdout)
    mismatches = []
    for (slot, job), want in zip(drawn, expected, strict=True):
        ad = ClassAd(slot)
        for name, expr in policy.expressions.items():
            ad[name] = expr
        for name in NAMES:
            got = kind(evaluate_attribute(ad, name, ClassAd(job), now=slot["CurrentTime"]))
            if got != want[name]:
                mismatches.append((name, slot, job, got, want[name]))
    assert mismatches == []
    # the draw reaches every outcome, so agreeing means something
    assert {v for row in expected for v in row.values()} >= {"true", "false", "undefined"}
