"""Reading recorded workloads."""

from pathlib import Path

import pytest

from fairpool.errors import InputError
from fairpool.sim.traces import read_htcondor, read_swf, swf_start_time

LCG = Path(__file__).parent.parent / "data" / "traces" / "LCG.swf.gz"


def test_lcg_trace_reads_whole():
    jobs = list(read_swf(LCG))
    # 188,041 jobs, of which 187,520 have a positive run time (shared/data/SOURCES.md)
    assert len(jobs) == 187_520
    assert {j.cpus for j in jobs} == {1}
    assert len({j.user for j in jobs}) <= 216 and len({j.group for j in jobs}) <= 28
    assert sum(j.runtime * j.cpus for j in jobs) / 3600 == pytest.approx(417_370, rel=1e-3)
    assert swf_start_time(LCG) == 1132444805


def test_bad_swf_line_names_the_place(tmp_path):
    trace = tmp_path / "bad.swf"
    trace.write_text("; Version: 2.2\n1 0 -1 60 1 -1 -1 1 -1 -1 1 1 1 -1 -1 1 -1 -1\n1 2 3\n")
    with pytest.raises(InputError) as err:
        list(read_swf(trace))
    assert (err.value.source, err.value.line) == (str(trace), 3)


def test_htcondor_history(tmp_path):
    history = tmp_path / "history"
    history.write_text(
        'Owner = "alice"\nQDate = 1000\nJobStartDate = 1100\nCompletionDate = 1700\n'
        'RequestCpus = 4\nAccountingGroup = "group_a.alice"\n\n'
        'Owner = "bob"\nQDate = 1500\nRemoteWallClockTime = 300.0\n\n'
        'Owner = "carol"\nQDate = 1600\n'
    )
    jobs = list(read_htcondor(history))
    assert [(j.user, j.submit, j.runtime, j.cpus, j.group) for j in jobs] == [
        ("alice", 0.0, 600.0, 4, "group_a.alice"),
        ("bob", 500.0, 300.0, 1, None),
    ]
