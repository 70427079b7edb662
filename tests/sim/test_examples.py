"""Every scenario in examples/ loads (the docs run them), and the desktop pool and the
OSPool sample run their startd policy on every machine: their START reads the keyboard
or the clock."""

from pathlib import Path

import pytest

from fairpool.sim.scenario import load_scenario

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.toml"))


def test_there_are_examples():
    assert len(EXAMPLES) >= 10


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_loads(path):
    scenario = load_scenario(path)
    assert scenario.machines and scenario.simulation.duration > 0
    driven = [spec.driven for spec in scenario.machines]
    if path.stem.startswith("desktops"):
        assert driven == [True, True]
        assert scenario.machines[0].activity is not None
        assert scenario.machines[0].activity.repeat == 7 * 86400
    elif path.stem.startswith("whole_machines"):  # every startd runs, so it can drain
        assert scenario.simulation.startd == "always"
    elif path.stem == "ospool":  # the OSPool's glideins: START compares GLIDEIN_ToDie
        assert all(driven) and len(driven) > 100  # with the clock; one machine per startd
        assert len(scenario.queues) == 1  # and a real CHTC job from a queue file
    else:
        assert not any(driven)  # the seed's examples are dedicated pools
