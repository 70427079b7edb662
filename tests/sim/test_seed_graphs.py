"""The seed's three graphs ("User Priorities and Negotiation"), as numbers.

Spec negotiator.md §1.10: a new user on 100 cores has RUP 50.25 after one half-life
(24 h) and 75.125 after two; stopping at 24 h, the RUP halves each day from 50.25. In the
two-user example B arrives at 48 h with RUP 0.5 against A's 75.125: A's share falls to
about one core (the pie gives it 0.66, rounded up to one slot), rebounds, and approaches
half the pool.
"""

import pytest

from fairpool.sim.runner import simulate
from fairpool.sim.scenario import load_scenario

HEAD = """
[simulation]
duration = "{duration}"
negotiator_interval = "{interval}"
sample_interval = "1h"

[config]
text = "DEFAULT_PRIO_FACTOR = 1.0"
"""


def _samples(run, submitter):
    return {s.time / 3600: s for s in run.recorder.samples if s.submitter.startswith(submitter)}


def test_new_user_rup_rises_toward_100(write_scenario, helpers):
    text = HEAD.format(duration="72h", interval="60s") + helpers.machines(100)
    text += helpers.jobs("new", '"1000h"', "count = 100")
    rup = {
        t: s.rup for t, s in _samples(simulate(load_scenario(write_scenario(text))), "new").items()
    }
    # P(t) = 100 + (0.5 - 100) * 0.5 ** (t / 24 h)
    assert rup[0] == 0.5
    assert rup[24] == pytest.approx(50.25, abs=1e-6)
    assert rup[48] == pytest.approx(75.125, abs=1e-6)
    assert rup[72] == pytest.approx(87.5625, abs=1e-6)
    assert all(rup[h] < rup[h + 1] for h in range(72))


def test_user_who_stops_at_24h_decays(write_scenario, helpers):
    text = HEAD.format(duration="96h", interval="60s") + helpers.machines(100)
    text += helpers.jobs("new", '"1000h"', "count = 100")
    text += '[[events]]\nat = "24h"\naction = "remove_jobs"\nowner = "new"\n'
    samples = _samples(simulate(load_scenario(write_scenario(text))), "new")
    assert samples[24].rup == pytest.approx(50.25, abs=1e-6)
    assert samples[24].running == 0
    # no usage after 24 h: the RUP halves every half-life
    assert samples[48].rup == pytest.approx(25.125, abs=1e-6)
    assert samples[72].rup == pytest.approx(12.5625, abs=1e-6)
    assert max(s.rup for s in samples.values()) == samples[24].rup


def test_two_users(write_scenario, helpers):
    # The seed's example with its first 48 hours compressed: A holds all 100 cores with
    # jobs that end at 48 h (the RUP is the same as with many short ones: 75.125), then
    # both users keep short jobs queued; cycles every 5 minutes to keep the test quick.
    short = '{ distribution = "uniform", low = "5m", high = "15m" }'
    text = HEAD.format(duration="60h", interval="5m") + helpers.machines(100)
    text += helpers.jobs("A", '"48h"', "count = 100")
    text += helpers.jobs("A", short, 'at = "48h"\nkeep_idle = 120')
    text += helpers.jobs("B", short, 'at = "48h"\nkeep_idle = 120')
    run = simulate(load_scenario(write_scenario(text)))
    a, b = _samples(run, "A@"), _samples(run, "B@")
    assert a[48].rup == pytest.approx(75.125, abs=1e-6) and b[48].rup == 0.5
    # B deserves 150.25 times A: A's pie share is 0.66 cores, rounded up to one slot
    assert (a[48].running, b[48].running) == (1, 99)
    assert a[49].running <= 5
    # A rebounds as B's RUP grows, toward half the pool
    assert a[49].running < a[52].running < a[60].running
    assert 20 <= a[60].running <= 45
    assert a[60].running + b[60].running == 100
