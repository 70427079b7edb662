"""Jobs that cannot start: StartError with HTCondor's HoldReasonCode and errno subcode
(6 FailedToCreateProcess, 7 UnableToOpenOutput, 8 UnableToOpenInput, 13 TransferInputError,
14 IwdError, 23 FailedToAccessUserAccount in test_run_as_owner.py), and nothing left behind;
the same holds, word for word, whether the starter or the shim starts the job."""

from __future__ import annotations

import errno
import os
import pwd
import shutil
import threading
import time

import pytest
from starter_jobs import Jobs

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


def test_iwd_that_is_not_a_directory(jobs):
    (jobs.iwd / "afile").write_text("")
    for iwd in ("afile", "afile/below"):
        error = start_error(jobs, "executable = /bin/true\n" + SHARED, Iwd=str(jobs.iwd / iwd))
        assert (error.code, error.subcode) == (14, errno.ENOTDIR)
        assert f"working directory '{jobs.iwd}/{iwd}'" in error.reason


def no_interpreter(jobs) -> None:
    """A script whose #! names a program that does not exist: exec says ENOENT."""
    (jobs.iwd / "orphan.sh").write_text("#!/no/such/interpreter\ntrue\n")
    (jobs.iwd / "orphan.sh").chmod(0o755)


def test_executable_that_cannot_be_exec_d(jobs):
    (jobs.iwd / "adir").mkdir()
    error = start_error(jobs, "executable = adir\n" + SHARED)
    assert (error.code, error.subcode) == (6, errno.EACCES)
    no_interpreter(jobs)
    error = start_error(jobs, "executable = orphan.sh\n" + SHARED)
    assert (error.code, error.subcode) == (6, errno.ENOENT)
    assert f"Failed to execute '{jobs.iwd}/orphan.sh': (errno=2: " in error.reason


def test_a_program_that_is_its_own_working_directory(jobs):
    """Popen names the directory when its chdir fails and the program when exec fails; here
    both are one path: 6 when the directory is fine, 14 when it is not there."""
    error = start_error(jobs, "executable = /bin/true\n" + SHARED, Cmd=str(jobs.iwd))
    assert (error.code, error.subcode) == (6, errno.EACCES)
    assert f"Failed to execute '{jobs.iwd}'" in error.reason
    gone = str(jobs.iwd / "gone")
    error = start_error(jobs, "executable = /bin/true\n" + SHARED, Cmd=gone, Iwd=gone)
    assert (error.code, error.subcode) == (14, errno.ENOENT)


def test_output_that_is_a_directory(jobs):
    (jobs.iwd / "adir").mkdir()
    error = start_error(jobs, "executable = /bin/true\noutput = adir\n" + SHARED)
    assert (error.code, error.subcode) == (7, errno.EISDIR)


CANNOT_START = [  # (submit description, ad attributes set on top)
    ("executable = nothere.sh", {"TransferExecutable": False}),
    ("executable = nothere.sh", {}),
    ("executable = plain.sh\n" + SHARED, {}),
    ("executable = adir\n" + SHARED, {}),
    ("executable = orphan.sh\n" + SHARED, {}),
    ("executable = ok.sh\noutput = missing/out.txt\n" + SHARED, {}),
    ("executable = ok.sh\nerror = missing/err.txt\n" + SHARED, {}),
    ("executable = ok.sh\noutput = adir\nerror = adir\n" + SHARED, {}),
    ("executable = ok.sh\ninput = absent.txt", {}),
    ("executable = ok.sh\ntransfer_input_files = absent.dat", {}),
    ("executable = ok.sh\ntransfer_input_files = http://example.org/x", {}),
    ("executable = ok.sh", {"TransferInput": "nul\0byte"}),
    ("executable = /bin/true\n" + SHARED, {"Iwd": "{iwd}/gone"}),
    ("executable = /bin/true\n" + SHARED, {"Iwd": "{iwd}/afile"}),
    ("executable = /bin/true\n" + SHARED, {"Cmd": "{iwd}"}),
    ("executable = /bin/true\n" + SHARED, {"Cmd": "{iwd}/gone", "Iwd": "{iwd}/gone"}),
    ("executable = /bin/true", {"Arguments": "'unclosed"}),
    ("executable = /bin/true", {"Arguments": "a\0b"}),
    ("executable = /bin/true", {"Environment": "A=x\0y"}),
]


def test_the_starter_and_the_shim_give_the_same_holds(tmp_path):
    """Every failure above, started from the starter's process and through the shim: the
    same reason (paths and wording), code and subcode."""
    jobs = Jobs(tmp_path, pwd.getpwuid(os.geteuid()).pw_name)
    jobs.script("ok.sh", "true\n")
    jobs.script("plain.sh", "echo hi\n", mode=0o644)
    no_interpreter(jobs)
    (jobs.iwd / "adir").mkdir()
    (jobs.iwd / "afile").write_text("")
    cases = list(CANNOT_START)
    if os.geteuid() != 0:  # root may enter any directory, whoever starts the job
        (jobs.iwd / "closed").mkdir(mode=0o600)
        cases.append(("executable = /bin/true\n" + SHARED, {"Iwd": "{iwd}/closed"}))
    try:
        for description, template in cases:
            attrs = {
                name: value.replace("{iwd}", str(jobs.iwd)) if isinstance(value, str) else value
                for name, value in template.items()
            }
            holds = []
            for via_shim in (False, True):
                jobs.via_shim = via_shim
                holds.append(start_error(jobs, description, **attrs).hold)
            assert holds[0] == holds[1], (description, attrs)
    finally:
        jobs.cleanup()  # only if one started after all


def test_a_busy_transferred_executable_is_tried_again(tmp_path):
    """A process forked by another thread while the starter wrote the executable holds the
    write descriptor until it execs: exec says ETXTBSY for that moment, then works."""
    program = tmp_path / "condor_exec.exe"
    shutil.copy("/bin/true", program)
    spec = {"argv": [str(program)], "executable": str(program), "cwd": str(tmp_path), "env": {}}
    null = os.open(os.devnull, os.O_RDWR)
    writer = os.open(program, os.O_WRONLY)
    release = threading.Timer(0.03, os.close, (writer,))
    try:
        with pytest.raises(OSError) as caught:
            launch._popen(spec, [null] * 3, busy_retries=0)
        assert caught.value.errno == errno.ETXTBSY
    finally:
        release.start()
    try:
        started = launch._popen(spec, [null] * 3, busy_retries=200)  # at most a second
    finally:
        release.join()
        os.close(null)
    assert os.waitstatus_to_exitcode(os.waitpid(started.pid, 0)[1]) == 0
