"""Reading the startd's knobs: through fairpool.config, through a plain mapping or the
tests' TextKnobs, with the profile's defaults for what is unset, and clear errors."""

import pytest

from fairpool.config import load_config
from fairpool.errors import ConfigError
from fairpool.startd.knobs import SEED_POLICY
from fairpool.startd.policy import StartdPolicy
from fairpool.startd.profile import MODERN
from knobs import TextKnobs


def test_seed_profile_defaults_are_the_seed_policy():
    policy = StartdPolicy.from_knobs({})
    assert policy.text("START") == SEED_POLICY["START"]
    assert policy.text("IsOwner") == "(START =?= False)"
    assert (
        policy.match_timeout,
        policy.killing_timeout,
        policy.profile.unclaimed_current_rank,
    ) == (300, 30, -1.0)


def test_modern_profile_defaults():
    policy = StartdPolicy.from_knobs({}, MODERN)
    assert (policy.text("START"), policy.text("IsOwner"), policy.match_timeout) == (
        "True",
        "False",
        120,
    )
    assert policy.claim_worklife == 1200


def test_config_file_self_reference(tmp_path):
    path = tmp_path / "coltrane.config"
    path.write_text('START = ($(START)) || Owner == "coltrane"\nMATCH_TIMEOUT = 120\n')
    policy = StartdPolicy.from_knobs(load_config(str(path)))
    assert policy.text("START") == f'({SEED_POLICY["START"]}) || Owner == "coltrane"'
    assert policy.match_timeout == 120


def test_errors_name_the_knob_and_where_it_was_set():
    knobs = TextKnobs("START = True\nMATCH_TIMEOUT = soon\n", source="startd.config")
    with pytest.raises(ConfigError) as caught:
        StartdPolicy.from_knobs(knobs)
    assert str(caught.value).startswith("startd.config:2: MATCH_TIMEOUT")
    with pytest.raises(ConfigError, match=r"START .*expected a ClassAd expression"):
        StartdPolicy.from_knobs({"START": "KeyboardIdle >"})


def test_table_defaults_give_way_to_the_profile(tmp_path):
    # fairpool.config's table holds the seed's policy; under MODERN, knobs no file sets
    # take current HTCondor's defaults, while those a file sets (here by a metaknob) win.
    path = tmp_path / "startd.config"
    path.write_text("use POLICY : ALWAYS_RUN_JOBS\n")
    modern = StartdPolicy.from_knobs(load_config(str(path)), MODERN)
    assert (modern.text("IsOwner"), modern.match_timeout) == ("False", 120)
    assert modern.text("MaxJobRetirementTime") == "2147483647"
    seed = StartdPolicy.from_knobs(load_config(str(path)))
    # (the metaknob sets IS_OWNER too)
    assert (seed.text("IsOwner"), seed.match_timeout, seed.text("START")) == (
        "False",
        300,
        "True",
    )
