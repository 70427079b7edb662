"""Arbitrary submit text: either job ads or a SubmitError with file and line, nothing else."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fairpool.errors import SubmitError
from fairpool.submit import parse_submit

_PIECES = [
    "executable = x",
    "queue",
    "queue 2",
    "queue x in (a b)",
    "queue x from (",
    ")",
    "queue a,b from [1:] (",
    "request_memory = 2GB",
    "request_disk = 3 Q",
    "requirements = Memory > ",
    "rank = (",
    "+A = $(x)",
    "arguments = \"a 'b c' d\"",
    'environment = "A=1 B=2"',
    "hold = true",
    "nice_user = maybe",
    "accounting_group = g",
    "concurrency_limits = L",
    'concurrency_limits_expr = "l"',
    "foo = $(foo) $INT(x)",
    "x @= E",
    "@E",
    "# comment",
    "universe = docker",
    "priority = -3",
    "line \\",
    "",
]


_LINE = st.one_of(*[st.sampled_from(_PIECES)] * 5, st.text(max_size=30))


@given(st.lists(_LINE, max_size=12))
def test_only_ads_or_a_located_submit_error(lines: list[str]):
    text = "\n".join(["executable = x", *lines, "queue"])
    try:
        ads = parse_submit(text, "fuzz.sub").job_ads(owner="u")
    except SubmitError as err:
        assert err.source == "fuzz.sub"
        assert err.message
        return
    assert all(ad["Owner"] == "u" for ad in ads)
