"""RowNames (classad/vector/rownames.py) finds rows as a dict of the last names would."""

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from fairpool.classad.vector.rownames import RowNames

NAMES = st.lists(st.one_of(st.none(), st.sampled_from([f"slot{k}@h" for k in range(12)])))


def _by_dict(before: list, after: list) -> list[int]:
    rows = {name: row for row, name in enumerate(before) if name is not None}
    return [rows.get(name, -1) for name in after]


@settings(max_examples=200)
@given(st.lists(NAMES, min_size=1, max_size=8))
def test_rows_found_as_a_dict_finds_them(syncs):
    """Names come, go, repeat (a name twice keeps its last row) or are None."""
    rows = RowNames(syncs[0])
    for before, after in pairwise(syncs):
        assert rows.follow(after).tolist() == _by_dict(before, after)
        last = {name: row for row, name in enumerate(after) if name is not None}
        assert rows.rows_of(["absent", *last]) == list(last.values())


def test_numbers_stay_bounded_by_the_pool():
    """Names that left are forgotten once they make up most of the numbers."""
    rows = RowNames([])
    for k in range(3000):
        before = [f"slot1_{k}@h", "slot1@h"]
        assert rows.follow(before).tolist()[1] == (1 if k else -1)
        assert len(rows._ids) <= 4 * 1024 + 2
