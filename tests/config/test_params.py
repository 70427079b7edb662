"""The parameter table agrees with the defaults coded elsewhere and reads as it says."""

import pytest

from fairpool.accounting.accountant import AccountantPolicy
from fairpool.classad import Expr
from fairpool.config import PARAMS, lookup_param, parse_config_text
from fairpool.negotiator.configure import accountant_policy, negotiator_params
from fairpool.negotiator.params import DEFAULTS
from fairpool.startd.knobs import KNOBS

EMPTY = parse_config_text("", "empty.config", env={})
TYPES = {"bool", "int", "float", "expr", "string", "list", "path"}


def test_unconfigured_negotiator_gets_its_coded_defaults() -> None:
    params = negotiator_params(EMPTY)
    # HTCondor's table spells ifthenElse; params.py ifThenElse: the same function.
    assert str(params.post_job_rank).lower() == str(DEFAULTS.post_job_rank).lower()
    assert params.with_(post_job_rank=DEFAULTS.post_job_rank) == DEFAULTS
    assert accountant_policy(EMPTY) == AccountantPolicy()


def test_spec_readme_decisions() -> None:
    assert EMPTY.get_bool("NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION") is False
    assert EMPTY.get_bool("PREEMPTION_REQUIREMENTS") is False
    assert EMPTY.get("CONCURRENCY_LIMIT_DEFAULT") is None  # no limit, as the seed says


@pytest.mark.parametrize("knob", KNOBS, ids=lambda k: k.name)
def test_startd_knobs_default_to_the_seed_profile(knob) -> None:
    assert EMPTY.get(knob.name) == knob.seed


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DEFRAG_INTERVAL", 600),
        ("DEFRAG_DRAINING_MACHINES_PER_HOUR", 0),
        ("DEFRAG_MAX_CONCURRENT_DRAINING", -1),
        ("DEFRAG_MAX_WHOLE_MACHINES", -1),
        ("DEFRAG_UPDATE_INTERVAL", 300),
        ("CLASSAD_LIFETIME", 900),
        ("ABSENT_EXPIRE_ADS_AFTER", 30 * 86400),
        ("NEGOTIATOR_INTERVAL", 60),
        ("NEGOTIATOR_CYCLE_DELAY", 20),
        ("NEGOTIATOR_MAX_TIME_PER_CYCLE", 1200),
        ("MAX_ACCOUNTANT_DATABASE_SIZE", 1000000),
        ("GROUP_QUOTA_MAX_ALLOCATION_ROUNDS", 3),
        ("POOL_HISTORY_SAMPLING_INTERVAL", 60),
    ],
)
def test_numeric_defaults_of_the_spec(name: str, value: float) -> None:
    assert EMPTY.get_float(name) == value
    assert EMPTY.where(name) == ("<default>", None)


def test_defrag_text_defaults() -> None:
    assert EMPTY.get("DEFRAG_CANCEL_REQUIREMENTS") == "Cpus == TotalSlotCpus"
    assert EMPTY.get("DEFRAG_DRAINING_SCHEDULE") == "graceful"
    chosen = parse_config_text("DEFRAG_SCHEDULE = quick\n", env={})
    assert chosen.get("DEFRAG_DRAINING_SCHEDULE") == "quick"


def test_every_row_is_well_formed_and_its_default_reads_as_its_type() -> None:
    for key, param in PARAMS.items():
        assert key == param.name.upper() and param.type in TYPES and param.doc
        value = EMPTY.get(param.name)  # every default expands, strictly
        assert (value is None) == (param.default is None), key
        if not param.default:
            continue
        if param.type == "bool":
            assert EMPTY.get_bool(param.name) in (True, False), key
        elif param.type in ("int", "float"):
            assert isinstance(EMPTY.get_float(param.name), float), key
        elif param.type == "expr":
            assert isinstance(EMPTY.get_expr(param.name), Expr), key


def test_lookup_is_case_insensitive_and_unknown_knobs_are_kept() -> None:
    assert lookup_param("priority_halflife") is PARAMS["PRIORITY_HALFLIFE"]
    assert lookup_param("MY_SITE_KNOB") is None
    config = parse_config_text("MY_SITE_KNOB = $(PRIORITY_HALFLIFE) s\n", env={})
    assert config.get("my_site_knob") == "86400 s"
