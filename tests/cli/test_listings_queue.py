"""condor_q's listings (fairpool.cli.listings.queue), character for character.

The htcondor wheel cannot run condor_q here (there is no schedd), so the expected texts are
real condor_q output published by HTCondor users and the HTCondor manual, rebuilt from job
ads made in the test. Each source is named where it is used. Times: fairpool prints local
time as UTC, so the ads' times are chosen to show the clock the source showed.
"""

import re

from hypothesis import given
from hypothesis import strategies as st

from fairpool.classad import ClassAd, Expr
from fairpool.classad.timefmt import secs_from_civil
from fairpool.cli.listings import JobCounts, Totals, listing
from fairpool.cli.listings.queue import banner, batch, hold, nobatch, run

IDLE, RUNNING, REMOVED, COMPLETED, HELD, TRANSFERRING, SUSPENDED = range(1, 8)
ONE_RUNNING = "0 completed, 0 removed, 0 idle, 1 running, 0 held, 0 suspended"
NOTHING = "0 completed, 0 removed, 0 idle, 0 running, 0 held, 0 suspended"


def job(owner, cluster, proc=0, status=IDLE, qdate=0, **attrs):
    """A job ad with what condor_q reads (more attributes by keyword)."""
    return ClassAd(
        {
            "Owner": owner,
            "ClusterId": cluster,
            "ProcId": proc,
            "JobStatus": status,
            "QDate": qdate,
            "JobPrio": 0,
            **attrs,
        }
    )


def at(*civil):
    return secs_from_civil(*civil)


def q(jobs, now, schedd=("submit.example.org", "<10.0.0.1:9618?addrs=10.0.0.1-9618>"), **kw):
    totals = kw.pop("totals", None) or Totals.of(jobs, now, queue=jobs)
    return listing(
        jobs, now=now, schedd_name=schedd[0], schedd_address=schedd[1], totals=totals, **kw
    )


# -- the batch layout (the default) ---------------------------------------------------------
def test_batch_layout_with_a_held_job_shows_hold():
    # Real output, HTCondor 24 at INFN (2024-10-22, a GitHub README of CYGNUS-RD): one held
    # job and seven completed ones, each its own cluster; completed jobs still in the queue
    # count in the totals but not in DONE (DONE counts jobs that left the queue).
    now = at(2024, 10, 22, 16, 46, 39)
    submitted = [
        (20433, at(2024, 10, 8, 11, 9, 0), HELD),
        (20473, at(2024, 10, 18, 14, 48, 0), COMPLETED),
        (20615, at(2024, 10, 21, 17, 18, 0), COMPLETED),
        (20641, at(2024, 10, 22, 14, 12, 0), COMPLETED),
        (20642, at(2024, 10, 22, 14, 13, 0), COMPLETED),
        (20643, at(2024, 10, 22, 14, 13, 0), COMPLETED),
        (20644, at(2024, 10, 22, 14, 14, 0), COMPLETED),
        (20645, at(2024, 10, 22, 14, 14, 0), COMPLETED),
    ]
    jobs = [job("condor", c, 0, s, d, TotalSubmitProcs=1) for c, d, s in submitted]
    schedd = ("131.154.98.46.myip.cloud.infn.it", "<131.154.98.46:31618?addrs=131.154.98.46>")
    assert q(jobs, now, schedd) == (
        "\n\n"
        "-- Schedd: 131.154.98.46.myip.cloud.infn.it : <131.154.98.46:31618?... "
        "@ 10/22/24 16:46:39\n"
        "OWNER  BATCH_NAME    SUBMITTED   DONE   RUN    IDLE   HOLD  TOTAL JOB_IDS\n"
        "condor ID: 20433   10/8  11:09      _      _      _      1      1 20433.0\n"
        "condor ID: 20473   10/18 14:48      _      _      _      _      1 20473.0\n"
        "condor ID: 20615   10/21 17:18      _      _      _      _      1 20615.0\n"
        "condor ID: 20641   10/22 14:12      _      _      _      _      1 20641.0\n"
        "condor ID: 20642   10/22 14:13      _      _      _      _      1 20642.0\n"
        "condor ID: 20643   10/22 14:13      _      _      _      _      1 20643.0\n"
        "condor ID: 20644   10/22 14:14      _      _      _      _      1 20644.0\n"
        "condor ID: 20645   10/22 14:14      _      _      _      _      1 20645.0\n"
        "\n"
        "Total for query: 8 jobs; 7 completed, 0 removed, 0 idle, 0 running, 1 held, "
        "0 suspended \n"
        "Total for all users: 8 jobs; 7 completed, 0 removed, 0 idle, 0 running, 1 held, "
        "0 suspended\n"
        "\n"
    )


def test_batch_layout_for_one_users_query():
    # Real output, HTCondor 8.8 (2019-04-09, a Portuguese tutorial): the OWNER column as
    # wide as the owner, no HOLD column (nothing held), the user's own totals line; the
    # first two totals lines end in a blank.
    now = at(2019, 4, 9, 20, 26, 15)
    jobs = [job("carlosadean", 6339, 0, RUNNING, at(2019, 4, 9, 20, 26, 0))]
    schedd = ("hostname.local", "<10.148.0.7:9618?addrs=10.148.0.7-9618&noUDP>")
    totals = Totals.of(jobs, now, queue=jobs, user="carlosadean")
    assert q(jobs, now, schedd, totals=totals) == (
        "\n\n"
        "-- Schedd: hostname.local : <10.148.0.7:9618?... @ 04/09/19 20:26:15\n"
        "OWNER       BATCH_NAME    SUBMITTED   DONE   RUN    IDLE  TOTAL JOB_IDS\n"
        "carlosadean ID: 6339     4/9  20:26      _      1      _      1 6339.0\n"
        "\n"
        "Total for query: 1 jobs; 0 completed, 0 removed, 0 idle, 1 running, 0 held, "
        "0 suspended \n"
        "Total for carlosadean: 1 jobs; 0 completed, 0 removed, 0 idle, 1 running, 0 held, "
        "0 suspended \n"
        "Total for all users: 1 jobs; 0 completed, 0 removed, 0 idle, 1 running, 0 held, "
        "0 suspended\n"
        "\n"
    )


def test_named_batch_widens_batch_name_and_user_line_counts_the_whole_queue():
    # Real output, HTCondor 10 (2023-06-29, in2p3, qanat's documentation): a JobBatchName
    # of 14 characters; two other users' running jobs count only for all users.
    now = at(2023, 6, 29, 13, 18, 2)
    mine = job("ammarmian", 4651, 0, RUNNING, at(2023, 6, 29, 13, 17, 0))
    mine["JobBatchName"] = "summary_iris_4"
    others = [job("x", 4640, 0, RUNNING), job("y", 4641, 0, RUNNING)]
    totals = Totals.of([mine], now, queue=[mine, *others], user="ammarmian")
    text = q([mine], now, ("lappusmb7a.in2p3.fr", "<134.158.84.226:9618?addrs=x>"), totals=totals)
    assert text.splitlines()[3:9] == [
        "OWNER     BATCH_NAME        SUBMITTED   DONE   RUN    IDLE  TOTAL JOB_IDS",
        "ammarmian summary_iris_4   6/29 13:17      _      1      _      1 4651.0",
        "",
        "Total for query: 1 jobs; " + ONE_RUNNING + " ",
        "Total for ammarmian: 1 jobs; " + ONE_RUNNING + " ",
        "Total for all users: 3 jobs; 0 completed, 0 removed, 0 idle, 3 running, 0 held, "
        "0 suspended",
    ]


def test_done_counts_the_batchs_jobs_that_left_the_queue():
    # Real output, HTCondor 8.8 at CERN (2019-03-05, heppy's README): a cluster of 10
    # (TotalSubmitProcs) with 6 running jobs left among procs 1-9: DONE 10 - 6 = 4, and
    # JOB_IDS is the first and last proc still queued.
    now = at(2019, 3, 5, 15, 13, 52)
    left = [1, 2, 5, 7, 8, 9]
    jobs = [
        job("djamin", 594302, p, RUNNING, at(2019, 3, 5, 15, 5, 0), TotalSubmitProcs=10)
        for p in left
    ]
    for j in jobs:
        j["JobBatchName"] = "CMD: batchScri"  # the 8.8 name of an unnamed cluster, as printed
    assert batch(jobs, now) == [
        "OWNER  BATCH_NAME        SUBMITTED   DONE   RUN    IDLE  TOTAL JOB_IDS",
        "djamin CMD: batchScri   3/5  15:05      4      6      _     10 594302.1-9",
    ]


def test_empty_queue_prints_the_hold_column_and_zero_totals():
    # Real output, HTCondor 24/25 (2025-12-02, GSDC's user guide; the same header in 2019,
    # 2020, 2021, 2023 and 2026 sources): with no job the HOLD column is shown (condor_q
    # manual) and BATCH_NAME is 12 wide.
    now = at(2025, 12, 2, 4, 36, 26)
    totals = Totals.of([], now, queue=[], user="ngnu_test01")
    assert q([], now, ("nu-ui01.gsdc.internal", "<10.1.45.234:9618?a>"), totals=totals) == (
        "\n\n"
        "-- Schedd: nu-ui01.gsdc.internal : <10.1.45.234:9618?... @ 12/02/25 04:36:26\n"
        "OWNER BATCH_NAME      SUBMITTED   DONE   RUN    IDLE   HOLD  TOTAL JOB_IDS\n"
        "\n"
        "Total for query: 0 jobs; " + NOTHING + " \n"
        "Total for ngnu_test01: 0 jobs; " + NOTHING + " \n"
        "Total for all users: 0 jobs; " + NOTHING + "\n"
        "\n"
    )


def test_batches_spanning_clusters_show_first_and_last_job():
    # condor_q manual, DAG example: "3698.0 ... 3707.0" for a batch of several clusters.
    now = at(2024, 2, 12, 12, 0, 0)
    submitted = at(2024, 2, 12, 11, 55, 0)
    jobs = [job("wenger", c, p, IDLE, submitted) for c in (3698, 3707) for p in (0, 1)]
    for j in jobs:
        j["JobBatchName"] = "ex1"
    assert batch(jobs, now)[1].endswith("      _      _      4      4 3698.0 ... 3707.1")


def test_banner_keeps_an_address_without_parameters_whole():
    assert banner("s", "<1.2.3.4:9618>", 0) == "-- Schedd: s : <1.2.3.4:9618> @ 01/01/70 00:00:00"


# -- one line per job ----------------------------------------------------------------------
def test_nobatch_layout():
    # Real output, HTCondor 10 (2023-07-12, OSG School 2024 exercise 1.2): cluster ids of 5
    # digits widen ID; OWNER is cut to 14 characters; SIZE is MemoryUsage (MB) when
    # defined, else ImageSize (KiB) / 1024, and widens to 6 for "2198.0" (its heading stays
    # at the left); RUN_TIME of an idle job is its accumulated RemoteWallClockTime.
    now = at(2023, 7, 12, 11, 58, 44)
    d = at(2023, 7, 11, 9, 51, 0)
    jobs = [
        job("s16_alirezakhodaei", 18203, 0, IDLE, d, Cmd="/home/s/pascal", ImageSize=750),
        job("s16_alirezakhodaei", 18204, 0, IDLE, d, Cmd="/home/s/pascal", ImageSize=750),
        job(
            "alice", 18801, 0, IDLE, at(2023, 7, 12, 9, 58, 0), Cmd="/a/run_ffmpeg.sh",
            ImageSize=25,
        ),
        job(
            "s16_martincum", 18997, 0, IDLE, at(2023, 7, 12, 10, 59, 0), Cmd="/r/runR.pl",
            Args="1_0 run_perm.R 1 0 10", MemoryUsage=733, RemoteWallClockTime=32.0,
        ),
        job(
            "s16_martincum", 19027, 5, IDLE, at(2023, 7, 12, 11, 6, 0), Cmd="/r/runR.pl",
            Args="1_5 run_perm.R 1 5 1000", MemoryUsage=Expr("(ResidentSetSize + 1023) / 1024"),
            ResidentSetSize=2250000, RemoteWallClockTime=560.0,
        ),
    ]  # fmt: skip
    assert nobatch(jobs, now) == [
        " ID       OWNER            SUBMITTED     RUN_TIME ST PRI SIZE   CMD",
        "18203.0   s16_alirezakho  7/11 09:51   0+00:00:00 I  0      0.7 pascal",
        "18204.0   s16_alirezakho  7/11 09:51   0+00:00:00 I  0      0.7 pascal",
        "18801.0   alice           7/12 09:58   0+00:00:00 I  0      0.0 run_ffmpeg.sh",
        "18997.0   s16_martincum   7/12 10:59   0+00:00:32 I  0    733.0 "
        "runR.pl 1_0 run_perm.R 1 0 10",
        "19027.5   s16_martincum   7/12 11:06   0+00:09:20 I  0   2198.0 "
        "runR.pl 1_5 run_perm.R 1 5 1000",
    ]
    assert nobatch(list(reversed(jobs)), now) == nobatch(jobs, now)  # in job id order


def test_nobatch_with_short_ids_and_sizes():
    # Real output, HTCondor 23 (2023-07-17, an OSG training page): the cluster right-aligned
    # in 4 and SIZE 4 wide.
    now = at(2023, 7, 17, 11, 45, 0)
    submitted = at(2023, 7, 17, 11, 41, 0)
    j = job("iaross", 89, 0, IDLE, submitted, Cmd="/h/wordcount.py", Args="AAiW.txt", ImageSize=9)
    assert nobatch([j], now) == [
        " ID      OWNER            SUBMITTED     RUN_TIME ST PRI SIZE CMD",
        "  89.0   iaross          7/17 11:41   0+00:00:00 I  0    0.0 wordcount.py AAiW.txt",
    ]
    j["ImageSize"] = Expr("undefined")  # nothing to show: a blank SIZE
    assert nobatch([j], now)[1].endswith(" I  0        wordcount.py AAiW.txt")


def test_run_time_is_the_current_run_unless_cumulative():
    # condor_q manual: RUN_TIME is the current run's wall-clock time (-currentrun is "the
    # base behavior"); -cumulative-time adds the previous runs (RemoteWallClockTime).
    now = at(2024, 9, 13, 16, 5, 30)
    running = job(
        "wenger", 591, 0, RUNNING, at(2024, 9, 13, 16, 5, 0), JobCurrentStartDate=now - 13,
        RemoteWallClockTime=100.0, ImageSize=2458, Cmd="/usr/bin/condor_dagman", Args="-p 0",
    )  # fmt: skip
    # the row of the condor_q manual's DAG example (" 591.0   wenger ... 0+00:00:13 R  0
    # 2.4 condor_dagman -p 0")
    assert nobatch([running], now)[1] == (
        " 591.0   wenger          9/13 16:05   0+00:00:13 R  0    2.4 condor_dagman -p 0"
    )
    assert "0+00:01:53 R" in nobatch([running], now, cumulative=True)[1]
    shadow = running.copy()
    shadow["ShadowBday"] = now - 7200  # the shadow's birth wins over JobCurrentStartDate
    assert "0+02:00:00 R" in nobatch([shadow], now)[1]


def test_status_letters():
    # condor_q manual, ST: I R X C H > S, and < / > / <q / q> while a sandbox moves.
    def letter(status, **attrs):
        return nobatch([job("u", 1, 0, status, 0, **attrs)], 0)[1].split()[5]

    assert [letter(s) for s in range(1, 8)] == ["I", "R", "X", "C", "H", ">", "S"]
    assert letter(RUNNING, TransferringInput=True) == "<"
    assert letter(RUNNING, TransferringInput=True, TransferQueued=True) == "<q"
    assert letter(RUNNING, TransferringOutput=True) == ">"
    assert letter(TRANSFERRING, TransferQueued=True) == "q>"


def test_run_layout_and_no_totals():
    # -run heading: a script reading HTCondor 9's empty "condor_q -run" output expects 4
    # lines, the last " ID      OWNER            SUBMITTED     RUN_TIME HOST(S)" (the
    # manual: "-run disables output of the totals line"); the row as in an HTCondor
    # user guide (" 8.0   myuser         12/12 21:31   0+00:05:57 master").
    now = at(2024, 12, 12, 21, 37, 0)
    assert q([], now, layout="run").splitlines() == [
        "",
        "",
        "-- Schedd: submit.example.org : <10.0.0.1:9618?... @ 12/12/24 21:37:00",
        " ID      OWNER            SUBMITTED     RUN_TIME HOST(S)",
    ]
    j = job("myuser", 8, 0, RUNNING, at(2024, 12, 12, 21, 31, 0), JobCurrentStartDate=now - 357)
    j["RemoteHost"] = "master"
    assert run([j], now)[1] == "   8.0   myuser         12/12 21:31   0+00:05:57 master"


def test_hold_layout():
    # Real output, HTCondor 9.9 at CHTC (2022-05-31, KwanLab's troubleshooting notes; the ad
    # of job 15872426.5189 is in the shared data, data/ads/chtc): the ID widened to 13, OWNER
    # 14 wide, HELD_SINCE the time the job entered its status. The source printed CDT
    # (14:50); fairpool prints UTC, five hours later. HTCondor 24.10 added CODE/SUB (the
    # condor_q manual of 24.x/25.x: "ID, OWNER, HELD_SINCE, CODE/SUB, HOLD_REASON").
    reason = (
        "Error from slot1_3@e301.chtc.wisc.edu: Docker job has gone over memory limit of 16384 Mb"
    )
    held = job(
        "erees", 15872426, 5189, HELD, 1653145683, EnteredCurrentStatus=1653508218,
        HoldReason=reason, HoldReasonCode=34, HoldReasonSubCode=0,
    )  # fmt: skip
    assert hold([held], 1653990474) == [
        " ID           OWNER          HELD_SINCE  CODE/SUB HOLD_REASON",
        "15872426.5189 erees           5/25 19:50 34/0     " + reason,
    ]


def test_totals_layout_prints_only_the_totals():
    # print-format manual, q_totals.cpf: "SELECT NOHEADER NOTITLE / SUMMARY STANDARD".
    jobs = [job("a", 1, 0, IDLE), job("a", 1, 1, HELD)]
    totals = Totals.of(jobs, 0, queue=[*jobs, job("b", 2)], user="a")
    assert q(jobs, 0, totals=totals, layout="totals") == (
        "Total for query: 2 jobs; 0 completed, 0 removed, 1 idle, 0 running, 1 held, "
        "0 suspended \n"
        "Total for a: 2 jobs; 0 completed, 0 removed, 1 idle, 0 running, 1 held, 0 suspended \n"
        "Total for all users: 3 jobs; 0 completed, 0 removed, 2 idle, 0 running, 1 held, "
        "0 suspended\n"
    )


def test_totals_can_come_from_precomputed_counts():
    # the numbers of a real 2020 output (JRC's HTCondor guide)
    everyone = JobCounts(total=410, idle=87, running=14, held=309)
    totals = Totals(JobCounts(total=2, idle=2), everyone=everyone)
    assert totals.lines()[-1] == (
        "Total for all users: 410 jobs; 0 completed, 0 removed, 87 idle, 14 running, 309 held, "
        "0 suspended"
    )


# -- properties ----------------------------------------------------------------------------
statuses = st.integers(min_value=1, max_value=7)
names = st.text(alphabet="abcdefghij_.-0123456789", min_size=1, max_size=40)


@st.composite
def queues(draw, named=True):
    """Jobs of a few owners in a few clusters, some with batch names."""
    jobs = []
    for cluster in draw(st.lists(st.integers(1, 10**7), min_size=1, max_size=6, unique=True)):
        who = draw(st.sampled_from(["ann", "bob", "a_long_owner_name_of_thirty_chars"]))
        label = draw(st.one_of(st.none(), names)) if named else None
        for proc in draw(st.lists(st.integers(0, 9999), min_size=1, max_size=5, unique=True)):
            ad = job(who, cluster, proc, draw(statuses), draw(st.integers(0, 2**31)))
            if label is not None:
                ad["JobBatchName"] = label
            jobs.append(ad)
    return jobs


@given(queues())
def test_totals_add_up_to_the_number_of_jobs(jobs):
    counts = JobCounts.of(jobs, 0)
    parts = (counts.completed, counts.removed, counts.idle, counts.running, counts.held)
    assert sum(parts) + counts.suspended == counts.total == len(jobs)
    numbers = [int(n) for n in re.findall(r"\d+", Totals.of(jobs, 0).lines()[0])]
    assert numbers[0] == sum(numbers[1:]) == len(jobs)


def _covers(ids: str, cluster: int, proc: int) -> bool:
    first, _, last = ids.partition(" ... ")
    c, _, procs = first.partition(".")
    if last:
        lo, hi = (int(c), int(procs)), tuple(int(x) for x in last.split("."))
        return lo <= (cluster, proc) <= hi
    lo_proc, _, hi_proc = procs.partition("-")
    return int(c) == cluster and int(lo_proc) <= proc <= int(hi_proc or lo_proc)


@given(queues(named=False))
def test_every_job_id_is_in_exactly_one_batch_row(jobs):
    rows = batch(jobs, 0)[1:]
    for j in jobs:
        cluster, proc = j["ClusterId"], j["ProcId"]
        assert sum(_covers(r.rsplit(None, 1)[-1], cluster, proc) for r in rows) == 1


@given(queues())
def test_batch_columns_stay_aligned_and_count_every_job(jobs):
    header, *rows = batch(jobs, 0)
    ends = {name: header.index(name) + len(name) for name in ("DONE", "IDLE", "TOTAL")}
    ids_at = header.index("JOB_IDS")
    counts = {"RUN": 0, "IDLE": 0, "HOLD": 0}
    for row in rows:
        assert row[ids_at - 1] == " " and row[ids_at] != " "
        for end in ends.values():
            assert row[end - 1] != " " and row[end] == " "
        numbers = row[: ids_at - 1].split()[-(5 if "HOLD" in header else 4) :]
        for name, cell in zip(("RUN", "IDLE", "HOLD"), numbers[1:-1], strict=False):
            counts[name] += 0 if cell == "_" else int(cell)
    assert counts["RUN"] == sum(j["JobStatus"] in (RUNNING, TRANSFERRING) for j in jobs)
    assert counts["IDLE"] == sum(j["JobStatus"] == IDLE for j in jobs)
    assert counts["HOLD"] == sum(j["JobStatus"] == HELD for j in jobs)
    assert ("HOLD" in header) == any(j["JobStatus"] == HELD for j in jobs)


@given(st.lists(st.tuples(names, st.integers(1, 10**9), statuses), min_size=1, max_size=8))
def test_nobatch_columns_stay_aligned_for_long_owners(specs):
    jobs = [job(owner, cluster, 0, status, 0, Cmd="/bin/x") for owner, cluster, status in specs]
    header, *rows = nobatch(jobs, 0)
    edges = [header.index("SUBMITTED") + 9, header.index("RUN_TIME") + 8, header.index("CMD")]
    for row in rows:
        assert row[edges[0] - 1] != " " and row[edges[0]] == " "
        assert row[edges[1] - 1] != " " and row[edges[1]] == " "
        assert row[edges[2] :] == "x"
