"""Simulated machines publish what their startd would (issue 14).

A ``[[machines]] ad`` of ``Cpus``, ``Memory`` and ``START`` gets the platform, domains and
``Disk`` a startd publishes (HTCondor's manual, "Machine ClassAd Attributes"), so the
``Arch``/``OpSys``/``Disk`` clauses condor_submit adds to every vanilla job's Requirements
can match; and a startd policy that reads the claim's run time fires."""

from fairpool.sim.runner import simulate
from fairpool.sim.scenario import load_scenario

BARE = "Cpus = 1\nMemory = 2048\nSTART = True\n"


def test_a_bare_machine_ad_runs_condor_submit_jobs(write_scenario, helpers):
    text = '[simulation]\nduration = "2h"\nseed = 1\n'
    text += helpers.machines(2, BARE)
    text += helpers.jobs("ann", '"30m"', "count = 4")
    text += helpers.jobs("bob", '"30m"', "count = 2", "should_transfer_files = NO\n")
    run = simulate(load_scenario(write_scenario(text)))
    records = list(run.recorder.jobs.values())
    assert len(records) == 6 and all(r.end is not None for r in records)
    slot = next(iter(run.pool.slot_by_name.values()))
    assert slot.eval("Arch") == "X86_64" and slot.eval("FileSystemDomain") == "localdomain"


def test_preempt_on_total_claim_run_time_fires(write_scenario, helpers):
    # PREEMPT = TotalClaimRunTime > 20: the job is evicted at the first pass (every 5 s
    # while claimed) past 20 s of claim, 25 s after it starts, and starts again at the
    # next cycle: it never finishes in 10 minutes.
    text = '[simulation]\nduration = "10m"\nseed = 1\n'
    text += '[config]\ntext = "PREEMPT = TotalClaimRunTime > 20\\nWANT_SUSPEND = False"\n'
    text += helpers.machines(1) + helpers.jobs("ann", '"5m"', "count = 1")
    run = simulate(load_scenario(write_scenario(text)))
    (record,) = run.recorder.jobs.values()
    assert record.end is None and record.preemptions >= 5
    assert run.startds.evictions == record.preemptions
