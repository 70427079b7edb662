"""A bad scenario is one ScenarioError naming the file and the key, and one error line
with a non-zero exit from ``fairpool simulate``."""

import pytest
from click.testing import CliRunner

from fairpool.cli.main import main
from fairpool.errors import InputError, ScenarioError
from fairpool.sim.scenario import load_scenario

GOOD = '[simulation]\nduration = "1h"\n'


def _error(write_scenario, text: str) -> ScenarioError:
    path = write_scenario(text)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert caught.value.source == str(path)
    return caught.value


def test_unknown_key_is_named(write_scenario, helpers):
    err = _error(write_scenario, GOOD + "seeed = 3\n" + helpers.machines(1))
    assert err.key == "[simulation], seeed" and "unknown key" in err.message


def test_unknown_table(write_scenario, helpers):
    err = _error(write_scenario, GOOD + helpers.machines(1) + "[[job]]\nowner = 'a'\n")
    assert err.key == "scenario, job"


def test_missing_trace_file(write_scenario, helpers):
    text = GOOD + helpers.machines(1) + '[[traces]]\nfile = "nowhere.swf"\n'
    err = _error(write_scenario, text)
    assert err.key == "[[traces]] 1, file" and "no such file" in err.message


def test_malformed_submit_text_names_its_line(write_scenario, helpers):
    text = GOOD + helpers.machines(1)
    text += '[[jobs]]\nowner = "a"\nruntime = "1h"\nsubmit = """\nexecutable = x\n'
    text += 'request_cpus = = 2\nqueue 1 2 3 in\n"""\n'
    err = _error(write_scenario, text)
    assert err.key == "[[jobs]] 1, submit"
    assert "bad submit description: line" in err.message


def test_negative_duration(write_scenario, helpers):
    err = _error(write_scenario, '[simulation]\nduration = "-5h"\n' + helpers.machines(1))
    assert err.key == "[simulation], duration" and "positive duration" in err.message


@pytest.mark.parametrize(
    ("runtime", "expected"),
    [
        ('"soon"', "expected a duration"),
        ('{ distribution = "gamma", mean = "1h" }', "expected distribution"),
        ('{ distribution = "uniform", low = "1h" }', "missing high"),
        ('{ distribution = "lognormal", median = "1h", sigma = -1 }', "expected sigma"),
    ],
)
def test_bad_runtime(write_scenario, helpers, runtime, expected):
    err = _error(write_scenario, GOOD + helpers.machines(1) + helpers.jobs("a", runtime))
    assert err.key == "[[jobs]] 1, runtime" and expected in err.message


def test_bad_machine_ad_and_event(write_scenario, helpers):
    err = _error(write_scenario, GOOD + helpers.machines(1, ad="Cpus = = 1"))
    assert err.key == "[[machines]] 1, ad"
    event = '[[events]]\nat = "1h"\naction = "explode"\n'
    err = _error(write_scenario, GOOD + helpers.machines(1) + event)
    assert err.key == "[[events]] 1, action"


def test_toml_syntax_error_names_the_line(write_scenario):
    err = _error(write_scenario, GOOD + "[[machines]\n")
    assert err.line == 3


def test_no_machines(write_scenario):
    assert _error(write_scenario, GOOD).key == "[[machines]]"


def test_scenario_error_is_an_input_error():
    assert issubclass(ScenarioError, InputError)


def test_command_prints_one_line_and_fails(write_scenario, helpers, tmp_path):
    path = write_scenario('[simulation]\nduration = "-1h"\n' + helpers.machines(1))
    result = CliRunner().invoke(main, ["simulate", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"fairpool: error: {path}: [simulation], duration: expected a positive duration, not '-1h'"
    ]
    assert not (tmp_path / "out").exists()
