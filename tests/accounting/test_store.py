"""Keeping the accountant across restarts and crashes."""

import os
import subprocess
import sys
import textwrap

from fairpool.accounting.accountant import Usage
from fairpool.store.accountant_store import AccountantStore
from fairpool.store.classadlog import read_accountant_log

T0 = 1_750_000_000


def test_state_survives_a_restart(tmp_path):
    store = AccountantStore(tmp_path)
    acct = store.load()
    acct.update_priorities(T0)
    acct.set_factor("a@d", 2000)
    acct.set_usage({"a@d": Usage(3, 12.0)})
    acct.update_priorities(T0 + 60)
    store.save(acct)
    again = AccountantStore(tmp_path).load()
    assert again.last_update == T0 + 60
    assert again.customers["a@d"] == acct.customers["a@d"]


def test_only_whole_saves_reach_the_disk(tmp_path):
    # A process killed while it changes records in memory leaves the last saved state.
    script = textwrap.dedent(
        f"""
        import os, signal
        from fairpool.store.accountant_store import AccountantStore
        store = AccountantStore({str(tmp_path)!r})
        acct = store.load()
        acct.update_priorities({T0})
        acct.set_factor("a@d", 2000)
        store.save(acct)
        acct.set_factor("a@d", 3000)
        acct.set_factor("b@d", 4000)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], env=dict(os.environ))
    assert done.returncode == -9
    acct = AccountantStore(tmp_path).load()
    assert acct.customers["a@d"].factor == 2000
    assert "b@d" not in acct.customers


def test_an_htcondor_log_is_imported(tmp_path):
    (tmp_path / "Accountantnew.log").write_text(
        "107 1 CreationTimestamp 1724250000\n"
        "101 Accountant. * *\n"
        "103 Accountant. LastUpdateTime 1724250060\n"
        "101 Customer.alice@cs.wisc.edu * *\n"
        "103 Customer.alice@cs.wisc.edu PriorityFactor 1000.000000\n"
        "105 \n"
        "103 Customer.alice@cs.wisc.edu Priority 0.547883\n"
        "103 Customer.alice@cs.wisc.edu WeightedAccumulatedUsage 6000.000000\n"
        "106 \n"
        "105 \n"
        "103 Customer.alice@cs.wisc.edu Priority 99.0\n"  # an unfinished transaction
    )
    acct = AccountantStore(tmp_path).load()
    assert acct.last_update == 1724250060
    record = acct.customers["alice@cs.wisc.edu"]
    assert (record.priority, record.factor) == (0.547883, 1000)
    assert record.weighted_accumulated_usage == 6000


def test_our_log_reads_back_as_the_state(tmp_path):
    store = AccountantStore(tmp_path)
    acct = store.load()
    acct.update_priorities(T0)
    acct.set_usage({"a@d": Usage(2, 2.0), "b@d": Usage(1, 4.0)})
    acct.update_priorities(T0 + 3600)
    store.save(acct)
    acct.delete("b@d")
    store.save(acct)
    last, records = read_accountant_log((tmp_path / "Accountantnew.log").read_text())
    assert last == T0 + 3600
    assert {r.name for r in records} == {"a@d"}
    assert records[0].priority == round(acct.customers["a@d"].priority, 6)
