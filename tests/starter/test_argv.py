"""The job's argv and environment: what condor_submit's syntaxes said is what the job gets."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starter_jobs import wait_for

from fairpool.classad import ClassAd, parse_ad, write_old
from fairpool.starter.argv import job_arguments, job_environment
from fairpool.submit.argv import arguments_attr, environment_attr

# Any text a submit file line can hold: no NUL, no line breaks, no $ (macro expansion).
LINE_CHARS = st.characters(
    blacklist_categories=("Cs", "Zl", "Zp"),
    blacklist_characters="\x00\n\r\x0b\x0c\x1c\x1d\x1e\x85$",
)
WORDS = st.lists(st.text(LINE_CHARS, max_size=10), max_size=6)


def new_syntax(words: list[str]) -> str:
    """The manual's new syntax, written independently of fairpool: every word in single
    quotes with ' doubled, the whole in double quotes with " doubled."""
    inner = " ".join("'" + word.replace("'", "''") + "'" for word in words)
    return '"' + inner.replace('"', '""') + '"'


def through_ad_file(name: str, value: str) -> ClassAd:
    """The attribute as the schedd stores and the job ad file carries it."""
    return parse_ad(write_old(ClassAd({name: value})), fmt="old")


@given(WORDS)
def test_new_syntax_arguments_round_trip(words):
    name, value = arguments_attr(new_syntax(words), "job.sub", 1)
    assert name == "Arguments"
    assert job_arguments(through_ad_file(name, value)) == words


OLD_WORD = st.text(
    st.characters(blacklist_categories=("Cs", "Z", "Cc"), blacklist_characters='\\$"'),
    min_size=1,
    max_size=8,
) | st.sampled_from(['a"b', 'x""', "it's"])


@given(st.lists(OLD_WORD, min_size=1, max_size=6).filter(lambda w: not w[0].startswith('"')))
def test_old_syntax_arguments_split_at_blanks(words):
    text = " \t".join(word.replace('"', '\\"') for word in words)
    name, value = arguments_attr(text, "job.sub", 1)
    assert name == "Args"
    assert job_arguments(through_ad_file(name, value)) == words


SHOW_ARGV = 'for word in "$@"; do printf "%s\\0" "$word"; done\n'
ENV_NAME = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)


@given(st.dictionaries(ENV_NAME, st.text(LINE_CHARS, max_size=10), max_size=5))
def test_new_syntax_environment_round_trip(variables):
    text = new_syntax([f"{key}={value}" for key, value in variables.items()])
    name, value = environment_attr(text, "job.sub", 1)
    assert job_environment(through_ad_file(name, value)) == variables


def test_old_syntax_environment():
    name, value = environment_attr("A=1;B=x y;C=;D=a=b", "job.sub", 1)
    assert name == "Env"
    assert job_environment(ClassAd({name: value})) == {"A": "1", "B": "x y", "C": "", "D": "a=b"}


def test_no_arguments_and_no_environment():
    assert job_arguments(ClassAd()) == []
    assert job_environment(ClassAd()) == {}


@settings(max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=WORDS)
def test_the_job_sees_exactly_the_submitted_words(jobs, words):
    jobs.script("show.sh", SHOW_ARGV)
    ad = jobs.ad(f"executable = show.sh\narguments = {new_syntax(words)}\noutput = argv.out")
    jobs.run(ad)
    seen = (jobs.iwd / "argv.out").read_bytes().decode()
    assert seen.split("\0")[:-1] == words


def test_old_syntax_words_reach_the_job(jobs):
    jobs.script("show.sh", SHOW_ARGV)
    jobs.run(jobs.ad('executable = show.sh\narguments = a  b\\"c\td\noutput = argv.out'))
    assert (jobs.iwd / "argv.out").read_text().split("\0")[:-1] == ["a", 'b"c', "d"]


def read_environment(path) -> dict[str, str]:
    entries = path.read_bytes().decode().split("\0")[:-1]
    return dict(entry.split("=", 1) for entry in entries)


def test_environment_is_the_jobs_plus_the_starters(jobs, monkeypatch):
    monkeypatch.setenv("FAIRPOOL_STARTER_LEAK", "1")  # the starter's own: must not reach the job
    jobs.script("env.sh", 'env -0 > env.out\ncp "$_CONDOR_JOB_AD" job.ad\n')
    ad = jobs.ad(
        "executable = env.sh\n"
        'environment = "GREETING=\'hello world\' QUOTE=""q"" OMP_NUM_THREADS=7"\n'
        "request_cpus = 2"
    )
    machine = ClassAd({"Name": "slot1_1@test.example", "Cpus": 3})
    job = jobs.spawn(ad, machine_ad=machine)
    scratch = str(job.sandbox.path)
    wait_for(job)
    job.finish()
    seen = read_environment(jobs.iwd / "env.out")
    assert seen["GREETING"] == "hello world" and seen["QUOTE"] == '"q"'
    assert seen["OMP_NUM_THREADS"] == "7"  # the job's own value wins
    assert seen["MKL_NUM_THREADS"] == seen["GOMAXPROCS"] == "3"  # the slot's cores
    assert seen["_CONDOR_SCRATCH_DIR"] == seen["_CONDOR_JOB_IWD"] == scratch
    assert seen["_CONDOR_SLOT"] == "slot1_1"
    assert seen["_CONDOR_JOB_AD"] == scratch + "/.job.ad"
    assert seen["_CONDOR_MACHINE_AD"] == scratch + "/.machine.ad"
    assert seen["BATCH_SYSTEM"] == "HTCondor"
    assert "FAIRPOOL_STARTER_LEAK" not in seen and "PATH" not in seen
    copied = parse_ad((jobs.iwd / "job.ad").read_text(), fmt="old")
    assert copied["Cmd"] == ad["Cmd"] and copied["Owner"] == jobs.owner


def test_thread_counts_follow_request_cpus_without_a_machine_ad(jobs):
    jobs.script("env.sh", "env -0 > env.out\n")
    jobs.run(jobs.ad("executable = env.sh\nrequest_cpus = 4"))
    seen = read_environment(jobs.iwd / "env.out")
    assert seen["OMP_NUM_THREADS"] == seen["PYTHON_CPU_COUNT"] == "4"
    assert "_CONDOR_MACHINE_AD" not in seen


def test_shared_filesystem_job_starts_in_iwd(jobs):
    jobs.script("where.sh", 'pwd > where.out\necho "$_CONDOR_JOB_IWD" >> where.out\n')
    jobs.run(jobs.ad("executable = where.sh\nshould_transfer_files = NO"))
    assert (jobs.iwd / "where.out").read_text().split() == [str(jobs.iwd)] * 2
