"""Running negotiation cycles in tests: one call, counts per submitter back.

A cycle runs one of two ways, chosen by the ``negotiation_path`` fixture (conftest.py):

* ``library``: ``run_cycle`` on the ads and parameters as given;
* ``command``: the whole ``fairpool negotiate`` command, as an administrator runs it: the
  ads written to files (old syntax, as condor_status -l prints them), the parameters written
  as an HTCondor configuration file (knob_text.py), the accountant saved to a state
  directory, and the decisions read back from ``--json``.

Scenario modules that use ``pytestmark = pytest.mark.usefixtures("negotiation_path")`` run
every test both ways and so show that the command reaches the library's numbers.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from click.testing import CliRunner

from fairpool.accounting.accountant import Accountant, AccountantPolicy
from fairpool.classad import ClassAd, write_old
from fairpool.cli.main import main
from fairpool.negotiator import CycleResult, NegotiatorParams, PoolSnapshot, run_cycle
from fairpool.store.accountant_store import AccountantStore
from knob_text import knob_text

NOW = 1_750_000_000.0
PARAMS = NegotiatorParams(accounting_domain="d")
LIBRARY, COMMAND = "library", "command"
PATH = {"current": LIBRARY}  # set by the negotiation_path fixture


def cycle(
    slot_ads: Sequence[ClassAd],
    job_ads: Sequence[ClassAd],
    accountant: Accountant | None = None,
    params: NegotiatorParams = PARAMS,
    now: float = NOW,
) -> tuple[Counter, CycleResult]:
    """One cycle; (matches per submitter without the domain, the whole result)."""
    accountant = accountant or Accountant(AccountantPolicy())
    if PATH["current"] == COMMAND:
        result = negotiate_command(slot_ads, job_ads, accountant, params, now)
    else:
        view = accountant.view().__getitem__
        result = run_cycle(PoolSnapshot(slot_ads, job_ads), view, params, now=now)
    counts = Counter(m.submitter.rpartition("@")[0] for m in result.matches)
    return counts, result


def negotiate_command(
    slot_ads: Sequence[ClassAd],
    job_ads: Sequence[ClassAd],
    accountant: Accountant,
    params: NegotiatorParams,
    now: float,
) -> CycleResult:
    """One cycle through ``fairpool negotiate``, from files, as a user runs it."""
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        (directory / "slots.ads").write_text(_old_ads(slot_ads))
        (directory / "jobs.ads").write_text(_old_ads(job_ads))
        (directory / "negotiator.config").write_text(knob_text(params))
        store = AccountantStore(directory / "state")
        accountant.changed.update(accountant.customers)
        store.save(accountant)
        store.engine.dispose()
        outcome = CliRunner().invoke(
            main,
            [
                "negotiate",
                *("--config", str(directory / "negotiator.config")),
                *("--slots", str(directory / "slots.ads")),
                *("--jobs", str(directory / "jobs.ads")),
                *("--state", str(directory / "state")),
                *("--start", repr(now)),
                *("--json", str(directory / "out.json")),
                "--quiet",
            ],
        )
        assert outcome.exit_code == 0, outcome.output
        data = json.loads((directory / "out.json").read_text())
    return CycleResult.from_json(data["cycles"][0])


def _old_ads(ads: Sequence[ClassAd]) -> str:
    return "".join(write_old(ad) + "\n" for ad in ads)


def ranked_accountant(users: Sequence[str], domain: str = "d") -> Accountant:
    """An accountant whose users have priorities 0.5, 7.5, 14.5... in that order."""
    accountant = Accountant(AccountantPolicy())
    for k, user in enumerate(users):
        accountant.customer(f"{user}@{domain}")
        accountant.set_priority(f"{user}@{domain}", 0.5 + 7 * k)
    return accountant
