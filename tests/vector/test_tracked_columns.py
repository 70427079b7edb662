"""Columns told which slots changed (SlotColumns.track/mark) encode what columns that
compare every cell encode."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from builders import make_slot
from fairpool.classad.vector import SlotColumns

NAMES = [f"slot1@h{n}" for n in range(8)]


STEPS = st.tuples(st.sampled_from(NAMES), st.sampled_from(["claim", "free", "drop"]), st.booleans())


@settings(max_examples=60)
@given(st.lists(STEPS, max_size=30))
def test_tracked_sync_equals_a_full_compare(steps):
    """Also when a column is read only now and then (it follows every sync since), and
    a row keeps its stamp only while its cells stay as they were."""
    ads = {name: make_slot(name).build() for name in NAMES}
    tracked, full = SlotColumns([]), SlotColumns([])
    tracked.track()
    for cols in (tracked, full):
        cols.sync(list(ads.values()))
        for attribute in ("state", "memory", "remoteuser"):
            cols.column(attribute)
    stamps = dict(zip(tracked._row_names, tracked.stamps.tolist(), strict=True))
    for name, action, read in steps:
        if action == "drop":
            ads.pop(name, None)
        else:
            ad = ads.setdefault(name, make_slot(name).build())
            if action == "claim":
                ad.update({"State": "Claimed", "RemoteUser": "ann@d", "Memory": 512})
            else:
                ad.update({"State": "Unclaimed", "Memory": 1024})
                if "RemoteUser" in ad:
                    del ad["RemoteUser"]
        tracked.mark([name])
        for cols in (tracked, full):
            cols.sync(list(ads.values()))
        kept = [
            n
            for n, s in zip(tracked._row_names, tracked.stamps.tolist(), strict=True)
            if stamps.get(n) == s
        ]
        assert name not in kept  # marked: stamped afresh
        stamps = dict(zip(tracked._row_names, tracked.stamps.tolist(), strict=True))
        if not read:
            continue
        for attribute in ("state", "memory", "remoteuser"):
            a, b = tracked.column(attribute), full.column(attribute)
            assert np.array_equal(a.cells.tag, b.cells.tag)
            assert np.array_equal(a.cells.i, b.cells.i)
            assert np.array_equal(a.present, b.present)
            assert [e is f for e, f in zip(a.exprs, b.exprs, strict=True)] == [True] * len(a.exprs)


def test_columns_follow_a_pool_that_was_empty_for_a_cycle():
    """A cycle can read no slot at all (every one standing); the next reads some again."""
    first = make_slot(NAMES[0]).build()
    cols = SlotColumns([first])
    cols.column("memory")
    cols.sync([])
    assert len(cols.column("memory").present) == 0
    again = make_slot(NAMES[1]).build()
    again["Memory"] = 4096
    cols.sync([first, again])
    fresh = SlotColumns([first, again]).column("memory")
    column = cols.column("memory")
    assert np.array_equal(column.cells.i, fresh.cells.i)
    assert np.array_equal(column.present, fresh.present)
    assert column.cells.i.tolist() == [first["Memory"], 4096]
