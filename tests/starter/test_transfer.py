"""File transfer in and out of the sandbox, as HTCondor's vanilla universe does it."""

from __future__ import annotations

import errno
import os
import pwd

import pytest
from starter_jobs import Jobs, until, wait_for

from fairpool.starter import TransferError
from fairpool.starter.plan import parse_remaps


def test_inputs_in_outputs_back_and_the_sandbox_removed(jobs):
    (jobs.iwd / "data").mkdir()
    (jobs.iwd / "data" / "a.txt").write_text("A")
    (jobs.iwd / "tree").mkdir()
    (jobs.iwd / "tree" / "sub").mkdir()
    (jobs.iwd / "tree" / "sub" / "b.txt").write_text("B")
    (jobs.iwd / "flat").mkdir()
    (jobs.iwd / "flat" / "c.txt").write_text("C")
    jobs.script(
        "work.sh",
        'names=$(ls -A | sort) && echo "$names" > listing\n'
        "cat a.txt tree/sub/b.txt c.txt > joined\n"
        "mkdir made_dir && echo x > made_dir/inner\n"
        'echo "$0" > argv0\n',
    )
    ad = jobs.ad(
        "executable = work.sh\ntransfer_input_files = data/a.txt, tree, flat/\noutput = out.txt"
    )
    job, record = jobs.run(ad)
    assert record.exit_code == 0
    assert (jobs.iwd / "joined").read_text() == "ABC"
    listing = (jobs.iwd / "listing").read_text().split()
    assert listing == sorted(
        [".job.ad", "_condor_stdout", "a.txt", "c.txt", "condor_exec.exe", "tree"]
    )
    assert (jobs.iwd / "argv0").read_text().strip() == str(job.sandbox.path / "condor_exec.exe")
    assert not (jobs.iwd / "made_dir").exists()  # automatic output: top-level files only
    assert not (jobs.iwd / "condor_exec.exe").exists() and not (jobs.iwd / ".job.ad").exists()
    assert (jobs.iwd / "out.txt").exists()
    assert not job.sandbox.path.exists() and list(jobs.execute.iterdir()) == []


def test_only_created_or_modified_files_come_back(jobs):
    (jobs.iwd / "kept.txt").write_text("input")
    (jobs.iwd / "changed.txt").write_text("input\n")
    jobs.script("touch.sh", "echo more >> changed.txt\necho new > new.txt\n")
    job = jobs.spawn(jobs.ad("executable = touch.sh\ntransfer_input_files = kept.txt, changed.txt"))
    (jobs.iwd / "kept.txt").write_text("changed in Iwd after the copy")
    wait_for(job)
    job.finish()
    assert (jobs.iwd / "kept.txt").read_text() == "changed in Iwd after the copy"  # not copied back
    assert (jobs.iwd / "changed.txt").read_text() == "input\nmore\n"
    assert (jobs.iwd / "new.txt").read_text() == "new\n"


def test_listed_outputs_with_remaps(jobs):
    jobs.script(
        "make.sh",
        "mkdir -p d1/deep && echo o3 > d1/deep/o3\necho o1 > o1\necho o2 > o2\necho junk > junk\n",
    )
    ad = jobs.ad(
        "executable = make.sh\ntransfer_output_files = o1, d1, d1/deep/o3",
        TransferOutputRemaps="o1 = results/first.txt; o3=o3.copy",
    )
    jobs.run(ad)
    assert (jobs.iwd / "results" / "first.txt").read_text() == "o1\n"
    assert (jobs.iwd / "d1" / "deep" / "o3").read_text() == "o3\n"
    assert (jobs.iwd / "o3.copy").read_text() == "o3\n"
    assert not (jobs.iwd / "o2").exists() and not (jobs.iwd / "junk").exists()


def test_empty_output_list_transfers_only_stdio(jobs):
    jobs.script("quiet.sh", "echo hi\necho file > f\n")
    jobs.run(jobs.ad("executable = quiet.sh\noutput = o.txt", TransferOutput=""))
    assert (jobs.iwd / "o.txt").read_text() == "hi\n" and not (jobs.iwd / "f").exists()


def test_a_missing_listed_output_is_hold_code_12(jobs):
    jobs.script("none.sh", "exit 0\n")
    job = jobs.spawn(jobs.ad("executable = none.sh\ntransfer_output_files = absent.dat"))
    wait_for(job)
    with pytest.raises(TransferError) as caught:
        job.finish()
    assert (caught.value.code, caught.value.subcode) == (12, errno.ENOENT)
    assert caught.value.reason.startswith("Error from slot1_1@test.example: Transfer output files")
    assert "absent.dat" in caught.value.reason
    assert caught.value.hold.attrs()["HoldReasonCode"] == 12
    assert not job.sandbox.path.exists()  # removed all the same


def test_output_that_cannot_be_written_back_is_hold_code_12(jobs):
    jobs.script("speak.sh", "echo words\n")
    job = jobs.spawn(jobs.ad("executable = speak.sh\noutput = no_such_dir/out.txt"))
    wait_for(job)
    with pytest.raises(TransferError) as caught:
        job.finish()
    assert (caught.value.code, caught.value.subcode) == (12, errno.ENOENT)
    assert "writing to file" in caught.value.reason


def test_no_output_transfer_after_the_starter_killed_the_job(jobs):
    jobs.script("slow.sh", "echo partial > partial.txt\nsleep 30\n")
    job = jobs.spawn(jobs.ad("executable = slow.sh\noutput = out.txt"))
    assert until((job.sandbox.path / "partial.txt").exists)
    job.soft_kill()
    wait_for(job)
    job.finish()
    assert not (jobs.iwd / "partial.txt").exists() and not (jobs.iwd / "out.txt").exists()
    assert not job.sandbox.path.exists()


def test_remaps_syntax():
    assert parse_remaps("a = b ; c\\=d = out/e\\;f; no_target ;x=") == (
        ("a", "b"),
        ("c=d", "out/e;f"),
    )
    assert parse_remaps("") == ()


def test_the_starter_and_the_shim_give_the_same_output_holds(tmp_path):
    jobs = Jobs(tmp_path, pwd.getpwuid(os.geteuid()).pw_name)
    jobs.script("speak.sh", "echo words\n")
    cases = [
        "executable = speak.sh\ntransfer_output_files = absent.dat",
        "executable = speak.sh\noutput = no_such_dir/out.txt",
        "executable = speak.sh\ntransfer_output_files = nul\0byte",
    ]
    try:
        for description in cases:
            holds = []
            for via_shim in (False, True):
                jobs.via_shim = via_shim
                job = jobs.spawn(jobs.ad(description))
                wait_for(job)
                with pytest.raises(TransferError) as caught:
                    job.finish()
                holds.append(caught.value.hold)
            assert holds[0] == holds[1] and holds[0].code == 12, description
    finally:
        jobs.cleanup()
