"""``-af``, ``-l`` and condor_history's listing (fairpool.cli.listings), and the time formats
the listings share.

Sources: the condor_q/condor_status manual pages (``-af`` qualifiers); HTCondor's own
test expectations for ``-af`` (src/condor_tests/CheckOutputFormats.pm, check_af and
check_type, run by cmd_status-af); real condor_q -l output (CHTC, HTCondor 9.9: the ad
in the shared data, data/ads/chtc); real condor_history output. Value formatting is also
checked against the htcondor wheel (classad2's printOld, the ``-l`` writer).
"""

import math

import classad2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairpool.classad import ClassAd, Expr
from fairpool.classad.timefmt import secs_from_civil
from fairpool.cli.listings import AutoFormat, autoformat, history, long_form
from fairpool.cli.listings.autoformat import value_text
from fairpool.cli.listings.clock import duration, month_day, stamp
from fairpool.errors import ClassAdSyntaxError, FairpoolError, InputError

ADS = [
    ClassAd('[ClusterId = 7; ProcId = 0; Owner = "alice"; Wall = 1289.0; Cpus = 4; Ok = true]'),
    ClassAd('[ClusterId = 7; ProcId = 1; Owner = "bob"; Wall = 0.5; Cpus = 12; Ok = false]'),
]
ARGS = ["Owner", "Wall", "Cpus", "Missing"]


def af(qualifiers, arguments=ARGS, ads=ADS, now=0):
    return autoformat(ads, AutoFormat.parse(qualifiers, arguments), now=now)


# -- -af --------------------------------------------------------------------------------------
def test_values_one_space_apart():
    # check_af (no qualifier): "v0 v1 v2 v3\n" per ad, strings unquoted, a missing
    # attribute "undefined"; reals as -l writes them (see the classad2 test below).
    assert af("") == "alice 1289.0 4 undefined\nbob 0.5 12 undefined\n"


def test_comma_tab_and_job_id():
    # check_af ":,": fields split by ", "; ":t": by tabs; ":j": "Cluster.Proc" first.
    assert af(":,") == "alice, 1289.0, 4, undefined\nbob, 0.5, 12, undefined\n"
    assert af(":t") == "alice\t1289.0\t4\tundefined\nbob\t0.5\t12\tundefined\n"
    assert af(":j", ["Owner"]) == "7.0 alice\n7.1 bob\n"


def test_headings_line_up_the_columns():
    # check_af ":h": a heading line of the arguments; each value starts where its
    # heading does (the test splits the data at the headings' positions).
    assert af(":h") == (
        "Owner Wall   Cpus Missing\nalice 1289.0 4    undefined\nbob   0.5    12   undefined\n"
    )
    assert af(":h", ads=[]) == ""


def test_labels_one_per_line_and_the_long_equivalent():
    # check_af ":ln": each field "Name = value" on its own line (the test trims each
    # line); ":lrng": a blank line before each ad, then "Name = raw value" lines, the
    # unevaluated expression of the ad (a missing attribute prints its own name).
    lines = af(":ln").splitlines()
    assert [line.strip() for line in lines] == [
        "Owner = alice", "Wall = 1289.0", "Cpus = 4", "Missing = undefined",
        "Owner = bob", "Wall = 0.5", "Cpus = 12", "Missing = undefined",
    ]  # fmt: skip
    assert af(":lrng", ["Owner", "Cpus", "Ok", "Missing"]) == (
        '\nOwner = "alice"\nCpus = 4\nOk = true\nMissing = Missing\n'
        '\nOwner = "bob"\nCpus = 12\nOk = false\nMissing = Missing\n'
    )


def test_quoted_strings_and_expressions():
    # condor_q manual: "V  Use %V rather than %v (string values are quoted)"; arguments
    # may be expressions, evaluated in the ad at the caller's time.
    assert af(":V", ["Owner", "Ok"]) == '"alice" true\n"bob" false\n'
    assert af("", ["Cpus * 2", "time() - 100", 'strcat(Owner, "!")'], now=1000) == (
        "8 900 alice!\n24 900 bob!\n"
    )


def test_refused_qualifiers_and_arguments():
    # condor_q manual: "The newline and comma characters may not be used together. The l
    # and h characters may not be used together."
    for qualifiers in (":n,", ":lh", ":x"):
        with pytest.raises(InputError, match=r"<command line>: -af"):
            AutoFormat.parse(qualifiers, ["Owner"])
    with pytest.raises(InputError, match="at least one"):
        AutoFormat.parse("", [])
    with pytest.raises(ClassAdSyntaxError):
        AutoFormat.parse("", ["Owner +"])
    assert issubclass(InputError, FairpoolError)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_reals_print_as_the_htcondor_library_writes_them(value):
    # Differential: classad2's printOld (the -l writer) is the oracle for %v and %V.
    ad = classad2.ClassAd()
    ad["x"] = value
    assert ad.printOld() == f"x = {value_text(value)}\n"


C_STRINGS = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"))


@given(st.one_of(C_STRINGS, st.booleans(), st.integers(-(2**63), 2**63 - 1)))
def test_other_values_print_as_the_htcondor_library_writes_them(value):
    # (HTCondor's strings are C strings: they hold no NUL.)
    ad = classad2.ClassAd()
    ad["x"] = value
    assert ad.printOld() == f"x = {value_text(value, quoted=True)}\n"
    if isinstance(value, str):
        assert value_text(value) == value


# -- -l -----------------------------------------------------------------------------------------
# Lines of the real condor_q -l output of job 15872426.5189 (CHTC, HTCondor 9.9, 2022).
CHTC = """\
Args = "dbscan 10 10 5 5 10000Mbp"
ClusterId = 15872426
Cmd = "/home/erees/autometa_runs/binning_param_sweep/./autometa_binning.sh"
CpusProvisioned = 4
CPUsUsage = 0.0
HoldReasonCode = 34
JobStatus = 5
Owner = "erees"
ProcId = 5189
RemoteWallClockTime = 1289.0
"""


def test_long_form_sorts_attributes_without_case():
    # Real condor_q -l output lists attributes sorted without regard to case
    # ("CpusProvisioned" before "CPUsUsage"); ads are separated by a blank line.
    lines = [line for line in CHTC.splitlines() if "." not in line.partition(" = ")[2]]
    shuffled = ClassAd("[" + "; ".join(reversed(lines)) + "]")
    assert long_form([shuffled, shuffled]) == "\n".join(["\n".join(lines) + "\n"] * 2)


@pytest.mark.xfail(
    strict=True,
    reason="classad.formats.write_old writes reals as 1.289000000000000E+03; HTCondor's -l "
    "writer (classad2.printOld, and this real output) writes 1289.0",
)
def test_long_form_reproduces_real_condor_q_l_output():
    ad = ClassAd("[" + "; ".join(CHTC.splitlines()) + "]")
    assert long_form([ad]) == CHTC


# -- condor_history ---------------------------------------------------------------------------
def test_history_is_newest_first():
    # The header of real condor_history output (2007, HTCondor 6.8 at the IAC; 2013-2018,
    # OSG Connect: " ID      OWNER            SUBMITTED     RUN_TIME ST   COMPLETED CMD");
    # rows laid out as condor_q -nobatch lays them out, RUN_TIME the job's
    # RemoteWallClockTime, COMPLETED its CompletionDate (blank for a removed job that never
    # completed), CMD the whole Cmd with its arguments.
    done = ClassAd(
        {
            "ClusterId": 823,
            "ProcId": 0,
            "Owner": "netid",
            "QDate": secs_from_civil(2013, 8, 21, 9, 46, 0),
            "RemoteWallClockTime": 12.0,
            "JobStatus": 4,
            "CompletionDate": secs_from_civil(2013, 8, 21, 9, 46, 30),
            "Cmd": "/home/netid/short.sh",
        }
    )
    removed = ClassAd(
        {
            "ClusterId": 824,
            "ProcId": 0,
            "Owner": "netid",
            "QDate": secs_from_civil(2013, 8, 21, 9, 50, 0),
            "RemoteWallClockTime": 23.0,
            "JobStatus": 3,
            "CompletionDate": 0,
            "Cmd": "/home/netid/short.sh",
            "Args": "5",
        }
    )
    assert history([done, removed], now=0) == (
        " ID      OWNER            SUBMITTED     RUN_TIME ST   COMPLETED CMD\n"
        " 824.0   netid           8/21 09:50   0+00:00:23 X              /home/netid/short.sh 5\n"
        " 823.0   netid           8/21 09:46   0+00:00:12 C   8/21 09:46 /home/netid/short.sh\n"
    )


# -- shared formats ---------------------------------------------------------------------------
def test_time_formats():
    # From the real outputs above: "14+17:40:01" (condor_q manual), " 4/9  20:26" and
    # "10/18 14:48" (SUBMITTED), "10/22/24 16:46:39" (the schedd banner).
    assert duration(14 * 86400 + 17 * 3600 + 40 * 60 + 1.9) == "14+17:40:01"
    assert duration(-5) == "0+00:00:00"  # clock skew shows as no time
    assert month_day(secs_from_civil(2019, 4, 9, 20, 26, 59)) == " 4/9  20:26"
    assert month_day(secs_from_civil(2024, 10, 18, 14, 48, 0)) == "10/18 14:48"
    assert stamp(secs_from_civil(2024, 10, 22, 16, 46, 39)) == "10/22/24 16:46:39"


@given(st.floats(min_value=0, max_value=10**9))
def test_durations_read_back(seconds):
    days, _, clock = duration(seconds).partition("+")
    hours, minutes, secs = (int(x) for x in clock.split(":"))
    assert int(days) * 86400 + hours * 3600 + minutes * 60 + secs == math.floor(seconds)
    assert hours < 24 and minutes < 60 and secs < 60


def test_expressions_are_evaluated_at_the_given_time():
    ad = ClassAd({"ClusterId": 1, "ProcId": 0, "Age": Expr("time() - 40")})
    assert af("", ["Age"], ads=[ad], now=100) == "60\n"
