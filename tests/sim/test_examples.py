"""Every scenario in examples/ loads (the docs run them), and the desktop pool runs its
startd policy on every machine: its START reads the keyboard."""

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
    else:
        assert not any(driven)  # the seed's examples are dedicated pools
