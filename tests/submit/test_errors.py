"""Bad submit input: every error names the file, the line and what was expected."""

from __future__ import annotations

from pathlib import Path

import pytest

from fairpool.errors import InputError, SubmitError
from fairpool.submit import parse_submit, read_submit

CASES = [
    (
        'executable = x\nconcurrency_limits = a\nconcurrency_limits_expr = "b"\nqueue\n',
        3,
        "concurrency_limits and concurrency_limits_expr cannot both be given",
    ),
    (
        'executable = x\nconcurrency_limits_expr = "b"\nconcurrency_limits = a\nqueue\n',
        3,
        "cannot both be given: expected one of them",
    ),
    ("executable = x\nrequest_memory = 2XB\nqueue\n", 2, "unknown unit 'XB': expected K, KB"),
    ("executable = x\nrequest_disk = 10 GiB\nqueue\n", 2, "unknown unit 'GiB'"),
    ("executable = x\nrequest_memory = 2 +\nqueue\n", 2, "expected a number with an optional unit"),
    ("executable = x\nqueue abc def\n", 2, "queue count 'abc def' is not an integer"),
    ("executable = x\nqueue x in\n", 2, "queue ... in: expected a list of items"),
    ("executable = x\nqueue x from\n", 2, "expected a file name or a '(' list"),
    ("executable = x\nqueue x from [::-1] (a)\n", 2, "slice step must be positive"),
    ("executable = x\nqueue x from [a:b] (a)\n", 2, "bad slice"),
    ("executable = x\nqueue -1\n", 2, "is negative"),
    ("executable = x\nqueue from ls |\n", 2, "'command |' is not supported"),
    (
        "executable = x\n\nqueue x in (a\nb\n",
        3,
        "is not closed: expected a line beginning with ')'",
    ),
    ("executable = x\nthis is not a command\nqueue\n", 2, "expected 'name = value' or a 'queue'"),
    ("executable = x\ninclude : other.sub\nqueue\n", 2, "'include' statements are not supported"),
    ("executable = x\nbad name = 1\nqueue\n", 2, "bad command name 'bad name'"),
    ("executable = x\n+a.b = 1\nqueue\n", 2, "bad command name '+a.b'"),
    (
        "executable = x\ntext @= END\nline\n",
        2,
        "multi-line value is not closed: expected a line '@END'",
    ),
    ("executable = x\nqueue\nfoo = \\", 3, "expected a continuation line"),
    ("universe = vanilla\nqueue\n", 2, "no 'executable' command before this queue statement"),
    ("executable = x\nrequirements = Memory >\nqueue\n", 2, "requirements = Memory >: expected"),
    ("executable = x\nrank = (\nqueue\n", 2, "rank = (: expected a ClassAd expression"),
    ("executable = x\n+Weight = 1 +\nqueue\n", 2, "expected a ClassAd expression"),
    ("universe = grid\nexecutable = x\nqueue\n", 1, "universe = grid: not supported"),
    ("universe = docker\nexecutable = x\nqueue\n", 1, "expected a 'docker_image' command"),
    ("executable = x\nhold = maybe\nqueue\n", 2, "hold = maybe: expected true or false"),
    ("executable = x\nnice_user = 2\nqueue\n", 2, "nice_user = 2: expected true or false"),
    ("executable = x\npriority = high\nqueue\n", 2, "priority = high: expected an integer"),
    ("executable = x\nshould_transfer_files = maybe\nqueue\n", 2, "expected YES, NO or IF_NEEDED"),
    ('executable = x\narguments = "a \'b"\nqueue\n', 2, "a single quote is not closed"),
    ('executable = x\narguments = "a" b"\nqueue\n', 2, "expected the new syntax's closing"),
    (
        "executable = x\nenvironment = A=1;B\nqueue\n",
        2,
        "environment entry 'B': expected name=value",
    ),
    ('executable = x\nenvironment = "A=1 =2"\nqueue\n', 2, "entry '=2': expected name=value"),
]


@pytest.mark.parametrize(("text", "line", "message"), CASES)
def test_bad_input_names_file_line_and_expectation(text: str, line: int, message: str):
    with pytest.raises(SubmitError) as caught:
        parse_submit(text, "bad.sub").job_ads(owner="alice")
    err = caught.value
    assert isinstance(err, InputError)
    assert (err.source, err.line) == ("bad.sub", line), str(err)
    assert message in err.message, str(err)
    assert str(err).startswith(f"bad.sub:{line}: ")


def test_no_queue_statement():
    with pytest.raises(SubmitError) as caught:
        parse_submit("executable = x\n", "none.sub")
    assert (caught.value.source, caught.value.line) == ("none.sub", 1)
    assert "no 'queue' statement by the end of the file: expected one" in caught.value.message


def test_missing_item_file_names_the_queue_line(tmp_path: Path):
    sub = tmp_path / "job.sub"
    sub.write_text("executable = x\n# comment\nqueue a,b from missing.txt\n")
    with pytest.raises(SubmitError) as caught:
        read_submit(sub).job_ads(owner="alice", cwd=tmp_path)
    err = caught.value
    assert (err.source, err.line) == (str(sub), 3)
    assert "cannot read item file 'missing.txt'" in err.message


def test_missing_submit_file(tmp_path: Path):
    with pytest.raises(SubmitError, match="cannot read submit file"):
        read_submit(tmp_path / "nope.sub")
