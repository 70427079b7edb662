"""The configuration language, feature by feature (HTCondor's behaviour, checked with
htcondor2 when these cases were written; test_oracle.py keeps checking generated ones)."""

from pathlib import Path

import pytest

from fairpool.config import Scoped, load_config, parse_config_text
from fairpool.negotiator.configure import negotiator_params


def cfg(text: str, **kwargs):
    return parse_config_text(text, "t.config", env=kwargs.pop("env", {}), **kwargs)


def test_names_are_case_insensitive_and_keep_their_spelling() -> None:
    config = cfg("Priority_HalfLife = 100\n")
    assert config.get("PRIORITY_HALFLIFE") == config.get("priority_halflife") == "100"
    assert config.names() == ["Priority_HalfLife"]
    assert config.is_set("PRIORITY_HALFLIFE") and not config.is_set("DEFAULT_PRIO_FACTOR")


def test_macros_are_expanded_when_read_so_later_definitions_count() -> None:
    config = cfg("A = $(B) and $(C:none)\nB = 1\nB = 2\n")
    assert config.get("A") == "2 and none"
    assert config.raw("A") == "$(B) and $(C:none)"


def test_self_reference_takes_the_previous_value() -> None:
    config = cfg("P = /bin\nP = $(P):/usr/bin\nQ = $(Q:first) x\nR = $(R)\n")
    assert config.get("P") == "/bin:/usr/bin"
    assert config.get("Q") == "first x"
    assert config.get("R") == ""
    policy = cfg('START = ($(START)) || Owner == "coltrane"\n').get("START")
    assert policy.startswith("(( (KeyboardIdle > 15 * 60)") and "coltrane" in policy


def test_table_defaults_fill_unset_knobs() -> None:
    config = cfg("X = $(PRIORITY_HALFLIFE)\n")
    assert config.get("X") == "86400"
    assert config.where("PRIORITY_HALFLIFE") == ("<default>", None)
    assert config.where("NO_SUCH_KNOB") == (None, None)
    assert config.get("NO_SUCH_KNOB") is None


def test_continuations_comments_and_blocks() -> None:
    text = "A = x \\\n   y\nB = 1 # kept\n# C = 3\nD @=end\n  one\n# dropped\n  two\n@end\n"
    config = cfg(text)
    assert config.get("A") == "x y"
    assert config.get("B") == "1 # kept"
    assert config.get("C") is None
    assert config.get("D") == "one\ntwo"
    assert config.where("D") == ("t.config", 5)
    listing = cfg("L = a \\\n  #b \\\n  c\n")
    assert listing.get("L") == "a c"


def test_if_elif_else() -> None:
    text = (
        "A = 1\n"
        "if defined A\n X = a\nelse\n X = b\nendif\n"
        "if defined NOPE\n Y = a\nelif version >= 8.6\n Y = b\nelse\n Y = c\nendif\n"
        "if false\n Z = a\nelif $(A)\n Z = b\nendif\n"
        "if ! defined A\n W = a\nelse\n if true\n  W = nested\n endif\nendif\n"
        "if defined PRIORITY_HALFLIFE\n V = table\nendif\n"
    )
    config = cfg(text)
    assert [config.get(n) for n in "XYZWV"] == ["a", "b", "b", "nested", "table"]


def test_include_and_ifexist(tmp_path: Path) -> None:
    child = tmp_path / "child.config"
    child.write_text("CHILD = $(PARENT) child\nPRIORITY_HALFLIFE = 5\n")
    main = tmp_path / "main.config"
    main.write_text(
        f"PARENT = p\ninclude : {child}\ninclude ifexist : {tmp_path}/none.config\n"
        "PRIORITY_HALFLIFE = 6\n"
    )
    config = load_config(main, env={})
    assert config.get("CHILD") == "p child"
    assert config.where("CHILD") == (str(child), 1)
    assert config.where("PRIORITY_HALFLIFE") == (str(main), 4)
    assert config.files == (str(main), str(child))


def test_condor_config_and_local_files(tmp_path: Path) -> None:
    """LOCAL_CONFIG_DIR (name order) is read before LOCAL_CONFIG_FILE, as in HTCondor."""
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "20b").write_text("ORDER = $(ORDER) dir2\n")
    (tmp_path / "d" / "10a").write_text("ORDER = $(ORDER) dir1\n")
    (tmp_path / "d" / "skip.rpmsave").write_text("ORDER = skipped\n")
    (tmp_path / "local").write_text("ORDER = $(ORDER) file\n")
    main = tmp_path / "condor_config"
    main.write_text(
        f"ORDER = main\nLOCAL_CONFIG_DIR = {tmp_path}/d\nLOCAL_CONFIG_FILE = {tmp_path}/local\n"
    )
    config = load_config(env={"CONDOR_CONFIG": str(main), "_CONDOR_EXTRA": "from env"})
    assert config.get("ORDER") == "main dir1 dir2 file"
    assert config.get("EXTRA") == "from env"
    assert config.where("EXTRA") == ("<environment>", None)


def test_metaknob_arguments() -> None:
    config = cfg("use FEATURE : PartitionableSlot(2, cpus=50%)\nuse feature : StaticSlots(3, 4)\n")
    assert config.get("SLOT_TYPE_2") == "cpus=50%"
    assert config.get("SLOT_TYPE_2_PARTITIONABLE") == "true"
    assert config.get("NUM_SLOTS_TYPE_3") == "4"
    mapped = cfg("use FEATURE : AssignAccountingGroup(/etc/condor/groups.map)\n")
    assert mapped.get("CLASSAD_USER_MAPFILE_AssignAccountingGroup") == "/etc/condor/groups.map"
    assert mapped.get("JOB_TRANSFORM_NAMES") == "AssignAccountingGroup"
    assert mapped.get("JOB_TRANSFORM_AssignAccountingGroup").count("\n") == 3


def test_always_run_jobs_policy_reaches_the_negotiator() -> None:
    config = cfg("use POLICY : ALWAYS_RUN_JOBS\n")
    assert config.get_bool("START") is True and config.get_bool("PREEMPT") is False
    assert negotiator_params(config).consider_preemption is False


def test_uwcs_desktop_policy_later_lines_win() -> None:
    config = cfg("use POLICY : UWCS_DESKTOP\nStartIdleTime = 5 * 60\n")
    assert "(KeyboardIdle > 5 * 60)" in config.get("START")
    assert config.where("START") == ("t.config", 1)


def test_typed_accessors_read_classad_expressions() -> None:
    config = cfg("A = 60 * 60\nB = True\nC = 2.5\nD = $(A) / 2\nE = a, b  c\nF =\nG = 0\n")
    assert config.get_int("A") == 3600 and config.get_float("D") == 1800.0
    assert config.get_bool("B") is True and config.get_bool("G") is False
    assert config.get_float("C") == 2.5
    assert config.get_list("E") == ["a", "b", "c"]
    assert config.get_int("F", 7) == 7 and config.get_expr("F") is None
    assert config.get_list("NOPE") == []
    empty = cfg("PRIORITY_HALFLIFE =\n")
    assert empty.get("PRIORITY_HALFLIFE") == "" and empty.get_float("PRIORITY_HALFLIFE") == 86400


@pytest.mark.parametrize(
    ("text", "call"),
    [
        ("A = 2.5", "get_int"),
        ('A = "x"', "get_float"),
        ('A = "x"', "get_bool"),
        ("A = (1", "get_expr"),
    ],
)
def test_typed_accessors_refuse_wrong_types(text: str, call: str) -> None:
    config = cfg(text + "\n")
    with pytest.raises(Exception, match=r"t\.config:1: A = .*expected"):
        getattr(config, call)("A")


def test_random_and_env_are_repeatable() -> None:
    text = "R = $RANDOM_INTEGER(1, 1000)\nC = $RANDOM_CHOICE(a, b, c, d, e)\nH = $ENV(HOME)\n"
    one, two = cfg(text, seed=3, env={"HOME": "/h"}), cfg(text, seed=3, env={"HOME": "/h"})
    assert (one.get("R"), one.get("C")) == (two.get("R"), two.get("C"))
    assert one.get("R") == one.get("R") and one.get("H") == "/h"
    others = {cfg(text, seed=s).get("R") for s in range(10)}
    assert len(others) > 1


def test_scoped_view_for_a_named_negotiator() -> None:
    text = "NEGOTIATOR_SLOT_CONSTRAINT = A\nALLOC.NEGOTIATOR_SLOT_CONSTRAINT = B\nX.Y_LIMIT = 3\n"
    config = cfg(text)
    assert Scoped(config, "ALLOC", "NEGOTIATOR").get("NEGOTIATOR_SLOT_CONSTRAINT") == "B"
    assert Scoped(config, "NEGOTIATOR").get("NEGOTIATOR_SLOT_CONSTRAINT") == "A"
    assert Scoped(config, "ALLOC").where("NEGOTIATOR_SLOT_CONSTRAINT") == ("t.config", 2)
    assert Scoped(config, "ALLOC").names() == ["NEGOTIATOR_SLOT_CONSTRAINT", "X.Y_LIMIT"]


def test_macros_in_knob_names_and_warning_lines() -> None:
    config = cfg("G = phys\nGROUP_QUOTA_$(G) = 10\nwarning : check $(G)\n")
    assert config.get("GROUP_QUOTA_phys") == "10"
    assert config.names() == ["G", "GROUP_QUOTA_phys"]
    assert config.warnings == ["t.config:3: check phys"]
