"""The accountant's store on SQLite and PostgreSQL (store/accountant_store.py): records,
leases and group figures come back as saved; accountants sharing one database keep apart
by name, and two stores of one name (the negotiators of two central managers) are one
accountant; Accountantnew.log is written where it is told, wherever the database is.
"""

from __future__ import annotations

from fairpool.accounting.accountant import Usage
from fairpool.store.accountant_store import AccountantStore
from fairpool.store.classadlog import read_accountant_log

T0 = 1_750_000_000
FIGURES = {
    "group_a": {
        "quota": 4.0,
        "config_quota": 4.0,
        "dynamic": 0,
        "subtree_quota": 6.0,
        "requested": 9.0,
        "surplus": "regroup",
        "sort_key": 0.5,
        "allocated": 4.0,
    },
    "group_b": {
        "quota": 0.25,
        "config_quota": 0.25,
        "dynamic": 1,
        "subtree_quota": 2.0,
        "requested": 1.0,
        "surplus": "no",
        "sort_key": 3.3e38,
        "allocated": 1.0,
    },
}


def _busy(store: AccountantStore, user: str, factor: float) -> None:
    """One cycle's worth of changes for ``user``, saved."""
    accountant = store.load()
    accountant.update_priorities(T0)
    accountant.set_factor(user, factor)
    accountant.set_usage({user: Usage(2, 3.0)})
    accountant.update_priorities(T0 + 600)
    store.save(accountant)


def test_records_leases_and_groups_come_back(engine, reopen):
    store = AccountantStore(engine)
    accountant = store.load()
    accountant.update_priorities(T0)
    accountant.set_usage({"a@d": Usage(3, 12.0), "b@d": Usage(1, 1.0)})
    accountant.set_lease("a@d", "ceiling", 5, 3600, T0)
    accountant.set_lease("a@d", "priority-factor", 5000.0, 120, T0)
    accountant.set_floor("b@d", 2)
    accountant.set_lease("a@d", "floor", 1, 2**32, T0)  # it ends long after 2038
    accountant.update_priorities(T0 + 60)
    store.save(accountant, FIGURES)
    accountant.delete("b@d")
    store.save(accountant)
    again = AccountantStore(reopen())
    loaded = again.load()
    assert loaded.last_update == T0 + 60
    assert loaded.customers == accountant.customers
    record = loaded.customers["a@d"]
    assert (record.ceiling, record.ceiling_lease_expiration) == (5, T0 + 3600)
    assert (record.factor, record.factor_pre_lease_value) == (5000.0, 1000.0)
    assert record.floor_lease_expiration == T0 + 2**32
    assert again.group_figures() == FIGURES
    loaded.update_priorities(T0 + 200)  # the factor's lease is over, the ceiling's is not
    assert (loaded.customers["a@d"].factor, loaded.customers["a@d"].ceiling) == (1000.0, 5)


def test_accountants_sharing_a_database_keep_apart_by_name(engine, reopen):
    _busy(AccountantStore(engine, name="negotiator-a"), "alice@d", 2000)
    _busy(AccountantStore(reopen(), name="negotiator-b"), "bob@d", 3000)
    AccountantStore(engine, name="negotiator-b").save(
        AccountantStore(engine, name="negotiator-b").load(), FIGURES
    )
    first = AccountantStore(reopen(), name="negotiator-a")
    second = AccountantStore(reopen(), name="negotiator-b")
    assert set(first.load().customers) == {"alice@d"}
    assert set(second.load().customers) == {"bob@d"}
    assert first.group_figures() == {} and second.group_figures() == FIGURES
    assert AccountantStore(reopen()).load().customers == {}  # the unnamed one: empty


def test_two_stores_of_one_name_are_one_accountant(engine, reopen):
    """The negotiators of two central managers, configured alike, share one accountant:
    what the active one saves, the standby reads when it takes over."""
    active, standby = AccountantStore(engine), AccountantStore(reopen())
    _busy(active, "alice@d", 2000)
    taken_over = standby.load()
    assert taken_over.customers["alice@d"].factor == 2000
    assert taken_over.customers["alice@d"].resources_used == 2
    taken_over.set_factor("alice@d", 4000)
    standby.save(taken_over)
    assert active.load().customers["alice@d"].factor == 4000


def test_the_accountant_log_goes_where_it_is_told(engine, tmp_path):
    log = tmp_path / "Accountantnew.log"  # beside the state directory, not in it
    store = AccountantStore(engine, log=log)
    _busy(store, "alice@d", 2000)
    last, records = read_accountant_log(log.read_text())
    assert last == T0 + 600 and [r.name for r in records] == ["alice@d"]
    assert records[0].factor == 2000
    quiet = AccountantStore(engine)  # no log given: none written
    _busy(quiet, "bob@d", 3000)
    assert [r.name for r in read_accountant_log(log.read_text())[1]] == ["alice@d"]


def test_a_committed_output_is_put_in_place(engine, tmp_path):
    written, final = tmp_path / "out.json.tmp", tmp_path / "out.json"
    written.write_text("{}")
    store = AccountantStore(engine)
    store.save(store.load(), output=(str(written), str(final)))
    assert final.read_text() == "{}" and not written.exists()
