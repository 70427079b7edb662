"""The vector match lists decide as the scalar ones: random pools (free, claimed and
partitionable slots, consumption policies, slot RANKs, NaN and tied ranks, per-submitter
PREEMPTION_REQUIREMENTS) negotiated once with each evaluator give the same matches in
the same order, the same rejections and reasons, and the same usage."""

from __future__ import annotations

from dataclasses import asdict

from hypothesis import given, settings
from hypothesis import strategies as st

from fairpool.accounting.accountant import Accountant, AccountantPolicy
from fairpool.classad import ClassAd, Expr
from fairpool.negotiator import NegotiatorParams, PoolSnapshot, run_cycle
from fairpool.negotiator.vector_lists import VectorLists

NOW = 1_750_000_000.0
USERS = ("alice", "bob", "carol")
_STARTS = (
    "true",
    'TARGET.Owner != "bob"',
    "TARGET.RequestMemory <= Memory && Cpus >= TARGET.RequestCpus",
    "isUndefined(TARGET.Big) || TARGET.Big == false",
    "SubmitterUserPrio > 0.5 || TARGET.RequestCpus < 2",
    'stringListMember(TARGET.Owner, "alice,carol")',
)
_SLOT_RANKS = ("0", "TARGET.RequestMemory", 'TARGET.Owner == "carol"', 'real("NaN")', "Cpus")
_JOB_RANKS = ("0", "Memory", "-Cpus", "TARGET.Memory / (TARGET.Cpus - 2)", 'real("NaN")')
_PREEMPTION = (None, "RemoteUserPrio > SubmitterUserPrio", "TARGET.RequestCpus < 2")


@st.composite
def slot(draw: st.DrawFn, k: int) -> ClassAd:
    ad = ClassAd()
    ad["MyType"] = "Machine"
    ad["Name"] = f"slot{k}@host{k // 3}"
    ad["Machine"] = f"host{k // 3}"
    ad["SlotID"] = k % 3 + 1
    ad["Cpus"] = draw(st.sampled_from((1, 2, 4, 8)))
    ad["Memory"] = draw(st.sampled_from((512, 1024, 2048, 4096)))
    ad["Disk"] = 1_000_000
    ad["START"] = Expr(draw(st.sampled_from(_STARTS)))
    ad["Requirements"] = Expr("START")
    ad["Rank"] = Expr(draw(st.sampled_from(_SLOT_RANKS)))
    kind = draw(st.sampled_from(("free", "free", "claimed", "partitionable", "policy")))
    ad["State"], ad["Activity"] = (
        ("Claimed", "Busy") if kind == "claimed" else ("Unclaimed", "Idle")
    )
    if kind == "claimed":
        user = draw(st.sampled_from(USERS))
        ad["RemoteUser"] = ad["RemoteOwner"] = f"{user}@d"
        current = draw(st.sampled_from((0.0, 1.0, 1000.0, "Cpus * 300", "undefined")))
        ad["CurrentRank"] = Expr(current) if isinstance(current, str) else current
    if kind in ("partitionable", "policy"):
        ad["PartitionableSlot"] = True
    if kind == "policy":
        ad["MachineResources"] = "Cpus Memory"
        ad["ConsumptionCpus"] = Expr("TARGET.RequestCpus")
        ad["ConsumptionMemory"] = Expr("TARGET.RequestMemory")
    return ad


@st.composite
def jobs(draw: st.DrawFn) -> list[ClassAd]:
    out = []
    for cluster in range(draw(st.integers(1, 6))):
        template = ClassAd()
        template["MyType"] = "Job"
        template["JobStatus"] = 1
        template["Owner"] = draw(st.sampled_from(USERS))
        template["RequestCpus"] = draw(st.sampled_from((1, 2, 4)))
        template["RequestMemory"] = draw(st.sampled_from((256, 1024, 3000)))
        template["Requirements"] = Expr(
            draw(
                st.sampled_from(
                    (
                        "true",
                        "TARGET.Memory >= RequestMemory",
                        "TARGET.Cpus > 1 || MY.RequestCpus == 1",
                    )
                )
            )
        )
        template["Rank"] = Expr(draw(st.sampled_from(_JOB_RANKS)))
        if draw(st.booleans()):
            template["Big"] = True
        for proc in range(draw(st.integers(1, 4))):
            job = template.copy()
            job["ClusterId"], job["ProcId"] = cluster + 1, proc
            out.append(job)
    return out


@st.composite
def negotiator_params(draw: st.DrawFn) -> NegotiatorParams:
    """Preemption considered or not, under one of the PREEMPTION_REQUIREMENTS drawn from."""
    preemption = draw(st.sampled_from(_PREEMPTION))
    return NegotiatorParams(
        accounting_domain="d",
        consider_preemption=draw(st.booleans()),
        preemption_requirements=Expr(preemption) if preemption else None,
        preempt_on_better_priority_only=draw(st.booleans()),
    )


@st.composite
def pools(draw: st.DrawFn) -> tuple[list[ClassAd], list[ClassAd], NegotiatorParams]:
    slots = [draw(slot(k)) for k in range(draw(st.integers(1, 12)))]
    return slots, draw(jobs()), draw(negotiator_params())


def _decisions(slots, jobs_, params, evaluator: str) -> dict:
    accountant = Accountant(AccountantPolicy())
    for k, user in enumerate(USERS):
        accountant.set_factor(f"{user}@d", 1.0 + k)
    result = run_cycle(
        PoolSnapshot(slots, jobs_),
        accountant.view().__getitem__,
        params.with_(match_evaluator=evaluator),
        now=NOW,
    )
    return {
        "matches": [asdict(m) for m in result.matches],
        "rejections": [asdict(r) for r in result.rejections],
        "usage": {name: (u.count, u.weight) for name, u in result.usage.items()},
    }


@settings(max_examples=max(30, settings.default.max_examples // 2))
@given(pools(), st.sampled_from((0, 0, 4)))
def test_vector_and_scalar_decide_alike(pool, scalar_rows):
    """``scalar_rows``: the vector lists read this many free slots or fewer on the scalar
    path (0: never; these pools are small, so the default would always)."""
    slots, jobs_, params = pool
    default, VectorLists.scalar_rows = VectorLists.scalar_rows, scalar_rows
    try:
        vector = _decisions(slots, jobs_, params, "vector")
    finally:
        VectorLists.scalar_rows = default
    scalar = _decisions(slots, jobs_, params, "scalar")
    assert vector == scalar
