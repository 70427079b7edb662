"""condor_status's listings (fairpool.cli.listings.status), character for character.

The expected texts are real condor_status output (HTCondor 8.6-25) published by HTCondor
users and the HTCondor manual, rebuilt here from slot and daemon ads. Where no published
output shows a layout whole, the test says which part comes from where.
"""

from hypothesis import given
from hypothesis import strategies as st

from fairpool.classad import ClassAd
from fairpool.cli.listings import any_ads, negotiators, schedds, slot_summary, slots, submitters


def slot(name, state="Unclaimed", activity="Idle", memory=1024, entered=0, asof=0, **attrs):
    """A slot ad with what the default layout reads; ActvtyTime is asof - entered."""
    return ClassAd(
        {
            "Name": name,
            "Machine": name.partition("@")[2] or name,
            "OpSys": "LINUX",
            "Arch": "X86_64",
            "State": state,
            "Activity": activity,
            "LoadAvg": 0.0,
            "Memory": memory,
            "EnteredCurrentActivity": entered,
            "MyCurrentTime": asof,
            **attrs,
        }
    )


def span(days, hours, minutes, seconds):
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds


def test_default_layout():
    # Real output, HTCondor 24/25 (2025-12-02, GSDC's user guide), 7 static slots. The
    # slots are given out of order: condor_status sorts them by Machine, then Name.
    asof = 1764650000
    rows = [
        ("nu-wn05", 644571, span(0, 21, 54, 41)),
        ("nu-wn01", 596190, span(6, 22, 20, 8)),
        ("nu-wn02", 596190, span(6, 22, 20, 18)),
        ("nu-wn03", 644571, span(0, 21, 54, 36)),
        ("nu-wn04", 644571, span(0, 21, 54, 31)),
        ("nu-wn06", 644571, span(0, 18, 44, 32)),
        ("nu-wn07", 644571, span(0, 21, 54, 35)),
    ]
    ads = [
        slot(f"slot1@{host}.gsdc.internal", memory=mem, entered=asof - age, asof=asof)
        for host, mem, age in rows
    ]
    idle = "LINUX      X86_64 Unclaimed Idle      0.000"
    assert slots(ads, now=asof + 999) == (  # ActvtyTime is as of the ad's MyCurrentTime
        "Name                        OpSys      Arch   State     Activity LoadAv Mem     "
        "ActvtyTime\n"
        "\n"
        f"slot1@nu-wn01.gsdc.internal {idle} 596190  6+22:20:08\n"
        f"slot1@nu-wn02.gsdc.internal {idle} 596190  6+22:20:18\n"
        f"slot1@nu-wn03.gsdc.internal {idle} 644571  0+21:54:36\n"
        f"slot1@nu-wn04.gsdc.internal {idle} 644571  0+21:54:31\n"
        f"slot1@nu-wn05.gsdc.internal {idle} 644571  0+21:54:41\n"
        f"slot1@nu-wn06.gsdc.internal {idle} 644571  0+18:44:32\n"
        f"slot1@nu-wn07.gsdc.internal {idle} 644571  0+21:54:35\n"
        "\n"
        "               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle\n"
        "\n"
        "  X86_64/LINUX     7     0       0         7       0          0      0        0      0\n"
        "\n"
        "         Total     7     0       0         7       0          0      0        0      0\n"
    )


def test_small_memory_and_the_clock_of_the_caller():
    # Real output, HTCondor 25 (2025-11-20, four 2048 MB slots): Mem 4 wide with its
    # heading at the left; an ad without MyCurrentTime or LastHeardFrom is timed by `now`.
    ads = [slot(f"slot{i}@node", memory=2048, entered=50, asof=None) for i in (1, 2)]
    assert slots(ads, now=50).splitlines()[:3] == [
        "Name       OpSys      Arch   State     Activity LoadAv Mem   ActvtyTime",
        "",
        "slot1@node LINUX      X86_64 Unclaimed Idle      0.000 2048  0+00:00:00",
    ]


def test_partitionable_and_dynamic_slots_are_all_listed_and_counted():
    # condor_status manual, example 3: the partitionable slot (what it has left) and its
    # dynamic slots each have a line and count in the summary (5: 4 Claimed, 1 Unclaimed).
    names = ["slot1@vulture", "slot1_1@vulture", "slot1_2@vulture", "slot1_3@vulture"]
    ads = [slot(names[0], memory=679), *(slot(n, "Claimed", "Busy") for n in names[1:])]
    ads.append(slot("slot1_4@vulture", "Claimed", "Busy", memory=5081))
    text = slots(list(reversed(ads)), now=0).splitlines()
    assert [line.split()[0] for line in text[2:7]] == [*names, "slot1_4@vulture"]
    assert text[-1].split() == ["Total", "5", "0", "4", "1", "0", "0", "0", "0", "0"]


def test_summary_of_a_large_pool():
    # Real output, HTCondor 24 (OSG School 2025 exercise 1.2): two Arch/OpSys rows sorted as
    # bytes (X before a), a 5-digit Total still 5 wide, the label column 14 wide.
    claimed = slot("c", "Claimed", "Busy")
    unclaimed = slot("u")
    preempting = slot("p", "Preempting", "Vacating")
    arm = slot("arm", Arch="aarch64")
    ads = [claimed] * 47991 + [unclaimed] * 6313 + [preempting] * 162 + [arm]
    assert slot_summary(ads, now=0) == (
        "               Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle\n"
        "\n"
        "  X86_64/LINUX 54466     0   47991      6313       0        162      0        0      0\n"
        " aarch64/LINUX     1     0       0         1       0          0      0        0      0\n"
        "\n"
        "         Total 54467     0   47991      6314       0        162      0        0      0\n"
    )


def test_summary_columns_count_states():
    # HTCondor's test expectations (CheckOutputFormats.pm, count_status_state): one column
    # per State; Drained slots count under Drain, Backfill under Backfill or BkIdle (idle).
    states = ["Owner", "Claimed", "Unclaimed", "Matched", "Preempting", "Drained"]
    ads = [slot(f"s{i}", state) for i, state in enumerate(states)]
    ads += [slot("b1", "Backfill", "Busy"), slot("b2", "Backfill", "Idle"), slot("x", "Delete")]
    assert slot_summary(ads, now=0).splitlines()[-1] == (
        "         Total     9     1       1         1       1          1      1        1      1"
    )  # Delete counts in Total only


def test_no_ads_print_nothing():
    # Real output (2023, SLAC): "$ condor_status" on a pool without slots prints nothing.
    assert slots([], now=0) == slot_summary([], now=0) == schedds([], now=0) == ""


def test_schedd_layout_and_totals():
    # Main table: real output, HTCondor 10+ (CERN's harvester documentation):
    #   "Name               Machine            RunningJobs   IdleJobs   HeldJobs" and
    #   "myschedd.cern.ch   myschedd.cern.ch          9580       2723         16".
    # Totals block: real output, HTCondor 8.6 (kbase's README), right after the rows:
    #   "                      TotalRunningJobs      TotalIdleJobs      TotalHeldJobs",
    #   a blank line, a line of 20 blanks, "               Total ...".
    ad = ClassAd(
        {
            "MyType": "Scheduler",
            "Name": "myschedd.cern.ch",
            "Machine": "myschedd.cern.ch",
            "TotalRunningJobs": 9580,
            "TotalIdleJobs": 2723,
            "TotalHeldJobs": 16,
        }
    )
    assert schedds([ad], now=0) == (
        "Name               Machine            RunningJobs   IdleJobs   HeldJobs\n"
        "\n"
        "myschedd.cern.ch   myschedd.cern.ch          9580       2723         16\n"
        "                      TotalRunningJobs      TotalIdleJobs      TotalHeldJobs\n"
        "\n"
        "                    \n"
        "               Total              9580               2723                 16\n"
    )


def test_schedd_totals_only():
    # Real output, HTCondor 8.x ("condor_status -pool osg-flock.grid.iu.edu -schedd -total").
    jobs = ("TotalRunningJobs", "TotalIdleJobs", "TotalHeldJobs")
    ads = [
        ClassAd({"Name": f"s{i}", **dict(zip(jobs, counts, strict=True))})
        for i, counts in enumerate([(18000, 150000, 2000), (464, 2011, 573)])
    ]
    assert schedds(ads, now=0, total_only=True) == (
        "                      TotalRunningJobs      TotalIdleJobs      TotalHeldJobs\n"
        "\n"
        "                    \n"
        "               Total             18464             152011               2573\n"
    )


def test_submitters_sum_each_user_over_schedds():
    # condor_status manual and users' manual (job submission, "Summary of all HTCondor
    # users"): the totals block lists each user once, sorted, labels cut to 20 and
    # right-aligned ("nice-user.condor@cs."), delgadom summed over two schedds.
    def submitter(name, machine, running, idle, held):
        return ClassAd(
            {
                "MyType": "Submitter",
                "Name": name,
                "Machine": machine,
                "RunningJobs": running,
                "IdleJobs": idle,
                "HeldJobs": held,
            }
        )

    ads = [
        submitter("apadron@iac.es", "cormoran.iac.es", 1, 0, 0),
        submitter("delgadom@iac.es", "gladiolo.iac.es", 1, 0, 0),
        submitter("angelv@iac.es", "guinda.iac.es", 1, 0, 0),
        submitter("delgadom@iac.es", "lila.iac.es", 22, 28, 0),
        submitter("nice-user.condor@cs.wisc.edu", "naranja.iac.es", 81, 62, 0),
        submitter("apadron@iac.es", "rex.iac.es", 0, 0, 24),
    ]
    assert submitters(ads, now=0).splitlines()[8:] == [
        "                           RunningJobs           IdleJobs           HeldJobs",
        "",
        "       angelv@iac.es                 1                  0                  0",
        "      apadron@iac.es                 1                  0                 24",
        "     delgadom@iac.es                23                 28                  0",
        "nice-user.condor@cs.                81                 62                  0",
        "                    ",
        "               Total               106                 90                 24",
    ]
    assert submitters(ads, now=0).splitlines()[:3] == [
        "Name                         Machine            RunningJobs   IdleJobs   HeldJobs",
        "",
        "apadron@iac.es               cormoran.iac.es              1          0          0",
    ]


def test_negotiator_layout_from_real_ads():
    # Columns: HTCondor's test expectations (CheckOutputFormats.pm: the heading "Name
    # LastCycleEnd (Sec) Slots Submitrs Schedds Jobs Matches Rejections", each fed by the
    # LastNegotiationCycle*0 attributes). Ads: the values of the OSPool's two negotiators
    # (HTCondor 24; PelicanPlatform/classad's pool_sample.ads.gz, in the shared data as
    # ads/ospool). No published output shows the widths: each column is as wide as its
    # heading or widest value.
    stats = ("Duration", "CandidateSlots", "ActiveSubmitterCount", "NumSchedulers")
    stats += ("NumIdleJobs", "Matches", "Rejections")
    allocated = "NEGOTIATOR_ALLOCATED@cm-1.ospool.osg-htc.org"
    real = [
        (allocated, 1783286251, 34, 53, 129, 15, 253322, 0, 26184),
        ("cm-1.ospool.osg-htc.org", 1783286372, 84, 3536, 126, 15, 255445, 409, 2289),
    ]
    ads = [
        ClassAd(
            {
                "MyType": "Negotiator",
                "Name": name,
                "LastNegotiationCycleEnd0": end,
                **{f"LastNegotiationCycle{s}0": v for s, v in zip(stats, values, strict=True)},
            }
        )
        for name, end, *values in real
    ]
    assert negotiators(ads, now=0) == (
        "Name                                         LastCycleEnd (Sec) Slots Submitrs Schedds"
        "   Jobs Matches Rejections\n"
        "\n"
        "NEGOTIATOR_ALLOCATED@cm-1.ospool.osg-htc.org   7/5  21:17    34    53      129      15"
        " 253322       0      26184\n"
        "cm-1.ospool.osg-htc.org                        7/5  21:19    84  3536      126      15"
        " 255445     409       2289\n"
    )


def test_any_layout():
    # Real output, HTCondor 25 (2026, the annex-on-Slurm guide): the Name heading padded to
    # 41, the names not; TargetType "None" for ads without one (HTCondor 24's daemon ads
    # have none: shared data ads/ospool).
    ads = [
        ClassAd({"MyType": "Collector", "Name": "My Pool - ap.edu@ap.edu"}),
        ClassAd({"MyType": "Scheduler", "Name": "ap.edu"}),
        ClassAd({"MyType": "Machine", "TargetType": "Job", "Name": "slot1@ep"}),
    ]
    assert any_ads(ads, now=0) == (
        "MyType             TargetType         Name                                     \n"
        "\n"
        "Collector          None               My Pool - ap.edu@ap.edu\n"
        "Scheduler          None               ap.edu\n"
        "Machine            Job                slot1@ep\n"
    )


@given(st.lists(st.text("abcxyz@._-0123456789", min_size=1, max_size=70), min_size=1, max_size=8))
def test_slot_columns_stay_aligned_for_long_names(names):
    # condor_status widens Name for long names (real output: a 52-character name in
    # 2023) rather than cutting them; every other column keeps its place.
    ads = [slot(n, entered=0, asof=86400 * 3) for n in names]
    lines = slots(ads, now=0).splitlines()
    header, rows = lines[0], lines[2 : 2 + len(names)]
    opsys = header.index("OpSys")
    for row in rows:
        assert row[opsys - 1] == " " and row[opsys : opsys + 5] == "LINUX"
        assert row.endswith(" 3+00:00:00") and len(row) == len(header)
