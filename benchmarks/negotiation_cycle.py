"""Negotiation cycle time on synthetic pools shaped like the OSPool sample.

Slots are copies of the sample's 143 Machine ads (16 partitionable slots, 116 dynamic and
11 static ones, claimed as in the sample) with their real START, Requirements, Rank and
WithinResourceLimits, each keeping the attributes its expressions and the negotiator reach
(the sample's other ~700 monitoring attributes are left out, so that 100,000 slots fit in
memory); names, machines and memory vary from copy to copy. Jobs come in autoclusters of
distinct (cpus, memory, disk, requirements) requests, spread over submitters in a
three-level group tree with dynamic quotas and surplus sharing.

The jobs go into a schedd's queue (schedd/queue.py with its AutoclusterIndex, as the live
schedd and the simulator keep them) before the clock starts: a pool's schedd groups jobs
into autoclusters as they are submitted, not at each cycle, so that grouping is timed on
its own ("queue": adding every job and grouping it the first time). The cycle is then what
a negotiation cycle costs in the pool: the significant attributes read from the slots,
the schedd's resource requests (one per autocluster, with its jobs read in schedd order
as far as matches reach, as the simulator asks for them) and ``run_cycle``.

Each measurement runs in a fresh process (its peak memory is that process's maximum
resident set) and reports the cycle time (wall, and the process's CPU time), matches and
matches per second. The scaling
curve runs the vector evaluator at 10k and 100k slots with 500 and 5,000 autoclusters;
the smaller sizes also run the scalar evaluator, and the ratio is printed.

Run: ``python benchmarks/negotiation_cycle.py`` (curve), ``--headline`` (100,000 slots,
1,000,000 jobs in 5,000 autoclusters, 1,000 submitters, without and with preemption),
``--one SLOTS AUTOCLUSTERS JOBS SUBMITTERS EVALUATOR PREEMPTION`` (one measurement).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from fairpool.accounting.accountant import Accountant, AccountantPolicy
from fairpool.classad import ClassAd, Expr, parse_ads
from fairpool.classad.nodes import AttrRef, children
from fairpool.negotiator import NegotiatorParams, PoolSnapshot, run_cycle, significant_of
from fairpool.negotiator.groups import GroupConfig
from fairpool.schedd.autoclusters import AutoclusterIndex
from fairpool.schedd.queue import JobQueue

SAMPLE = Path(__file__).parent.parent / "tests" / "data" / "ads" / "ospool" / "pool_sample.ads.gz"
SAMPLE_TIME = 1_783_286_000  # when the sample was taken (its LastHeardFrom)
NOW = 1_800_000_000.0
_GLIDEIN_TIMES = ("GLIDEIN_ToRetire", "GLIDEIN_ToDie")
_KEEP = [
    "MyType",
    "Name",
    "Machine",
    "State",
    "Activity",
    "Cpus",
    "Memory",
    "Disk",
    "GPUs",
    "SlotWeight",
    "PartitionableSlot",
    "DynamicSlot",
    "SlotID",
    "SlotType",
    "RemoteUser",
    "RemoteOwner",
    "AccountingGroup",
    "CurrentRank",
    "TotalJobRunTime",
    "WantMatching",
    "RetirementTimeRemaining",
    "MachineResources",
    "KFlops",
    "Offline",
    "Arch",
    "OpSys",
    "HasFileTransfer",
    "HAS_SINGULARITY",
    "GLIDEIN_Site",
]
_REQUIREMENTS = (
    '(TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.Disk >= RequestDisk)'
    " && (TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= RequestCpus)"
    " && (TARGET.HasFileTransfer)",
    '(TARGET.OpSys == "LINUX") && (TARGET.HAS_SINGULARITY =?= true)'
    " && (TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= RequestCpus)"
    ' && (TARGET.GLIDEIN_Site =!= "Bad")',
)
PREEMPTION_REQUIREMENTS = "RemoteUserPrio > SubmitterUserPrio * 1.2"


def _names(node, out: set[str]) -> None:
    if type(node) is AttrRef:
        out.add(node.lname)
    for child in children(node):
        _names(child, out)


def _trimmed(ad: ClassAd, params: NegotiatorParams) -> ClassAd:
    """The ad with only the attributes its policy and the negotiator can reach."""
    wanted = {n.lower() for n in _KEEP} | {"requirements", "rank", "start"}
    for expr in (params.pre_job_rank, params.post_job_rank, params.preemption_rank):
        _names(expr.node, wanted)
    pending = list(wanted)
    while pending:
        name = pending.pop()
        if name in ad:
            found: set[str] = set()
            _names(ad.lookup(name).node, found)
            pending += [n for n in found if n not in wanted]
            wanted |= found
    out = ClassAd()
    for name in ad:
        if name.lower() in wanted:
            out.insert_expr(name, ad.lookup(name))
    return out


def templates(params: NegotiatorParams) -> list[ClassAd]:
    with gzip.open(SAMPLE, "rt", encoding="utf-8") as handle:
        ads = [a for a in parse_ads(handle) if a.eval("MyType") == "Machine"]
    shift = int(NOW) - SAMPLE_TIME
    for ad in ads:
        for name in _GLIDEIN_TIMES:
            value = ad.eval(name) if name in ad else None
            if type(value) is int:
                ad[name] = value + shift
    return [_trimmed(ad, params) for ad in ads]


def pool(count: int, params: NegotiatorParams, users: list[str]) -> list[ClassAd]:
    """``count`` slots: renamed copies of the sample's, their memory varied; claimed
    slots run jobs of the benchmark's own submitters."""
    base = templates(params)
    slots = []
    for i in range(count):
        ad = base[i % len(base)].copy()
        ad["Name"] = f"slot{i}@host{i // 8}"
        ad["Machine"] = f"host{i // 8}"
        memory = ad.eval("Memory")
        if type(memory) is int:
            ad["Memory"] = memory // 2 + (memory * (i % 7)) // 12
        if ad.eval("State") == "Claimed":
            user = users[i % len(users)]
            ad["RemoteUser"] = ad["RemoteOwner"] = user
            ad["AccountingGroup"] = user
            ad["CurrentRank"] = 0.0
        slots.append(ad)
    return slots


def group_tree(submitters: int) -> tuple[GroupConfig, list[str]]:
    """Three levels (10 x 4 x 5 groups, dynamic quotas, surplus) and the submitters'
    accounting names, spread over the leaf groups."""
    names, quotas = [], {}
    for a in range(10):
        names.append(f"g{a}")
        quotas[f"g{a}"] = 0.1
        for b in range(4):
            names.append(f"g{a}.s{b}")
            quotas[f"g{a}.s{b}"] = 0.25
            for c in range(5):
                names.append(f"g{a}.s{b}.t{c}")
                quotas[f"g{a}.s{b}.t{c}"] = 0.2
    leaves = [n for n in names if n.count(".") == 2]
    users = [f"{leaves[k % len(leaves)]}.u{k}" for k in range(submitters)]
    config = GroupConfig(names=tuple(names), dynamic_quota=quotas, default_accept_surplus=True)
    return config, users


def jobs(count: int, autoclusters: int, users: list[str]) -> list[ClassAd]:
    """``count`` idle jobs in ``autoclusters`` distinct requests, each user's jobs in a
    few of them."""
    requirements = [Expr(text) for text in _REQUIREMENTS]
    per_cluster = max(1, count // autoclusters)
    out = []
    for ac in range(autoclusters):
        cpus = (1, 1, 1, 2, 4, 8)[ac % 6]
        template = ClassAd()
        template["MyType"] = "Job"
        template["JobStatus"] = 1
        template["RequestCpus"] = cpus
        template["RequestMemory"] = 512 * (1 + (ac // 6) % 32)
        template["RequestDisk"] = 1_048_576 * (1 + ac // 192)
        template.insert_expr("Requirements", requirements[ac % len(requirements)])
        template["Rank"] = 0.0
        template["ProjectName"] = f"project{ac % 50}"
        user = users[ac % len(users)]
        template["AccountingGroup"] = user
        template["Owner"] = user.rpartition(".")[2]
        template["QDate"] = int(NOW) - 3600 + ac
        for proc in range(per_cluster):
            job = template.copy()
            job["ClusterId"] = ac + 1
            job["ProcId"] = proc
            out.append(job)
    return out[:count]


def measure(
    slots: int, autoclusters: int, count: int, submitters: int, evaluator: str, preemption: bool
) -> dict:
    config, users = group_tree(submitters)
    params = NegotiatorParams(
        accounting_domain="ospool.example",
        consider_preemption=preemption,
        preemption_requirements=Expr(PREEMPTION_REQUIREMENTS) if preemption else None,
        groups=config,
        match_evaluator=evaluator,
    )
    slot_ads = pool(slots, params, [f"{u}@ospool.example" for u in users])
    accountant = Accountant(AccountantPolicy())
    for k, user in enumerate(users):
        accountant.set_factor(f"{user}@ospool.example", 1000.0 * (1 + k % 5))
    job_ads = jobs(count, autoclusters, users)
    start = time.perf_counter()
    queue = JobQueue(params.accounting_domain, AutoclusterIndex())
    queue.add(job_ads)
    index = queue.index
    index.requests(significant_of(slot_ads, params, NOW), params.negotiate_all_jobs_in_cluster)
    queued = time.perf_counter() - start
    start, cpu = time.perf_counter(), time.process_time()
    significant = significant_of(slot_ads, params, NOW)
    requests = index.requests(significant, params.negotiate_all_jobs_in_cluster, members=True)
    snapshot = PoolSnapshot(slot_ads, [], queues=requests)
    result = run_cycle(snapshot, accountant.view().__getitem__, params, now=NOW)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024  # KiB -> GiB
    return {
        "slots": slots,
        "autoclusters": autoclusters,
        "jobs": count,
        "submitters": submitters,
        "evaluator": evaluator,
        "preemption": preemption,
        "seconds": seconds,
        "cpu": cpu,
        "queue_seconds": queued,
        "matches": len(result.matches),
        "rejections": len(result.rejections),
        "candidates": result.stats.candidate_slots,
        "peak_gib": peak,
        "digest": hashlib.sha256(
            "\n".join(f"{m.job} {m.slot} {m.reason}" for m in result.matches).encode()
        ).hexdigest(),
    }


def run_one(*args: object) -> dict:
    """One measurement in a fresh process (its own peak memory)."""
    cmd = [sys.executable, __file__, "--one", *map(str, args)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def line(r: dict) -> str:
    rate = r["matches"] / r["seconds"] if r["seconds"] else 0.0
    mode = "preemption" if r["preemption"] else "no preemption"
    return (
        f"{r['slots']:>7} slots {r['autoclusters']:>5} ACs {r['jobs']:>8} jobs "
        f"{r['submitters']:>5} subm  {r['evaluator']:<6} {mode:<13} "
        f"{r['seconds']:8.2f} s (cpu {r['cpu']:.2f} s)  {r['matches']:>7} matches  "
        f"{rate:7.0f} matches/s  peak {r['peak_gib']:.2f} GiB  (queue {r['queue_seconds']:.1f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", nargs=6)
    parser.add_argument("--headline", action="store_true")
    parser.add_argument("--jobs-per-ac", type=int, default=20)
    parser.add_argument("--submitters", type=int, default=200)
    parser.add_argument("--scalar-slots", type=int, default=10_000)
    args = parser.parse_args()
    if args.one:
        s, a, j, u, evaluator, preemption = args.one
        print(json.dumps(measure(int(s), int(a), int(j), int(u), evaluator, preemption == "True")))
        return
    if args.headline:
        for preemption, goal in ((False, 15), (True, 40)):
            r = run_one(100_000, 5_000, 1_000_000, 1_000, "vector", preemption)
            print(f"{line(r)}  goal < {goal} s", flush=True)
        return
    for preemption in (False, True):
        for slots in (10_000, 100_000):
            for acs in (500, 5_000):
                jobs_count = acs * args.jobs_per_ac
                vector = run_one(slots, acs, jobs_count, args.submitters, "vector", preemption)
                print(line(vector), flush=True)
                if slots <= args.scalar_slots:
                    scalar = run_one(slots, acs, jobs_count, args.submitters, "scalar", preemption)
                    print(line(scalar), flush=True)
                    same = "same matches" if scalar["digest"] == vector["digest"] else "DIFFERENT"
                    print(
                        f"{'':>7} scalar / vector = {scalar['seconds'] / vector['seconds']:.1f}x"
                        f"  ({same})",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
