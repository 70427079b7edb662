"""From configuration knobs to negotiator parameters: values, defaults and bad input."""

import pytest

from cycles import PARAMS
from fairpool.classad import Expr
from fairpool.config import parse_config_text
from fairpool.errors import ConfigError
from fairpool.negotiator import DEFAULTS
from fairpool.negotiator.concurrency import LimitConfig
from fairpool.negotiator.configure import accountant_policy, negotiator_params
from fairpool.negotiator.groups import GroupConfig
from knob_text import knob_text
from knobs import TextKnobs


def test_values_and_defaults():
    params = negotiator_params(
        TextKnobs(
            "PREEMPTION_REQUIREMENTS = RemoteUserPrio > TARGET.SubmitterUserPrio * 1.2\n"
            "NEGOTIATOR_CONSIDER_PREEMPTION = False\n"
            "NEGOTIATOR_USE_SLOT_WEIGHTS = FALSE\n"
            "UID_DOMAIN = cs.wisc.edu\n"
            "XSW_LIMIT = 3\n"
            "CONCURRENCY_LIMIT_DEFAULT_LARGE = 100\n"
            "GROUP_NAMES = a, b, a.x\n"
            "GROUP_QUOTA_a = 10\n"
            "GROUP_QUOTA_DYNAMIC_b = 0.5\n"
            "GROUP_ACCEPT_SURPLUS = True\n"
            "GROUP_ACCEPT_SURPLUS_a = False\n"
            "HFS_ROUND_ROBIN_RATE = 1.0\n"
        )
    )
    assert params.preemption_requirements == Expr("RemoteUserPrio > TARGET.SubmitterUserPrio * 1.2")
    assert (params.consider_preemption, params.use_slot_weights) == (False, False)
    assert params.accounting_domain == "cs.wisc.edu"
    assert params.concurrency.capacity("xsw") == 3
    assert params.concurrency.capacity("large.db") == 100
    assert params.concurrency.capacity("other") == float("inf")
    groups = params.groups
    assert groups.names == ("a", "b", "a.x")
    assert (groups.static_quota, groups.dynamic_quota) == ({"a": 10}, {"b": 0.5})
    assert groups.accept_surplus == {"a": False} and groups.default_accept_surplus
    assert groups.round_robin_rate == 1.0 and not groups.allow_oversubscription
    default = negotiator_params(TextKnobs(""))
    assert str(default.preemption_requirements) == "false"
    assert not default.groups.enabled


def test_accountant_knobs():
    policy = accountant_policy(
        TextKnobs(
            "PRIORITY_HALFLIFE = 21600\nDEFAULT_PRIO_FACTOR = 1000\n"
            "GROUP_PRIO_FACTOR_group_a = 50\n"
        )
    )
    assert (policy.halflife, policy.default_factor) == (21600, 1000)
    assert policy.group_factors == {"group_a": 50}


@pytest.mark.parametrize(
    "text, knob, line, message",
    [
        ("GROUP_NAMES = a\nGROUP_QUOTA_a = -5\n", "GROUP_QUOTA_a", 2, "a quota of 0 or more"),
        (
            "GROUP_NAMES = a\nGROUP_QUOTA_DYNAMIC_a = 1.5\n",
            "GROUP_QUOTA_DYNAMIC_a",
            2,
            "from 0 to 1",
        ),
        ("A.B.C_LIMIT = 4\n", "A.B.C_LIMIT", 1, "at most one period"),
        ("3D_LIMIT = 4\n", "3D_LIMIT", 1, "not starting with a digit"),
        (
            "PREEMPTION_REQUIREMENTS = RemoteUserPrio >\n",
            "PREEMPTION_REQUIREMENTS",
            1,
            "a ClassAd expression",
        ),
        ("PRIORITY_HALFLIFE = soon\n", "PRIORITY_HALFLIFE", 1, "a number"),
    ],
)
def test_errors_name_the_knob_and_where_it_was_set(text, knob, line, message):
    with pytest.raises(ConfigError) as err:
        negotiator_params(TextKnobs(text))
        accountant_policy(TextKnobs(text))
    assert (err.value.knob, err.value.source, err.value.line) == (knob, "test.config", line)
    assert message in str(err.value) and str(err.value).startswith(f"test.config:{line}: ")


def test_warnings_are_reported_and_the_knob_ignored():
    warnings = []
    params = negotiator_params(
        TextKnobs("GROUP_NAMES = a, b.c\nGROUP_QUOTA_a = 5\nGROUP_QUOTA_x = 7\n"),
        warnings.append,
    )
    assert [w.knob for w in warnings] == ["GROUP_QUOTA_x", "GROUP_NAMES"]
    assert "'x' is not in GROUP_NAMES" in str(warnings[0])
    assert "has no parent 'b'" in str(warnings[1])
    assert params.groups.static_quota == {"a": 5, "x": 7}


ROUND_TRIP = [
    PARAMS,
    PARAMS.with_(preemption_requirements=Expr("RemoteUserPrio > SubmitterUserPrio * 1.2")),
    PARAMS.with_(floor_is_additional=True, preempt_on_better_priority_only=False),
    PARAMS.with_(slot_constraint=Expr("SlotID == 7"), significant_attributes=("Owner",)),
    PARAMS.with_(concurrency=LimitConfig({"xsw": 3.0}, 5.0, {"large": 100.0})),
    PARAMS.with_(
        groups=GroupConfig(
            names=("a", "a.x", "b"),
            static_quota={"a": 10.0},
            dynamic_quota={"b": 0.5},
            accept_surplus={"a.x": True},
            autoregroup={"b": True},
            allow_oversubscription=True,
            round_robin_rate=1.0,
        )
    ),
]


@pytest.mark.parametrize("params", ROUND_TRIP)
def test_parameters_written_as_configuration_read_back_the_same(params):
    """knob_text (how the scenario tests drive ``fairpool negotiate``) and configure.py are
    inverses, through HTCondor's configuration language as fairpool.config reads it."""
    assert negotiator_params(parse_config_text(knob_text(params), "round-trip")) == params


def test_an_empty_configuration_gives_the_coded_defaults():
    """The parameter table's defaults (fairpool.config) and the negotiator's own agree."""
    assert negotiator_params(parse_config_text("", "empty")) == DEFAULTS
