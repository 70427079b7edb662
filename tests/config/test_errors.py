"""Bad configurations: each error names the file, the line and what was expected."""

from pathlib import Path

import pytest

from fairpool.config import ConfigHolder, load_config, parse_config_text
from fairpool.errors import ConfigError, InputError


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        ("A = 1\njust words\n", 2, "expected NAME = value"),
        ("A = 1\nB @=end\nno end\n", 2, "expected a line '@end'"),
        ("if true\nA = 1\n", 1, "expected 'endif'"),
        ("A = 1\nendif\n", 2, "'endif' without 'if'"),
        ("else\n", 1, "'else' without 'if'"),
        ("if $(A:1) == 1\nendif\n", 1, "expected a condition"),
        ("if version >= 25\nendif\n", 1, "expected a condition"),
        ("use POLICY : NO_SUCH_POLICY\n", 1, "unknown metaknob POLICY:NO_SUCH_POLICY"),
        ("use POLICY\n", 1, "expected 'use CATEGORY : TEMPLATE"),
        ("use FEATURE : GPUs(x\n", 1, "expected '\\)'"),
        ("include : \n", 1, "expected 'include : FILE'"),
        ("include command : echo A=1\n", 1, "include command is not supported"),
        ("error : stop $(REASON:here)\n", 1, "error statement: stop here"),
        ("A = $(B\n", 1, "expected '\\)' to close"),
        ("A = $INT(B)\nB = x\n", 1, "expected a number"),
    ],
)
def test_syntax_errors_name_file_line_and_expectation(text: str, line: int, expected) -> None:
    with pytest.raises(ConfigError, match=expected) as caught:
        parse_config_text(text, "bad.config", env={})
    assert isinstance(caught.value, InputError)
    assert (caught.value.source, caught.value.line) == ("bad.config", line)
    assert str(caught.value).startswith(f"bad.config:{line}: ")


def test_undefined_macro_names_it_and_where_it_is_used() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config_text("A = 1\nB = x $(MISSING) y\n", "bad.config", env={})
    assert caught.value.knob == "MISSING"
    assert str(caught.value) == ("bad.config:2: undefined macro $(MISSING) and no default given")


def test_undefined_macro_is_empty_when_lenient_as_in_htcondor() -> None:
    config = parse_config_text("B = x $(MISSING) y\n", "f", env={}, strict=False)
    assert config.get("B") == "x  y"
    assert config.warnings == ["B: f:1: undefined macro $(MISSING) and no default given"]


def test_macro_cycle_names_the_chain() -> None:
    text = "A = $(B)\nB = $(C) + 1\nC = $(a)\n"
    with pytest.raises(ConfigError, match=r"macro cycle: A -> B -> C -> A") as caught:
        parse_config_text(text, "cycle.config", env={})
    assert caught.value.source == "cycle.config" and caught.value.line == 1


def test_missing_files() -> None:
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config("/nonexistent/condor_config", env={})
    with pytest.raises(ConfigError, match="set CONDOR_CONFIG or pass --config"):
        load_config(env={"CONDOR_CONFIG": ""} if Path("/etc/condor/condor_config").exists() else {})


def test_include_loops_stop(tmp_path: Path) -> None:
    loop = tmp_path / "loop.config"
    loop.write_text(f"include : {loop}\n")
    with pytest.raises(ConfigError, match="nested deeper than 20"):
        load_config(loop, env={})


def test_failed_reload_keeps_the_previous_configuration(tmp_path: Path) -> None:
    path = tmp_path / "condor_config"
    path.write_text("PRIORITY_HALFLIFE = 100\n")
    holder = ConfigHolder(load_config(path, env={}))
    path.write_text("PRIORITY_HALFLIFE = $(BROKEN\n")
    assert holder.reload() is False
    assert holder.current.get("PRIORITY_HALFLIFE") == "100"
    assert holder.last_error is not None and holder.last_error.line == 1
    path.write_text("PRIORITY_HALFLIFE = 200\n")
    assert holder.reload() is True
    assert holder.current.get("PRIORITY_HALFLIFE") == "200" and holder.last_error is None


def test_reload_reads_the_files_again(tmp_path: Path) -> None:
    path = tmp_path / "condor_config"
    path.write_text("A = 1\n")
    first = load_config(path, env={})
    path.write_text("A = 2\n")
    assert first.reload().get("A") == "2" and first.get("A") == "1"


def test_conditions_and_includes_follow_the_strictness(tmp_path: Path) -> None:
    text = "if $(UNSET_FLAG)\nA = 1\nelse\nA = 2\nendif\n"
    with pytest.raises(ConfigError, match="UNSET_FLAG") as caught:
        parse_config_text(text, "c.config", env={})
    assert caught.value.line == 1
    assert parse_config_text(text, "c.config", env={}, strict=False).get("A") == "2"


def test_missing_local_config_file_names_the_knob(tmp_path: Path) -> None:
    main = tmp_path / "condor_config"
    main.write_text(f"A = 1\nLOCAL_CONFIG_FILE = {tmp_path}/missing.local\n")
    with pytest.raises(ConfigError, match=r"LOCAL_CONFIG_FILE names .*missing\.local") as caught:
        load_config(main, env={})
    assert (caught.value.source, caught.value.line) == (str(main), 2)
    main.write_text(main.read_text() + "REQUIRE_LOCAL_CONFIG_FILE = False\n")
    assert load_config(main, env={}).get("A") == "1"
