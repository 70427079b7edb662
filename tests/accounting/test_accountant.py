"""The accountant's arithmetic and rules (spec negotiator.md §1)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairpool.accounting.accountant import Accountant, AccountantPolicy, Usage

T0 = 1_750_000_000


def test_factor_is_chosen_on_first_sight_and_then_kept():
    policy = AccountantPolicy(local_domain="cs.wisc.edu", group_factors={"group_physics": 50})
    acct = Accountant(policy, assign_group=lambda n: "group_physics" if "physics" in n else None)
    assert acct.customer("alice@cs.wisc.edu").factor == 1000  # DEFAULT_PRIO_FACTOR
    assert acct.customer("nice-user.bob@cs.wisc.edu").factor == 1e10  # NICE_USER_PRIO_FACTOR
    assert acct.customer("carol@elsewhere.org").factor == 1e7  # REMOTE_PRIO_FACTOR
    assert acct.customer("group_physics.dan@cs.wisc.edu").factor == 50  # GROUP_PRIO_FACTOR
    acct.policy = AccountantPolicy(default_factor=5)
    assert acct.customer("alice@cs.wisc.edu").factor == 1000  # sticky
    assert acct.customer("erin@cs.wisc.edu").factor == 5


def test_view_does_not_create_records():
    acct = Accountant()
    assert acct.view()["new@d"].eup == 500.0
    assert "new@d" not in acct.customers


def test_eup_is_rup_times_factor():
    acct = Accountant()
    acct.set_priority("a@d", 3)
    acct.set_factor("a@d", 2000)
    assert acct.eup("a@d") == 6000
    acct.set_factor("a@d", 0.2)  # clamped to 1
    assert acct.customer("a@d").factor == 1


@given(
    usages=st.lists(st.floats(min_value=0, max_value=1000), min_size=1, max_size=20),
    steps=st.lists(st.integers(min_value=1, max_value=7200), min_size=1, max_size=20),
)
def test_rup_follows_the_closed_form_over_uneven_intervals(usages, steps):
    # With constant usage U, P(t) = U + (P0 - U) * 0.5**(t/h) whatever the intervals.
    usage = usages[0]
    acct = Accountant()
    acct.update_priorities(T0)
    acct.set_usage({"a@d": Usage(1, usage)})
    now = T0
    for step in steps:
        now += step
        acct.update_priorities(now)
    expected = usage + (0.5 - usage) * 0.5 ** ((now - T0) / 86400)
    assert acct.customer("a@d").priority == pytest.approx(max(expected, 0.5), rel=1e-9, abs=1e-9)


def test_rup_never_goes_below_half():
    acct = Accountant()
    acct.update_priorities(T0)
    acct.update_priorities(T0 + 10 * 86400)
    assert acct.customer("x@d").priority == 0.5


def test_usage_accumulates_and_marks_times():
    acct = Accountant()
    acct.update_priorities(T0)
    acct.set_usage({"a@d": Usage(2, 8.0)})
    acct.update_priorities(T0 + 600)
    record = acct.customer("a@d")
    assert (record.accumulated_usage, record.weighted_accumulated_usage) == (1200, 4800)
    assert (record.begin_usage_time, record.last_usage_time) == (T0 + 600, T0 + 600)


def test_group_usage_adds_up_the_subtree():
    groups = {"g.a.u@d": "g.a", "g.b.v@d": "g.b", "w@d": "<none>"}
    acct = Accountant(assign_group=groups.get)
    acct.set_usage({"g.a.u@d": Usage(3, 3.0), "g.b.v@d": Usage(2, 4.0), "w@d": Usage(1, 1.0)})
    assert acct.customer("g.a").weighted_resources_used == 3
    assert acct.customer("g").weighted_resources_used == 0  # no direct members
    assert acct.customer("g").hier_weighted_resources_used == 7  # the whole subtree
    assert acct.customer("<none>").hier_weighted_resources_used == 1


def test_admin_edits_validate():
    acct = Accountant()
    with pytest.raises(ValueError):
        acct.set_ceiling("a@d", -2)
    with pytest.raises(ValueError):
        acct.set_floor("a@d", -1)
    with pytest.raises(KeyError):
        acct.delete("nobody@d")
