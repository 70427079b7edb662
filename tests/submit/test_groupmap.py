"""Accounting-group map files: the seed's example, choice lists, refusals, reload."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairpool.errors import SubmitError
from fairpool.submit import GroupMap, parse_submit

SEED_MAP = Path(__file__).parents[1] / "data" / "submit" / "groups" / "seed.map"


@pytest.fixture
def seed() -> GroupMap:
    return GroupMap.read(SEED_MAP)


@pytest.mark.parametrize(
    ("user", "group"),
    [
        ("Alice", "group_physics"),
        ("Bob", "group_atlas"),
        ("Carol", "group_physics"),
        ("student_jo", "group_students"),
        ("student_", "group_students"),
    ],
)
def test_seed_map_assigns_each_user_their_group(seed: GroupMap, user: str, group: str):
    assert seed.groups_for(user) == [group]
    assert seed.assign(user, None) == group
    assert seed.assign(user, group) == group


def test_seed_map_refuses_another_group(seed: GroupMap):
    with pytest.raises(SubmitError) as caught:
        seed.assign("Alice", "group_atlas")
    err = caught.value
    assert err.source == str(SEED_MAP) and err.line == 2
    # SUBMIT_REQUIREMENT_CheckRequestedGroup_REASON of the metaknob
    assert "Permission denied setting accounting_group to group_atlas" in err.message
    assert "group_physics" in err.message


def test_users_the_map_does_not_name_are_refused(seed: GroupMap):
    # manual, "Configuration Templates", AssignAccountingGroup: the Owner is mapped to
    # its allowed groups; a user the map does not name fails
    # SUBMIT_REQUIREMENT_AssignAccountingGroup, with its reason
    assert seed.groups_for("dave") == []
    for requested, tail in (("group_cms", " group_cms"), (None, "")):
        with pytest.raises(SubmitError) as caught:
            seed.assign("dave", requested)
        assert caught.value.message == (
            "Submit requirement AssignAccountingGroup not met - Could not map 'dave' to an "
            "accounting group" + tail
        )
    assert seed.groups_for("alice") == []  # literal names keep their case
    assert seed.groups_for("a_student_x") == []  # the pattern is anchored with ^


def test_choice_list_first_is_default():
    groups = GroupMap.parse("* Dave group_cms, group_atlas\n")
    assert groups.groups_for("Dave") == ["group_cms", "group_atlas"]
    assert groups.assign("Dave", None) == "group_cms"
    assert groups.assign("Dave", "group_atlas") == "group_atlas"
    with pytest.raises(
        SubmitError, match="Permission denied setting accounting_group to group_lhcb"
    ):
        groups.assign("Dave", "group_lhcb")


def test_an_unchecked_request_falls_back_to_the_first_group(tmp_path):
    # AssignAccountingGroup(map, false): "the requested accounting group will be ignored
    # if it is not valid" (manual, "Configuration Templates"); the user gets the group
    # the map gives first
    from fairpool.config import parse_config_text
    from fairpool.submit import configured_group_map

    path = tmp_path / "groups.map"
    path.write_text("* Dave group_cms, group_atlas\n")
    for argument, check in (("", True), (", true", True), (", false", False)):
        config = parse_config_text(f"use FEATURE : AssignAccountingGroup({path}{argument})\n")
        groups = configured_group_map(config)
        assert groups.check_request is check
    assert groups.assign("Dave", "group_lhcb") == "group_cms"
    assert groups.assign("Dave", "group_atlas") == "group_atlas"


def test_literal_before_pattern_and_case_option():
    groups = GroupMap.parse("* /^a/i g_pattern\n* alice g_literal\n")
    assert groups.assign("alice", None) == "g_literal"
    assert groups.assign("Andy", None) == "g_pattern"


def test_refusal_from_a_submit_file_names_the_submit_line(seed: GroupMap):
    text = "executable = x\naccounting_group = group_atlas\nqueue\n"
    with pytest.raises(SubmitError) as caught:
        parse_submit(text, "job.sub").job_ads(owner="Alice", group_map=seed)
    err = caught.value
    assert (err.source, err.line) == ("job.sub", 2)
    assert "Permission denied setting accounting_group to group_atlas" in err.message
    assert f"{SEED_MAP}:2" in err.message


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("Alice group_physics\n", 1, "expected '*' as the first column"),
        ("# c\n* Alice\n", 2, "expected a third column"),
        ("* /^student_.*  group_students\n", 1, "regular expression is not closed"),
        ("* /(/ g\n", 1, "bad regular expression"),
        ("* /a/x g\n", 1, "unknown regular-expression option 'x'"),
        ("* Bob g1,,\n* Carol\n", 2, "expected a third column"),
    ],
)
def test_bad_map_lines(text: str, line: int, message: str):
    with pytest.raises(SubmitError) as caught:
        GroupMap.parse(text, "groups.map")
    assert (caught.value.source, caught.value.line) == ("groups.map", line)
    assert message in caught.value.message


def test_reload_reads_the_new_map_and_keeps_the_old_on_error(tmp_path: Path):
    path = tmp_path / "groups.map"
    path.write_text("* Alice group_physics\n")
    groups = GroupMap.read(path)
    path.write_text("* Alice group_atlas\n")
    assert groups.reload() is None
    assert groups.groups_for("Alice") == ["group_atlas"]
    path.write_text("* Alice group_atlas\nbroken line\n")
    problem = groups.reload()
    assert problem is not None and f"{path}:2:" in problem
    assert groups.groups_for("Alice") == ["group_atlas"]
    path.unlink()
    assert "cannot read" in (groups.reload() or "")
    assert groups.groups_for("Alice") == ["group_atlas"]


def test_missing_map_file(tmp_path: Path):
    with pytest.raises(SubmitError, match="cannot read accounting-group map"):
        GroupMap.read(tmp_path / "nope.map")
