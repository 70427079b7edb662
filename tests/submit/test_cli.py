"""``fairpool submit FILE --owner NAME --dry-run [-l]``."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from fairpool.classad import parse_ads
from fairpool.cli.main import main

DATA = Path(__file__).parents[1] / "data" / "submit"


def _run(*args: str):
    return CliRunner().invoke(main, ["submit", *args])


def test_summary_line_per_cluster():
    result = _run(str(DATA / "30_multiple_clusters.sub"), "--owner", "bob", "--dry-run")
    assert result.exit_code == 0, result.output
    assert result.output == "2 job(s) dry-run to cluster 1.\n1 job(s) dry-run to cluster 2.\n"


def test_long_prints_every_ad_sorted_by_name(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sub = tmp_path / "pairs.sub"
    sub.write_text("executable = pair.sh\narguments = $(a)\nqueue a from pairs.txt\n")
    (tmp_path / "pairs.txt").write_text("x1\nx2\nx3\n")
    result = _run(str(sub), "--owner", "bob", "--dry-run", "-l", "--qdate", "5", "--cluster", "9")
    assert result.exit_code == 0, result.output
    ads = list(parse_ads(result.output, fmt="old"))
    assert [ad["ProcId"] for ad in ads] == [0, 1, 2]
    assert ads[0]["Owner"] == "bob" and ads[0]["ClusterId"] == 9 and ads[0]["QDate"] == 5
    assert ads[2]["Args"] == "x3"  # the item file is found in the current directory
    names = [line.split(" = ")[0] for line in result.output.split("\n\n")[0].splitlines()]
    assert names == sorted(names, key=str.lower)
    assert ads[0]["Cmd"] == str(tmp_path.resolve() / "pair.sh")


def test_map_and_config_options():
    args = [str(DATA / "01_minimal.sub"), "--owner", "Bob", "--dry-run", "-l"]
    args += ["--map", str(DATA / "groups" / "seed.map"), "--config", "ARCH=ppc64le"]
    result = _run(*args)
    assert result.exit_code == 0, result.output
    ad = next(parse_ads(result.output, fmt="old"))
    assert ad["AccountingGroup"] == "group_atlas.Bob"
    assert '(TARGET.Arch == "ppc64le")' in str(ad.lookup("Requirements"))


def test_errors_are_one_line_and_exit_non_zero(tmp_path: Path):
    bad = tmp_path / "bad.sub"
    bad.write_text("executable = x\nrequest_memory = 3 parsecs\nqueue\n")
    result = _run(str(bad), "--owner", "a", "--dry-run")
    assert result.exit_code == 1
    assert result.output.strip().count("\n") == 0
    assert f"{bad}:2: request_memory = 3 parsecs: unknown unit 'parsecs'" in result.output
    no_pool = _run(str(DATA / "01_minimal.sub"), "--pool", "127.0.0.1:9")  # nothing listens
    assert no_pool.exit_code == 1 and "cannot reach http://127.0.0.1:9" in no_pool.output
    assert no_pool.output.strip().count("\n") == 0
    knob = _run(str(DATA / "01_minimal.sub"), "--owner", "a", "--dry-run", "--config", "ARCH")
    assert knob.exit_code == 1 and "expected KNOB=VALUE" in knob.output


def test_paths_are_relative_to_the_directory_condor_submit_runs_in(tmp_path: Path, monkeypatch):
    """condor_submit's rule: Iwd (initialdir's default), a relative executable and item
    files are the current directory's, not the submit file's (HTCondor manual,
    condor_submit, "initialdir")."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "job.sub").write_text("executable = run.sh\nqueue\n")
    monkeypatch.chdir(tmp_path)
    result = _run("sub/job.sub", "--owner", "bob", "--dry-run", "-l")
    ad = next(parse_ads(result.output, fmt="old"))
    assert ad["Iwd"] == str(tmp_path) and ad["Cmd"] == str(tmp_path / "run.sh")
