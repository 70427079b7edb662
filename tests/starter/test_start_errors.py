"""Jobs that cannot start: StartError with HTCondor's HoldReasonCode and errno subcode
(6 FailedToCreateProcess, 7 UnableToOpenOutput, 8 UnableToOpenInput, 13 TransferInputError,
14 IwdError, 23 FailedToAccessUserAccount in test_run_as_owner.py), and nothing left behind."""

from __future__ import annotations

import errno
import os
import time

import pytest

import fairpool.starter.launch as launch
from fairpool.starter import StartError

SHARED = "should_transfer_files = NO\n"


def start_error(jobs, description: str, **attrs) -> StartError:
    with pytest.raises(StartError) as caught:
        jobs.spawn(jobs.ad(description, **attrs))
    assert caught.value.reason.startswith("Error from slot1_1@test.example: ")
    assert caught.value.hold.attrs() == {
        "HoldReason": caught.value.reason,
        "HoldReasonCode": caught.value.code,
        "HoldReasonSubCode": caught.value.subcode,
    }
    assert not jobs.execute.exists() or list(jobs.execute.iterdir()) == []  # no sandbox left
    return caught.value


def test_missing_executable_used_in_place(jobs):
    error = start_error(jobs, "executable = nothere.sh", TransferExecutable=False)
    assert (error.code, error.subcode) == (6, errno.ENOENT)
    assert f"Failed to execute '{jobs.iwd}/nothere.sh'" in error.reason


def test_missing_executable_to_transfer(jobs):
    error = start_error(jobs, "executable = nothere.sh")
    assert (error.code, error.subcode) == (13, errno.ENOENT)
    assert f"reading from file {jobs.iwd}/nothere.sh" in error.reason


def test_non_executable_file(jobs):
    jobs.script("plain.sh", "echo hi\n", mode=0o644)
    error = start_error(jobs, "executable = plain.sh\n" + SHARED)
    assert (error.code, error.subcode) == (6, errno.EACCES)
    assert "errno=13: 'Permission denied'" in error.reason


def test_transferred_executable_is_made_executable(jobs):
    jobs.script("plain.sh", "echo ran > ran.txt\n", mode=0o644)
    _, record = jobs.run(jobs.ad("executable = plain.sh"))
    assert record.exit_code == 0 and (jobs.iwd / "ran.txt").read_text() == "ran\n"


def test_unwritable_output_on_a_shared_filesystem(jobs):
    jobs.script("ok.sh", "true\n")
    error = start_error(jobs, "executable = ok.sh\noutput = missing/out.txt\n" + SHARED)
    assert (error.code, error.subcode) == (7, errno.ENOENT)
    assert f"'{jobs.iwd}/missing/out.txt' as standard output" in error.reason
    error = start_error(jobs, "executable = ok.sh\nerror = missing/err.txt\n" + SHARED)
    assert (error.code, error.subcode) == (7, errno.ENOENT)
    assert "as standard error" in error.reason


def test_unreadable_input(jobs):
    jobs.script("ok.sh", "true\n")
    error = start_error(jobs, "executable = ok.sh\ninput = absent.txt")
    assert (error.code, error.subcode) == (8, errno.ENOENT)
    error = start_error(jobs, "executable = ok.sh\ntransfer_input_files = absent.dat")
    assert (error.code, error.subcode) == (13, errno.ENOENT)
    error = start_error(jobs, "executable = ok.sh\ntransfer_input_files = http://example.org/x")
    assert error.code == 13 and "no URL transfers" in error.reason


def test_iwd_that_does_not_exist(jobs):
    error = start_error(jobs, "executable = /bin/true\n" + SHARED, Iwd=str(jobs.iwd / "gone"))
    assert (error.code, error.subcode) == (14, errno.ENOENT)


def test_malformed_arguments_in_the_ad(jobs):
    error = start_error(jobs, "executable = /bin/true", Arguments="'unclosed")
    assert (error.code, error.subcode) == (6, 0)
    assert "single quote" in error.reason


def test_a_job_that_cannot_get_past_its_stdin_is_given_up(jobs, monkeypatch):
    monkeypatch.setattr(launch, "LAUNCH_TIMEOUT", 0.5)
    os.mkfifo(jobs.iwd / "fifo")  # opening it for reading blocks until a writer comes: never
    started = time.monotonic()
    error = start_error(jobs, "executable = /bin/true\ninput = fifo")
    assert (error.code, error.subcode) == (6, errno.ETIMEDOUT)
    assert time.monotonic() - started < 5
