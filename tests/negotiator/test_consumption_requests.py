"""A consumption policy over a resource the job does not ask for (issue 14).

HTCondor's negotiator computes what a job consumes with ``Request<Res>`` taken as 0 when
the job does not define it (the consumption policy code, consumption_policy.cpp, that
spec/negotiator.md §5.2 item 4 and §5.7 read): a job that asks for no GPUs consumes none
of a partitionable slot's GPUs and still matches."""

import pytest

from builders import jobs_of, make_slot
from cycles import cycle
from fairpool.classad import Expr

pytestmark = pytest.mark.usefixtures("negotiation_path")


def _pslot():
    return (
        make_slot("slot1@big")
        .cpus(4)
        .memory(16000)
        .partitionable()
        .set(
            GPUs=2,
            MachineResources="Cpus Memory GPUs",
            ConsumptionCpus=Expr("quantize(target.RequestCpus, {1})"),
            ConsumptionMemory=Expr("quantize(target.RequestMemory, {128})"),
            ConsumptionGPUs=Expr("TARGET.RequestGPUs"),
        )
        .build()
    )


def test_jobs_without_a_gpu_request_consume_no_gpus():
    # 4 cores, one-core jobs that say nothing of GPUs: four match, each consuming 1 core
    # and 0 GPUs (before: RequestGPUs undefined made the consumption unknown, no match).
    counts, result = cycle([_pslot()], jobs_of("A", 6, 1))
    assert counts == {"A": 4}
    assert {m.cost for m in result.matches} == {1.0}


def test_gpu_requests_still_count():
    # One job asks for 2 GPUs, the others for none: all four cores are used, and the
    # request ad is left as it was (no RequestGPUs added to the jobs without one).
    jobs = jobs_of("A", 4, 1)
    jobs[0]["RequestGPUs"] = 2
    counts, _ = cycle([_pslot()], jobs)
    assert counts == {"A": 4}
    assert ["RequestGPUs" in job for job in jobs] == [True, False, False, False]
