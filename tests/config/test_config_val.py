"""``fairpool config_val``, condor_config_val's options, through click's runner."""

from pathlib import Path

import pytest
from click.testing import CliRunner

from fairpool.cli.main import main


@pytest.fixture
def two_files(tmp_path: Path) -> tuple[Path, Path]:
    first = tmp_path / "00-base.config"
    first.write_text("PRIORITY_HALFLIFE = 3600\nDEFAULT_PRIO_FACTOR = 10\nHOURS = 2\n")
    second = tmp_path / "10-site.config"
    second.write_text("# the site's choice\n\nPRIORITY_HALFLIFE = $(HOURS) * 3600\n")
    return first, second


def run(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, ["config_val", *args], env=env or {}, catch_exceptions=False)


def test_verbose_names_the_file_and_line_that_won(two_files) -> None:
    first, second = two_files
    result = run("--config", str(first), "--config", str(second), "-verbose", "PRIORITY_HALFLIFE")
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        "PRIORITY_HALFLIFE = 2 * 3600",
        f" # at: {second}, line 3",
        " # raw: PRIORITY_HALFLIFE = $(HOURS) * 3600",
    ]


def test_plain_evaluate_and_default(two_files) -> None:
    first, second = two_files
    files = ["--config", str(first), "--config", str(second)]
    assert run(*files, "PRIORITY_HALFLIFE").output == "2 * 3600\n"
    assert run(*files, "-evaluate", "PRIORITY_HALFLIFE").output == "7200\n"
    assert run(*files, "--evaluate", "NEGOTIATOR_CONSIDER_PREEMPTION").output == "true\n"
    verbose = run(*files, "--verbose", "REMOTE_PRIO_FACTOR").output
    assert verbose.splitlines() == ["REMOTE_PRIO_FACTOR = 1e7", " # at: <Default>"]


def test_condor_config_environment_is_followed(two_files) -> None:
    first, _ = two_files
    result = run("DEFAULT_PRIO_FACTOR", env={"CONDOR_CONFIG": str(first)})
    assert result.exit_code == 0 and result.output == "10\n"


def test_undefined_knob_exits_non_zero(two_files) -> None:
    first, _ = two_files
    result = run("--config", str(first), "NO_SUCH_KNOB", "HOURS")
    assert result.exit_code == 1
    assert "Not defined: NO_SUCH_KNOB" in result.output and "2\n" in result.output


def test_dump_with_pattern(two_files) -> None:
    first, second = two_files
    result = run("--config", str(first), "--config", str(second), "-dump", "prio")
    lines = result.output.splitlines()
    assert lines[0] == f"# Configuration from: {first}, {second}"
    assert lines[1:] == ["DEFAULT_PRIO_FACTOR = 10", "PRIORITY_HALFLIFE = 2 * 3600"]
    table = run("--config", str(first), "-dump", "-params", "DEFRAG_INTERVAL").output
    assert "DEFRAG_INTERVAL = 600" in table.splitlines()


def test_bad_configuration_is_one_clear_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.config"
    bad.write_text("A = 1\nA = $(B) x\nE =\n")
    result = CliRunner().invoke(main, ["config_val", "--config", str(bad), "A"], env={})
    assert result.exit_code == 1
    assert result.output == (
        f"fairpool: error: {bad}:2: undefined macro $(B) and no default given\n"
    )
    lenient = run("--config", str(bad), "--lenient", "A")
    assert lenient.exit_code == 0 and lenient.output == "x\n"
    empty = run("--config", str(bad), "--lenient", "E")  # set to nothing: not defined
    assert empty.exit_code == 1 and empty.output == "Not defined: E\n"


def test_help_text() -> None:
    result = run("--help")
    assert result.exit_code == 0 and "condor_config_val" in result.output


def test_parameter_table_needs_no_configuration(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["config_val", "-dump", "-params", "PRIORITY_"], env={"CONDOR_CONFIG": ""}
    )
    lines = result.output.splitlines()
    assert result.exit_code == 0 and "PRIORITY_HALFLIFE = 86400" in lines
