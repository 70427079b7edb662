"""A pool's state as the simulation's start (``[snapshot] directory``): its slot ads, its
queue, its accountant log and its configuration, each as HTCondor's tools print them."""

from collections import Counter
from pathlib import Path

import pytest

from fairpool.accounting.accountant import Accountant
from fairpool.accounting.records import Customer
from fairpool.classad.formats import write_old
from fairpool.errors import ConfigError, ScenarioError
from fairpool.sim.machines import machine_slots
from fairpool.sim.runner import simulate
from fairpool.sim.scenario import load_scenario, parse_scenario
from fairpool.store.classadlog import AccountantLog

TAKEN = 1_790_000_000  # when the snapshot's accountant was last updated
DOMAIN = "example.org"


def _slot_ads(count: int) -> str:
    """``count`` one-core slot ads, as condor_status -l prints them."""
    machines = f'[simulation]\nduration = "1h"\n[[machines]]\ncount = {count}\nad = "Cpus = 1"\n'
    spec = parse_scenario(machines).machines[0]
    return "\n".join(write_old(slot) for slot in machine_slots(spec))


def _jobs(owner: str, count: int, cluster: int) -> str:
    return "\n".join(
        f'MyType = "Job"\nClusterId = {cluster}\nProcId = {proc}\nOwner = "{owner}"\n'
        f'User = "{owner}@{DOMAIN}"\nJobStatus = 1\nRequestCpus = 1\nRequestMemory = 64\n'
        "Requirements = true\n"
        for proc in range(count)
    )


def _snapshot(directory: Path, config: str = "", records: tuple[Customer, ...] = ()) -> Path:
    directory.mkdir()
    (directory / "machines.ads").write_text(_slot_ads(4))
    (directory / "queue.ads").write_text(_jobs("heavy", 20, 1) + "\n" + _jobs("light", 20, 2))
    if config:
        (directory / "pool_config").write_text(config)
    if records:
        AccountantLog(directory / "Accountantnew.log").compact(Accountant(None, records, TAKEN))
    return directory


POOL_CONFIG = f"UID_DOMAIN = {DOMAIN}\nPRIORITY_HALFLIFE = 3600\nDEFAULT_PRIO_FACTOR = 1\n"
RECORDS = (
    # heavy used the pool a great deal before the snapshot; light hardly at all
    Customer(f"heavy@{DOMAIN}", priority=400.0, factor=1.0, accumulated_usage=1e6),
    Customer(f"light@{DOMAIN}", priority=0.5, factor=1.0),
)


def _scenario(tmp_path: Path, text: str = "") -> Path:
    path = tmp_path / "scenario.toml"
    head = '[simulation]\nduration = "20m"\nnegotiator_interval = "5m"\n'
    path.write_text(head + '[snapshot]\ndirectory = "snap"\nruntime = "1h"\n' + text)
    return path


def test_the_snapshot_is_the_start(tmp_path):
    _snapshot(tmp_path / "snap", POOL_CONFIG, RECORDS)
    scenario = load_scenario(_scenario(tmp_path))
    assert scenario.simulation.start == TAKEN  # no start given: when the snapshot was taken
    assert scenario.settings.policy.halflife == 3600  # the pool's configuration
    assert sum(len(machine_slots(spec)) * spec.count for spec in scenario.machines) == 4
    (queue,) = scenario.queues
    assert len(queue.ads) == 40
    sim = simulate(scenario)
    # the accountant went on from the pool's records: heavy's priority decayed from 400
    # over the run; light, with the better priority, got most of the slots (2 and 2
    # without the records: the next test)
    heavy = sim.accountant.customers[f"heavy@{DOMAIN}"]
    assert heavy.accumulated_usage >= 1e6
    assert 100 < heavy.priority < 400
    held = Counter(slot.eval("RemoteUser") for slot in sim.pool.slots if "RemoteUser" in slot)
    assert held == {f"light@{DOMAIN}": 3, f"heavy@{DOMAIN}": 1}


def test_without_the_accountant_both_users_share(tmp_path):
    _snapshot(tmp_path / "snap", POOL_CONFIG)
    sim = simulate(load_scenario(_scenario(tmp_path)))
    held = [slot.eval("RemoteUser") for slot in sim.pool.slots if "RemoteUser" in slot]
    assert sorted(held) == [f"heavy@{DOMAIN}"] * 2 + [f"light@{DOMAIN}"] * 2


def test_the_scenarios_config_is_read_after_the_pools(tmp_path):
    _snapshot(tmp_path / "snap", POOL_CONFIG, RECORDS)
    changed = '[config]\ntext = "PRIORITY_HALFLIFE = $(PRIORITY_HALFLIFE) * 2"\n'
    scenario = load_scenario(_scenario(tmp_path, changed))
    assert scenario.settings.policy.halflife == 7200
    given = _scenario(tmp_path).read_text().replace("[simulation]\n", "[simulation]\nstart = 5\n")
    (tmp_path / "given.toml").write_text(given)
    assert load_scenario(tmp_path / "given.toml").simulation.start == 5
    event = '[[events]]\nat = "10m"\naction = "config"\ntext = "DEFAULT_PRIO_FACTOR = 2"\n'
    (spec,) = load_scenario(_scenario(tmp_path, event)).events
    assert spec.config.policy.halflife == 3600  # an event's config is read after the pool's too


@pytest.mark.parametrize(
    "change, error, problem",
    [
        (lambda d: (d / "machines.ads").unlink(), ScenarioError, "no machines.ads"),
        (
            lambda d: (d / "pool_config").write_text("PRIORITY_HALFLIFE = = \n"),
            ConfigError,
            "snap/pool_config:1: PRIORITY_HALFLIFE",
        ),
        (
            lambda d: (d / "Accountantnew.log").write_text("103 Customer.x Priority q\n"),
            ScenarioError,
            "Accountantnew.log:1: Priority: expected a number, not 'q'",
        ),
        (lambda d: (d / "queue.ads").write_text("MyType = \n"), ScenarioError, "queue.ads:1"),
    ],
)
def test_a_bad_snapshot_names_its_file(tmp_path, change, error, problem):
    change(_snapshot(tmp_path / "snap", POOL_CONFIG, RECORDS))
    with pytest.raises(error) as caught:
        load_scenario(_scenario(tmp_path))
    assert problem in str(caught.value).splitlines()[0]


def test_a_queue_needs_run_times(tmp_path):
    _snapshot(tmp_path / "snap")
    path = tmp_path / "scenario.toml"
    path.write_text('[simulation]\nduration = "1h"\n[snapshot]\ndirectory = "snap"\n')
    with pytest.raises(ScenarioError, match=r"\[snapshot\], runtime: expected runtime"):
        load_scenario(path)
    path.write_text('[simulation]\nduration = "1h"\n[snapshot]\ndirectory = "nowhere"\n')
    with pytest.raises(ScenarioError, match="no such directory"):
        load_scenario(path)
