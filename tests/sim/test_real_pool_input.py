"""Real pools and queues as a scenario's input: ``[[machines]] file`` (condor_status -l
dumps: old syntax or JSON, gzip or plain, taken as they are or multiplied, partitionable
and dynamic slots folded back into their machines) and ``[[jobs]] file`` (condor_q -l,
run times from an attribute or a distribution)."""

import functools
import gzip
from pathlib import Path

import pytest

from fairpool.classad import parse_ads
from fairpool.classad.formats import write_json, write_old
from fairpool.errors import ScenarioError
from fairpool.sim.machines import machine_slots
from fairpool.sim.runner import simulate
from fairpool.sim.scenario import load_scenario

DATA = Path(__file__).parent.parent / "data" / "ads"
OSPOOL = DATA / "ospool" / "pool_sample.ads.gz"  # provenance: tests/data/ads/README.md
CHTC_JOB = DATA / "chtc" / "chtc_condor_q_l_15872426.5189.job.ad"
SAMPLE_TIME = 1_783_286_000  # about when the OSPool sample was taken (its LastHeardFrom)


@functools.cache
def _parsed() -> tuple:
    text = gzip.decompress(OSPOOL.read_bytes()).decode()
    return tuple(ad for ad in parse_ads(text) if ad.eval("MyType") == "Machine")


def _sample() -> list:
    return [ad.copy() for ad in _parsed()]


def _scenario(machines: str, jobs: str = "", duration: str = "2h") -> str:
    text = f'[simulation]\nstart = {SAMPLE_TIME}\nduration = "{duration}"\n'
    text += 'negotiator_interval = "5m"\n' + machines + jobs
    return text


OSPOOL_JOBS = """
[[jobs]]
owner = "alice"
runtime = "20m"
submit = \"\"\"
executable = /bin/work
request_memory = 1024
+ProjectName = "OSG-Staff"
queue 30
\"\"\"
"""


def test_a_dump_becomes_its_machines_idle_and_whole(write_scenario, tmp_path):
    (tmp_path / "pool.ads.gz").write_bytes(OSPOOL.read_bytes())
    scenario = load_scenario(write_scenario(_scenario('[[machines]]\nfile = "pool.ads.gz"\n')))
    ads = _sample()
    startds = {ad.eval("Name").partition("@")[2] for ad in ads}
    assert len(scenario.machines) == len(startds)  # one machine per startd in the dump
    slots = [slot for spec in scenario.machines for slot in machine_slots(spec)]
    assert not any(s.eval("DynamicSlot") is True for s in slots)  # folded back
    assert all(s.eval("State") == "Unclaimed" and "RemoteUser" not in s for s in slots)
    # a partitionable slot of the dump gets back what its dynamic slots held
    for ad in (a for a in ads if a.eval("PartitionableSlot") is True):
        host = ad.eval("Name").partition("@")[2]
        (folded,) = [s for s in slots if s.eval("Name") == f"slot{ad.eval('SlotID')}@{host}"]
        assert folded.eval("Cpus") == ad.eval("TotalSlotCpus") > ad.eval("Cpus")
        assert folded.eval("Memory") == ad.eval("TotalSlotMemory")
        assert folded.eval("NumDynamicSlots") == 0
    # a dynamic slot whose partitionable slot was not sampled becomes that slot, whole
    orphan = next(
        a for a in ads if a.eval("DynamicSlot") is True and a.eval("TotalCpus") > a.eval("Cpus")
    )
    host = orphan.eval("Name").partition("@")[2]
    (parent,) = [s for s in slots if s.eval("Machine") == host]
    assert parent.eval("PartitionableSlot") is True
    assert parent.eval("Cpus") == orphan.eval("TotalCpus")
    assert parent.eval("Name") == f"slot{orphan.eval('ParentSlotId')}@{host}"


def test_the_ospool_sample_runs_jobs(write_scenario, tmp_path):
    """Its START reads the clock (glideins' GLIDEIN_ToDie): every machine runs its startd
    policy, so a small part of the sample for a short time keeps this test quick."""
    part = gzip.compress("\n".join(write_old(ad) for ad in _sample()[:20]).encode())
    (tmp_path / "part.ads.gz").write_bytes(part)  # 20 of the sample's slots, gzip
    machines = '[[machines]]\nfile = "part.ads.gz"\n'
    path = write_scenario(_scenario(machines, OSPOOL_JOBS, duration="1h"))
    run = simulate(load_scenario(path))
    done = [r for r in run.recorder.jobs.values() if r.end is not None]
    assert len(done) == 30  # the sample's real START lets ProjectName jobs in
    assert run.check() == []


def test_multiplied_machines_and_json_give_the_same_pool(write_scenario, tmp_path):
    ads = _sample()[:20]
    (tmp_path / "pool.ads").write_text("\n".join(write_old(ad) for ad in ads))
    (tmp_path / "pool.json").write_text(write_json(ads))
    old = load_scenario(write_scenario(_scenario('[[machines]]\nfile = "pool.ads"\ncount = 3\n')))
    new = load_scenario(write_scenario(_scenario('[[machines]]\nfile = "pool.json"\ncount = 3\n')))
    names = [
        [s.eval("Name") for spec in sc.machines for s in machine_slots(spec)] for sc in (old, new)
    ]
    assert names[0] == names[1]
    assert len(names[0]) == 3 * sum(len(spec.template) for spec in old.machines)
    assert len(set(names[0])) == len(names[0])  # copies are hosts <startd>-<n>
    assert any(name.endswith("-3") for name in names[0])


def test_a_queue_file_submits_its_idle_and_running_jobs(write_scenario, tmp_path):
    job = next(iter(parse_ads(CHTC_JOB.read_text())))  # a real held job: 4 cores, 16 GiB
    queue = []
    for proc, status in enumerate((1, 1, 2, 5)):  # two idle, one running, one held
        copy = job.copy()
        copy.update({"ProcId": proc, "JobStatus": status, "RunFor": 600 * (proc + 1)})
        copy["Requirements"] = True  # CHTC's machines are not simulated: any slot will do
        queue.append(copy)
    (tmp_path / "queue.ads").write_text("\n".join(write_old(ad) for ad in queue))
    machine = '[[machines]]\ncount = 4\nname = "n{n}"\nad = """\nCpus = 4\nMemory = 32768\n"""\n'
    jobs = '[[jobs]]\nfile = "queue.ads"\nruntime_attribute = "RunFor"\nat = "10m"\n'
    run = simulate(load_scenario(write_scenario(_scenario(machine, jobs))))
    records = sorted(run.recorder.jobs.values(), key=lambda r: r.id)
    assert [r.submit for r in records] == [600.0] * 3  # the held job is left out
    assert {r.submitter for r in records} == {"erees@chtc.wisc.edu"}  # the ads' own User
    assert [r.end - r.start for r in records] == [600.0, 1200.0, 1800.0]  # RunFor
    assert [r.cpus for r in records] == [4.0] * 3


def test_a_queue_file_without_run_times_is_refused(write_scenario, tmp_path):
    (tmp_path / "queue.ads").write_text(
        CHTC_JOB.read_text().replace("JobStatus = 5", "JobStatus = 1")
    )
    jobs = '[[jobs]]\nfile = "queue.ads"\nruntime_attribute = "NoSuch"\n'
    path = write_scenario(_scenario('[[machines]]\ncount = 1\nad = "Cpus = 1"\n', jobs))
    with pytest.raises(ScenarioError, match=r"\[\[jobs\]\] 1.*job 15872426.5189 has no positive"):
        load_scenario(path)


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ('MyType = "Scheduler"\nName = "x"\n', "no slot ads"),
        ("Cpus = = 1\n", "file"),
        ('MyType = "Machine"\nCpus = 1\n', "without a Name"),
    ],
)
def test_a_bad_machine_file_is_one_error(write_scenario, tmp_path, content, error):
    (tmp_path / "pool.ads").write_text(content)
    path = write_scenario(_scenario('[[machines]]\nfile = "pool.ads"\n'))
    with pytest.raises(ScenarioError, match=error):
        load_scenario(path)
