"""The pure parts of the live commands: condor_q -better-analyze (cli/listings/analysis.py),
the restriction list (cli/selection.py), ``-af`` parsing (cli/tool_options.py), qedit's
arguments and condor_rm/hold/release's per-job lines.

Expected texts are real HTCondor output, each named where it is used:

* HTCondor 8.8 (KISTI GSDC's user guide, 2020-05-21, ``condor_q -better-analyze
  3671768.0`` on a pool of 211 slots);
* HTCondor 23 (the OSG school's "Why is my job idle" exercise, 2024, on ap40.uw.osg-htc.org:
  the ``(kb)``/``(mb)`` units, the combined step ``[2] [0] && [1]``, the ``slots on
  machines`` summary and its warning);
* condor_rm/hold/release's per-job lines as the tools print them (the DRMAA library's
  notes of condor_release output: ``Job 939091.0 released``, ``Job 1.0 not found``,
  ``Job 939091.0 not held to be released``).
"""

from __future__ import annotations

import click
import pytest
from hypothesis import given
from hypothesis import strategies as st

from builders import make_job, make_slot
from fairpool.classad import ClassAd, Expr
from fairpool.classad.match import requirements_met
from fairpool.classad.timefmt import secs_from_civil
from fairpool.cli.job_actions import _ACTIONS, _job_line
from fairpool.cli.listings.analysis import (
    LastWord,
    better_analyze,
    clauses,
    last_word,
    steps,
    wrap,
)
from fairpool.cli.qedit import _split
from fairpool.cli.selection import Selection
from fairpool.cli.tool_options import split_autoformat
from fairpool.errors import InputError
from fairpool.negotiator.candidates import REJECT_LIMIT, REJECT_NO_MATCH

KISTI_REQUIREMENTS = (
    '((HasSingularity == true)) && (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX")'
    " && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && "
    "((TARGET.FileSystemDomain == MY.FileSystemDomain) || (TARGET.HasFileTransfer))"
)


def kisti_job() -> ClassAd:
    """Job 3671768.0 as ``condor_q -l`` showed its attributes in the guide."""
    return (
        make_job("jhchoi", 3671768, 0)
        .set(
            JobStatus=2,
            DiskUsage=2,
            FileSystemDomain="sdfarm.kr",
            RequestDisk=Expr("DiskUsage"),
            RequestMemory=2930,
            LastMatchTime=secs_from_civil(2020, 5, 20, 21, 41, 45),
        )
        .requirements(KISTI_REQUIREMENTS)
        .build()
    )


def kisti_slots() -> list[ClassAd]:
    slot = make_slot("slot1@wn").memory(4096).set(HasSingularity=True, FileSystemDomain="sdfarm.kr")
    return [slot.build()] * 211


# -- -better-analyze ---------------------------------------------------------------------
def test_requirements_are_wrapped_after_a_clause_where_the_next_would_pass_the_width():
    # KISTI (8.8): a terminal about 150 wide broke the expression after its fourth clause.
    pieces = [c for c in KISTI_REQUIREMENTS.split(" && ")]
    assert wrap(pieces, 150) == [
        '    ((HasSingularity == true)) && (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX")'
        " && (TARGET.Disk >= RequestDisk) &&",
        "    (TARGET.Memory >= RequestMemory) && ((TARGET.FileSystemDomain == MY.FileSystemDomain)"
        " || (TARGET.HasFileTransfer))",
    ]
    assert all(len(line) <= 40 or " && " not in line for line in wrap(pieces, 40))


def test_analysis_of_a_running_job_reads_as_htcondors():
    text = better_analyze(
        kisti_job(), kisti_slots(), now=0, word=LastWord(), submitter="jhchoi@sdfarm.kr", width=150
    )
    lines = text.splitlines()
    assert lines[:5] == [
        "The Requirements expression for job 3671768.000 is",
        "",
        '    ((HasSingularity == true)) && (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX")'
        " && (TARGET.Disk >= RequestDisk) &&",
        "    (TARGET.Memory >= RequestMemory) && ((TARGET.FileSystemDomain == MY.FileSystemDomain)"
        " || (TARGET.HasFileTransfer))",
        "",
    ]
    # the attributes the expression reads, as written; 8.8 printed no units, 23.x adds
    # "(mb)" after a literal RequestMemory (OSG 2024)
    assert lines[5:12] == [
        "Job 3671768.000 defines the following attributes:",
        "",
        "    DiskUsage = 2",
        '    FileSystemDomain = "sdfarm.kr"',
        "    RequestDisk = DiskUsage",
        "    RequestMemory = 2930 (mb)",
        "",
    ]
    assert lines[12:20] == [
        "The Requirements expression for job 3671768.000 reduces to these conditions:",
        "",
        "         Slots",
        "Step    Matched  Condition",
        "-----  --------  ---------",
        "[0]         211  HasSingularity == true",
        '[1]         211  TARGET.Arch == "X86_64"',
        '[3]         211  TARGET.OpSys == "LINUX"',
    ]
    assert lines[20:23] == [
        "[5]         211  TARGET.Disk >= RequestDisk",
        "[7]         211  TARGET.Memory >= RequestMemory",
        # HTCondor 8.8 printed only the disjunction's first half here (its own pruning)
        "[9]         211  (TARGET.FileSystemDomain == MY.FileSystemDomain) || "
        "(TARGET.HasFileTransfer)",
    ]
    assert "3671768.000:  Job is running." in lines
    assert "Last successful match: Wed May 20 21:41:45 2020" in lines
    summary = lines[lines.index("3671768.000:  Job is running.") + 4 :]
    assert summary == [
        "3671768.000:  Run analysis summary ignoring user priority.  Of 211 slots on 1 machines,",
        "      0 slots are rejected by your job's requirements",
        "      0 slots reject your job because of their own requirements",
        "    211 slots match and are willing to run your job",
    ]


def osg_job() -> ClassAd:
    # the OSG exercise's job: request_disk = 10MB, request_memory = 8TB and its own clause
    requirements = (
        '(OSGVO_OS_STRING == "RHEL 9") && (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX")'
        " && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory)"
    )
    return (
        make_job("alice", 12635168)
        .set(RequestDisk=10240, RequestMemory=8388608)
        .requirements(requirements)
        .build()
    )


def osg_slots() -> list[ClassAd]:
    """Five slots on two machines: three run RHEL 9, four are X86_64, two are both."""
    kinds = [
        ("RHEL 9", "X86_64"),
        ("RHEL 9", "aarch64"),
        ("RHEL 8", "X86_64"),
        (None, "X86_64"),
        ("RHEL 9", "X86_64"),
    ]
    built = []
    for number, (os_string, arch) in enumerate(kinds, 1):
        slot = make_slot(f"slot{number}@m{number % 2}").set(Arch=arch, Disk=50_000)
        if os_string:
            slot.set(OSGVO_OS_STRING=os_string)
        built.append(slot.build())
    return built


def test_a_combined_step_is_shown_when_it_narrows_both_parts():
    # OSG 2024: "[2]  7424  [0] && [1]" under [0] 7425 and [1] 9251; here 2 under 3 and 4.
    # Later combined steps hold for as many slots as the step before them: not shown.
    rows = [(s.number, s.matched, s.condition) for s in steps(osg_job(), osg_slots(), 0)]
    assert rows == [
        (0, 3, 'OSGVO_OS_STRING == "RHEL 9"'),
        (1, 4, 'TARGET.Arch == "X86_64"'),
        (2, 2, "[0] && [1]"),
        (3, 5, 'TARGET.OpSys == "LINUX"'),
        (5, 5, "TARGET.Disk >= RequestDisk"),
        (7, 0, "TARGET.Memory >= RequestMemory"),
    ]


def test_an_unmatchable_job_gets_the_summary_and_warning_of_htcondor_23():
    text = better_analyze(osg_job(), osg_slots(), now=0, word=LastWord(), submitter="a", width=80)
    lines = text.splitlines()
    assert lines[lines.index("Job 12635168.000 defines the following attributes:") + 2 :][:2] == [
        "    RequestDisk = 10240 (kb)",
        "    RequestMemory = 8388608 (mb)",
    ]
    assert "[2]           2  [0] && [1]" in lines
    assert lines[-7:] == [
        "12635168.000:  Run analysis summary ignoring user priority.  Of 5 slots on 2 machines,",
        "      5 slots are rejected by your job's requirements",
        "      0 slots reject your job because of their own requirements",
        "      0 slots match and are willing to run your job",
        "",
        "WARNING:  Be advised:",
        "   No machines matched the jobs's constraints",
    ]


def test_slots_are_split_by_whose_requirements_fail_and_who_holds_them():
    job = make_job("bob").set(User="bob@d").requirements("TARGET.Memory >= 2000").build()
    slots = [
        make_slot("slot1@a").memory(1000).build(),  # the job's requirements fail
        make_slot("slot2@a").memory(4000).start("false").build(),  # the slot's fail
        make_slot("slot3@a").memory(4000).claimed_by("bob@d").build(),
        make_slot("slot4@b").memory(4000).claimed_by("carol@d").build(),
        make_slot("slot5@b").memory(4000).build(),
        make_slot("slot6@c").memory(4000).build(),
    ]
    text = better_analyze(job, slots, now=0, word=LastWord(), submitter="bob@d")
    assert text.splitlines()[-6:] == [
        "001.000:  Run analysis summary ignoring user priority.  Of 6 slots on 3 machines,",
        "      1 slots are rejected by your job's requirements",
        "      1 slots reject your job because of their own requirements",
        "      1 slots match and are already running your jobs",
        "      1 slots match but are serving other users",
        "      2 slots match and are willing to run your job",
    ]


def test_an_idle_job_shows_the_negotiators_last_word_and_names_the_submitters_limit():
    job = make_job("bob").requirements("TARGET.Memory >= 1").build()
    when = secs_from_civil(2019, 7, 12, 15, 36, 30)
    limited = LastWord(rejected=when, reason=REJECT_LIMIT, submitter="bob@d")
    text = better_analyze(job, [make_slot("s@a").build()], now=0, word=limited, submitter="bob@d")
    # OSG 2019: the three lines between the conditions and the summary
    assert (
        "\nNo successful match recorded.\nLast failed match: Fri Jul 12 15:36:30 2019\n\n" in text
    )
    assert "Reason for last match failure: submitter limit exceeded\n" in text
    assert "the submitter's limit: bob@d" in text
    plain = LastWord(rejected=when, reason=REJECT_NO_MATCH, submitter="bob@d")
    other = better_analyze(job, [make_slot("s@a").build()], now=0, word=plain, submitter="bob@d")
    assert "submitter's limit" not in other
    unseen = better_analyze(job, [], now=0, word=LastWord(), submitter="bob@d")
    assert "No successful match recorded.\n" in unseen and "Last failed match" not in unseen


def test_a_held_job_shows_its_hold_reason():
    job = make_job("bob").set(JobStatus=5, HoldReason="via condor_hold (by user bob)").build()
    text = better_analyze(job, [], now=0, word=LastWord(), submitter="bob@d")
    assert "001.000:  Request is held.\nHold reason: via condor_hold (by user bob)\n" in text


def test_the_last_word_is_the_newest_about_this_autocluster_at_this_schedd():
    cycles = [
        {"time": 10, "matches": [], "rejections": [_rejection("s1", 4, "no match found")]},
        {
            "time": 20,
            "matches": [{"job": "7.0", "schedd": "s1", "submitter": "u"}],
            "rejections": [_rejection("s1", 4, REJECT_LIMIT), _rejection("s2", 3, "x")],
        },
        {"time": 30, "matches": [], "rejections": [_rejection("s2", 4, "y")]},
    ]
    word = last_word(cycles, "s1", "7.0", 4)
    assert word == LastWord(matched=20, rejected=20, reason=REJECT_LIMIT, submitter="u@d")
    assert last_word(cycles, "s1", "8.0", None) == LastWord()
    assert last_word(cycles, "s2", "8.0", 4).reason == "y"


def _rejection(schedd: str, autocluster: int, reason: str) -> dict:
    return {"job": "1.0", "submitter": "u@d", "reason": reason, "schedd": schedd,
            "autocluster": autocluster}  # fmt: skip


def test_clauses_are_the_top_level_ands_also_inside_outer_parentheses():
    assert [str(Expr(c)) for c in clauses(Expr("((a && b) && (c || d))").node)] == [
        "a",
        "b",
        "(c || d)",
    ]
    assert len(clauses(Expr("a || b").node)) == 1


@given(
    st.lists(
        st.tuples(st.integers(0, 4096), st.sampled_from(["X86_64", "aarch64"]), st.booleans()),
        max_size=12,
    )
)
def test_each_row_counts_the_slots_its_clause_holds_for(kinds):
    job = (
        make_job("u")
        .set(RequestMemory=2048)
        .requirements('(TARGET.Memory >= RequestMemory) && (TARGET.Arch == "X86_64") && TARGET.Ok')
        .build()
    )
    slots = [
        make_slot(f"s{i}@h").set(Memory=m, Arch=a, Ok=ok).build()
        for i, (m, a, ok) in enumerate(kinds)
    ]
    rows = {s.number: s.matched for s in steps(job, slots, 0)}
    assert rows[0] == sum(m >= 2048 for m, _, _ in kinds)
    assert rows[1] == sum(a == "X86_64" for _, a, _ in kinds)
    assert rows[3] == sum(ok for _, _, ok in kinds)
    meets = sum(requirements_met(job, s, now=0) for s in slots)
    text = better_analyze(job, slots, now=0, word=LastWord(), submitter="u")
    assert f"  {len(slots) - meets:5d} slots are rejected by your job's requirements" in text
    # a combined step is shown when it holds for fewer slots than both of its parts
    first_two = sum(m >= 2048 and a == "X86_64" for m, a, _ in kinds)
    assert (2 in rows) == (first_two < min(rows[0], rows[1]))
    assert (4 in rows) == (meets < min(first_two, rows[3]))


# -- the restriction list --------------------------------------------------------------------
def job_ad(owner: str, cluster: int, proc: int, status: int = 1) -> ClassAd:
    return make_job(owner, cluster, proc).set(JobStatus=status).build()


QUEUE = [
    job_ad("alice", 1, 0),
    job_ad("alice", 1, 1, 2),
    job_ad("bob", 2, 0),
    job_ad("bob", 3, 0, 5),
]


def chosen(selection: Selection, extra=()) -> list[str]:
    text = selection.constraint(extra)
    if text is None:
        return [f"{j['ClusterId']}.{j['ProcId']}" for j in QUEUE]
    return [f"{j['ClusterId']}.{j['ProcId']}" for j in QUEUE if Expr(text).eval(j) is True]


def test_restrictions_without_users_are_alternatives():
    # condor_q manual, "Restrictions": a job matches if it matches any restriction
    assert chosen(Selection.parse(["1.1", "2"])) == ["1.1", "2.0"]
    assert chosen(Selection.parse(["3"], ["JobStatus == 2"])) == ["1.1", "3.0"]
    assert chosen(Selection.parse([])) == ["1.0", "1.1", "2.0", "3.0"]


def test_with_users_a_job_must_be_theirs_and_match_another_restriction():
    assert chosen(Selection.parse(["bob"])) == ["2.0", "3.0"]
    assert chosen(Selection.parse(["bob", "1", "3"])) == ["3.0"]
    assert chosen(Selection.parse(["alice", "bob"], ["JobStatus != 1"])) == ["1.1", "3.0"]
    assert chosen(Selection.parse(["bob"]), extra=["JobStatus == 5"]) == ["3.0"]


def test_only_the_users_own_jobs_unless_named_all_users_or_a_super_user():
    assert Selection.parse([]).default_owner(False, "alice", super_user=False) == "alice"
    assert Selection.parse([], ["true"]).default_owner(False, "alice", False) == "alice"
    assert Selection.parse(["2"]).default_owner(False, "alice", False) is None
    assert Selection.parse(["bob"]).default_owner(False, "alice", False) is None
    assert Selection.parse([]).default_owner(True, "alice", False) is None
    assert Selection.parse([]).default_owner(False, "root", super_user=True) is None


def test_a_malformed_job_id_or_constraint_is_named():
    with pytest.raises(InputError, match=r"'5\.x': expected a job id"):
        Selection.parse(["5.x"])
    with pytest.raises(InputError, match="-constraint 'Owner ==': column"):
        Selection.parse([], ["Owner =="])


def test_user_names_are_quoted_as_classad_strings():
    assert Selection.parse(['a"b']).constraint() == 'Owner == "a\\"b"'


# -- -af and qedit's arguments -------------------------------------------------------------
def test_af_takes_the_arguments_up_to_the_next_dash():
    assert split_autoformat(["-af:jh", "Owner", "Cpus", "-nobatch", "5"]) == (
        ["-nobatch", "5"],
        ("jh", ("Owner", "Cpus")),
    )
    assert split_autoformat(["5", "-autoformat", "A"]) == (["5"], ("", ("A",)))
    assert split_autoformat(["-af", "A", "-af:l", "B"]) == ([], ("l", ("B",)))
    assert split_autoformat(["-l"]) == (["-l"], None)


def test_qedit_reads_jobs_then_attribute_value_pairs():
    assert _split(["5", "6.1", "A", "1", "B=2"], False) == (["5", "6.1"], [("A", "1"), ("B", "2")])
    assert _split(["alice", "A", '"x y"'], False) == (["alice"], [("A", '"x y"')])
    assert _split(["A", "1"], True) == ([], [("A", "1")])
    with pytest.raises(click.UsageError, match="after attribute B"):
        _split(["5", "A", "1", "B"], False)


# -- condor_rm, condor_hold, condor_release: one job's line ----------------------------------
@pytest.mark.parametrize(
    ("action", "result", "line", "ok"),
    [
        ("remove", "ok", "Job 5.0 marked for removal", True),
        ("hold", "ok", "Job 5.0 held", True),
        ("release", "ok", "Job 5.0 released", True),
        ("release", "not found", "Job 5.0 not found", False),
        ("remove", "permission denied", "Permission denied to remove job 5.0", False),
        ("hold", "bad status", "Job 5.0 already held", False),
        ("release", "bad status", "Job 5.0 not held to be released", False),
    ],
)
def test_each_jobs_result_is_the_tools_line(action, result, line, ok):
    assert _job_line(_ACTIONS[action], "5.0", result) == (line, ok)
