"""Spare scratch directories: the next job of the same user gets the last one's sandbox,
emptied but for its ad files, and cannot tell it from a new one."""

from __future__ import annotations

import os
import pwd
import stat
from pathlib import Path

import pytest
from starter_jobs import wait_for

from fairpool.classad import ClassAd, write_old
from fairpool.starter import ExitRecord, JobProcess, Spares, remove_stale_sandboxes
from fairpool.starter.identity import job_user
from fairpool.starter.sandbox import Sandbox
from fairpool.starter.spares import SPARE_PREFIX

LISTING = 'names=$(ls -A | sort) && echo "$names" > listing\n'
LONG = "executable = /bin/sleep\narguments = 30\nshould_transfer_files = NO"


def run(jobs, spares: Spares, ad: ClassAd, **options: object) -> tuple[JobProcess, ExitRecord]:
    job = jobs.spawn(ad, spares=spares, **options)
    record = wait_for(job)
    job.finish()
    return job, record


def spares_of(jobs) -> list[str]:
    return sorted(p.name for p in jobs.execute.iterdir() if p.name.startswith(SPARE_PREFIX))


def test_the_next_job_gets_the_last_ones_sandbox_emptied(jobs):
    spares = Spares(jobs.execute)
    jobs.script("mess.sh", "echo made > made.txt\nmkdir tree && echo x > tree/inner\n")
    first, record = run(jobs, spares, jobs.ad("executable = mess.sh"))
    assert record.exit_code == 0 and not first.sandbox.path.exists()
    assert (jobs.iwd / "made.txt").read_text() == "made\n"  # its output came back first
    assert spares_of(jobs) == [f"{SPARE_PREFIX}{os.getpid()}_1"]
    jobs.script("look.sh", LISTING + "cat .job.ad > seen.ad\n")
    second, record = run(jobs, spares, jobs.ad("executable = look.sh", Marker="second"))
    assert record.exit_code == 0 and second.sandbox.path == first.sandbox.path
    assert (jobs.iwd / "listing").read_text().split() == [".job.ad", "condor_exec.exe"]
    seen = (jobs.iwd / "seen.ad").read_text()
    assert 'Marker = "second"' in seen and seen.endswith("\n")
    assert spares_of(jobs) == [f"{SPARE_PREFIX}{os.getpid()}_2"]
    assert [p.name for p in jobs.execute.iterdir() if p.name.startswith("dir_")] == []


def test_a_spare_looks_new(jobs):
    spares = Spares(jobs.execute)
    big = ClassAd({"Name": "slot1_1@test.example", "Cpus": 1, "Big": "y" * 5000})
    run(jobs, spares, jobs.ad("executable = /bin/true"), machine_ad=big)
    job = jobs.spawn(jobs.ad(LONG), spares=spares)
    info = os.lstat(job.sandbox.path)
    assert stat.S_IMODE(info.st_mode) == 0o700 and info.st_uid == os.geteuid()
    assert [p.name for p in job.sandbox.path.iterdir()] == [".job.ad"]  # no machine ad now
    job.hard_kill()
    wait_for(job)
    job.finish()
    run(jobs, spares, jobs.ad("executable = /bin/true"), machine_ad=big)
    small = ClassAd({"Name": "slot1_1@test.example", "Cpus": 1})
    job = jobs.spawn(jobs.ad(LONG), spares=spares, machine_ad=small)
    text = (job.sandbox.path / ".machine.ad").read_text()
    assert "Big" not in text and text.endswith("Cpus = 1\n")  # written over, cut to length


def test_a_replaced_ad_file_is_not_followed(jobs, tmp_path):
    spares = Spares(jobs.execute)
    target = tmp_path / "elsewhere"
    target.write_text("untouched")
    jobs.script(
        "swap.sh", f"rm .job.ad && ln -s {target} .job.ad\nrm .machine.ad && mkfifo .machine.ad\n"
    )
    machine = ClassAd({"Name": "slot1_1@test.example", "Cpus": 1})
    run(jobs, spares, jobs.ad("executable = swap.sh"), machine_ad=machine)
    assert spares_of(jobs)  # kept, without the two ad files the job replaced
    job = jobs.spawn(jobs.ad(LONG), spares=spares, machine_ad=machine)
    assert target.read_text() == "untouched"
    for name in (".job.ad", ".machine.ad"):
        info = os.lstat(job.sandbox.path / name)
        assert stat.S_ISREG(info.st_mode) and info.st_nlink == 1


def test_an_ad_file_replaced_in_a_spare_is_not_written_through(tmp_path):
    execute = tmp_path / "execute"
    (execute / "dir_1").mkdir(parents=True, mode=0o700)
    (execute / "dir_1" / ".job.ad").write_text("old ad")
    spares = Spares(execute)
    assert spares.keep(execute / "dir_1", os.geteuid()) == len("old ad")
    spare = next(execute.iterdir())
    target = tmp_path / "elsewhere"
    target.write_text("untouched")
    (spare / ".job.ad").unlink()  # a process the last job left behind swaps it meanwhile
    (spare / ".job.ad").symlink_to(target)
    sandbox = Sandbox.create(execute, job_user(pwd.getpwuid(os.geteuid()).pw_name), spares)
    job_path, machine_path = sandbox.write_ads(write_old(ClassAd({"ClusterId": 7})).encode(), None)
    assert target.read_text() == "untouched" and machine_path is None
    assert Path(job_path).read_text() == "ClusterId = 7\n" and not Path(job_path).is_symlink()


def test_a_spares_ad_file_holds_exactly_the_next_ad_longer_or_shorter(tmp_path):
    """The file is written over in place and cut only when the last ad was longer."""
    execute = tmp_path / "execute"
    user = job_user(pwd.getpwuid(os.geteuid()).pw_name)
    spares = Spares(execute)
    for text in ("A = 1\nB = 2\n", "A = 10000\nB = 2\n", "A = 3\n", "A = 3\n"):
        sandbox = Sandbox.create(execute, user, spares)
        job_path, _ = sandbox.write_ads(text.encode(), None)
        assert Path(job_path).read_text() == text
        sandbox.remove()


def test_a_spare_goes_only_to_the_same_user(tmp_path):
    execute = tmp_path / "execute"
    (execute / "dir_1").mkdir(parents=True, mode=0o700)
    (execute / "dir_1" / ".job.ad").write_text("ad")
    spares = Spares(execute)
    uid = os.geteuid()
    assert spares.keep(execute / "dir_1", uid) is not None
    assert spares.take(uid + 1, execute / "dir_2") is None
    assert not (execute / "dir_2").exists()
    assert spares.take(uid, execute / "dir_2") == {
        ".job.ad": os.stat(execute / "dir_2" / ".job.ad").st_ino
    }


def test_a_spare_never_replaces_a_directory_another_starter_made(tmp_path):
    execute = tmp_path / "execute"
    (execute / "dir_1").mkdir(parents=True, mode=0o700)
    spares = Spares(execute)
    uid = os.geteuid()
    assert spares.keep(execute / "dir_1", uid) is not None
    (execute / "dir_2").mkdir()  # empty: a plain rename would put the spare in its place
    with pytest.raises(FileExistsError):
        spares.take(uid, execute / "dir_2")
    assert spares.take(uid, execute / "dir_3") == {}  # the spare stayed for the next try


def test_what_is_not_a_private_directory_is_not_kept(tmp_path):
    execute = tmp_path / "execute"
    (execute / "dir_1").mkdir(parents=True, mode=0o755)  # the job opened it up
    (execute / "dir_2").mkdir(mode=0o700)
    spares = Spares(execute, limit=1)
    uid = os.geteuid()
    assert spares.keep(execute / "dir_1", uid) is None
    assert spares.keep(execute / "dir_2", uid + 1) is None
    assert spares.keep(execute / "dir_2", uid) is not None
    (execute / "dir_3").mkdir(mode=0o700)
    assert spares.keep(execute / "dir_3", uid) is None  # the limit: one spare per user


def test_spares_are_removed_at_the_end_and_after_a_crash(tmp_path):
    execute = tmp_path / "execute"
    for name in ("dir_1", "dir_2"):
        (execute / name).mkdir(parents=True, mode=0o700)
    spares = Spares(execute)
    uid = os.geteuid()
    assert spares.keep(execute / "dir_1", uid) is not None
    assert spares.keep(execute / "dir_2", uid) is not None
    spares.clear()
    assert list(execute.iterdir()) == []
    (execute / f"{SPARE_PREFIX}123_4").mkdir()  # left by a startd that crashed
    assert remove_stale_sandboxes(execute) == [execute / f"{SPARE_PREFIX}123_4"]
