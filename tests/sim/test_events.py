"""[[events]]: priority factors, configuration changes and machines, at their times."""

import pytest

from fairpool.sim.runner import simulate
from fairpool.sim.scenario import load_scenario


def _base(helpers, events: str, config: str = "DEFAULT_PRIO_FACTOR = 1") -> str:
    text = '[simulation]\nduration = "12h"\nnegotiator_interval = "5m"\nsample_interval = "1h"\n'
    text += f'[config]\ntext = "{config}"\n' + helpers.machines(20)
    short = '{ distribution = "uniform", low = "5m", high = "15m" }'
    text += helpers.jobs("ann", short, "keep_idle = 30") + helpers.jobs(
        "bob", short, "keep_idle = 30"
    )
    return text + events


def _at(run, hour: float, who: str):
    return next(
        s for s in run.recorder.samples if s.time == hour * 3600 and s.submitter.startswith(who)
    )


def test_set_factor_changes_the_shares(write_scenario, helpers):
    event = '[[events]]\nat = "6h"\naction = "set_factor"\nsubmitter = "bob"\nvalue = 3\n'
    run = simulate(load_scenario(write_scenario(_base(helpers, event))))
    assert _at(run, 5, "bob").factor == 1 and _at(run, 6, "bob").factor == 3
    # before: equal shares; after, bob's EUP is three times his RUP and ann gets more
    assert _at(run, 5, "ann").running == _at(run, 5, "bob").running == 10
    ann, bob = _at(run, 12, "ann"), _at(run, 12, "bob")
    assert bob.eup == pytest.approx(3 * bob.rup) and ann.eup < bob.eup
    assert ann.running >= bob.running + 4


def test_config_event_changes_the_half_life(write_scenario, helpers):
    event = '[[events]]\nat = "6h"\naction = "config"\n'
    event += 'text = "DEFAULT_PRIO_FACTOR = 1\\nPRIORITY_HALFLIFE = 600"\n'
    run = simulate(load_scenario(write_scenario(_base(helpers, event))))
    # a day's half-life: 5 h of 10 cores gives RUP 10 - 9.5 * 0.5 ** (5 / 24) = 1.774;
    # the cycle at 6 h ages the last 5 minutes with the new ten-minute half-life
    assert _at(run, 5, "ann").rup == pytest.approx(10 - 9.5 * 0.5 ** (5 / 24), abs=1e-9)
    previous = 10 - 9.5 * 0.5 ** ((6 - 1 / 12) / 24)
    assert _at(run, 6, "ann").rup == pytest.approx(previous * 0.5**0.5 + 10 * (1 - 0.5**0.5))
    assert _at(run, 12, "ann").rup == pytest.approx(_at(run, 12, "ann").running, rel=0.3)


def test_bad_config_event_is_a_scenario_error(write_scenario, helpers):
    from fairpool.errors import ScenarioError

    event = '[[events]]\nat = "1h"\naction = "config"\ntext = "PRIORITY_HALFLIFE = soon"\n'
    with pytest.raises(ScenarioError) as caught:
        load_scenario(write_scenario(_base(helpers, event)))
    assert caught.value.key == "[[events]] 1, text" and "PRIORITY_HALFLIFE" in str(caught.value)


def test_machines_come_and_go(write_scenario, helpers):
    events = '[[events]]\nat = "4h"\naction = "remove_machines"\n'
    events += "constraint = 'Machine >= \"node011\"'\n"
    events += (
        f'[[events]]\nat = "8h"\naction = "add_machines"\ncount = 5\nad = """{helpers.ad}"""\n'
    )
    run = simulate(load_scenario(write_scenario(_base(helpers, events))))
    cores = dict(run.recorder.pool_samples)
    assert (cores[3 * 3600], cores[5 * 3600], cores[9 * 3600]) == (20, 10, 15)
    held = _at(run, 5, "ann").running + _at(run, 5, "bob").running
    assert held == 10
    lost = sum(r.preemptions for r in run.recorder.jobs.values())
    assert 0 < lost <= 10  # the jobs running there (some slots were between jobs)
    assert sum(r.bad_seconds for r in run.recorder.jobs.values()) > 0
