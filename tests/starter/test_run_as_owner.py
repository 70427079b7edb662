"""A root starter runs the job as its Owner, and does the job's file work with the Owner's
permissions, not root's."""

from __future__ import annotations

import errno
import os
import pwd

import pytest
from starter_jobs import Jobs, wait_for

from fairpool.starter import Spares, StartError
from fairpool.starter.identity import job_user

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="only root can run jobs as another user")


@pytest.fixture
def nobody_jobs(open_dir):
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user 'nobody' on this machine")
    helper = Jobs(open_dir, "nobody")
    helper.iwd.chmod(0o777)
    yield helper, nobody
    helper.cleanup()


def test_job_runs_as_its_owner(nobody_jobs):
    jobs, nobody = nobody_jobs
    (jobs.iwd / "in.txt").write_text("data")
    jobs.script("who.sh", "id -u > uid.txt\nid -g >> uid.txt\nstat -c %u . >> uid.txt\n")
    job, record = jobs.run(
        jobs.ad("executable = who.sh\ntransfer_input_files = in.txt\noutput = out.txt")
    )
    assert record.exit_code == 0 and job.via_shim  # only the shim can switch users
    uid, gid, sandbox_owner = (jobs.iwd / "uid.txt").read_text().split()
    assert int(uid) == nobody.pw_uid and int(gid) == nobody.pw_gid
    assert int(sandbox_owner) == nobody.pw_uid
    assert (jobs.iwd / "uid.txt").stat().st_uid == nobody.pw_uid  # written back as nobody
    assert (jobs.iwd / "out.txt").stat().st_uid == nobody.pw_uid


def test_owner_cannot_read_through_the_starter_what_they_cannot_read(nobody_jobs):
    jobs, _ = nobody_jobs
    secret = jobs.iwd / "secret.txt"
    secret.write_text("root only")
    secret.chmod(0o600)
    jobs.script("ok.sh", "true\n")
    with pytest.raises(StartError) as caught:
        jobs.spawn(jobs.ad("executable = ok.sh\ntransfer_input_files = secret.txt"))
    assert (caught.value.code, caught.value.subcode) == (13, errno.EACCES)
    with pytest.raises(StartError) as caught:
        jobs.spawn(jobs.ad("executable = ok.sh\ninput = secret.txt"))
    assert (caught.value.code, caught.value.subcode) == (8, errno.EACCES)


def test_owner_cannot_write_through_the_starter_where_they_cannot_write(nobody_jobs):
    jobs, _ = nobody_jobs
    locked = jobs.iwd / "locked"
    locked.mkdir(mode=0o755)
    jobs.script("ok.sh", "echo hi\n")
    with pytest.raises(StartError) as caught:
        jobs.spawn(jobs.ad("executable = ok.sh\noutput = locked/o\nshould_transfer_files = NO"))
    assert (caught.value.code, caught.value.subcode) == (7, errno.EACCES)


def test_unknown_owner_is_hold_code_23(tmp_path):
    jobs = Jobs(tmp_path, "no-such-user-fairpool")
    with pytest.raises(StartError) as caught:
        jobs.spawn(jobs.ad("executable = /bin/true"))
    assert caught.value.code == 23 and "no-such-user-fairpool" in caught.value.reason


def test_only_another_owner_needs_a_switch(nobody_jobs):
    _, nobody = nobody_jobs
    assert job_user(pwd.getpwuid(0).pw_name).switch is False  # root's own job: no shim
    assert job_user(nobody.pw_name).switch is True


def test_a_spare_keeps_the_owner_and_goes_to_no_one_else(nobody_jobs):
    jobs, nobody = nobody_jobs
    spares = Spares(jobs.execute)
    jobs.script("who.sh", 'stat -c "%u %a" . > owner.txt\nls -l .job.ad | cut -c1 >> owner.txt\n')
    inodes = set()
    for _ in range(2):  # the second job's sandbox is the first one's, kept
        job = jobs.spawn(jobs.ad("executable = who.sh"), spares=spares)
        inodes.add(job.sandbox.path.stat().st_ino)
        assert wait_for(job).exit_code == 0
        job.finish()
        owner, mode, kind = (jobs.iwd / "owner.txt").read_text().split()
        assert (int(owner), mode, kind) == (nobody.pw_uid, "700", "-")
    [spare] = [p for p in jobs.execute.iterdir() if p.name.startswith(".spare_")]
    assert spare.stat().st_uid == nobody.pw_uid and inodes == {spare.stat().st_ino}
    root = job_user(pwd.getpwuid(0).pw_name)
    assert spares.take(root.uid, jobs.execute / "dir_9") is None  # not for root's jobs
