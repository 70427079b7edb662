"""The run and suspension totals a startd publishes and keeps current (issue 14).

HTCondor's manual, "Machine ClassAd Attributes": TotalClaimRunTime and
TotalClaimSuspendTime are running totals of the time all jobs under the same claim spent
Claimed/Busy and Claimed/Suspended; TotalJobRunTime and TotalJobSuspendTime the same for
the current job. Policies read them (``PREEMPT = TotalClaimRunTime > 20``), so they are
brought up to date before every evaluation pass (every POLLING_INTERVAL, 5 s, while
claimed)."""

from startd_script import MODERN, changes, startd, vanilla

TIMES = ("TotalJobRunTime", "TotalJobSuspendTime", "TotalClaimRunTime", "TotalClaimSuspendTime")


def _times(s):
    return [s.ad.get(name) for name in TIMES]


def test_a_preempt_policy_on_claim_run_time_fires():
    # Claimed and running from 100; passes every 5 s: at 120 the total is 20 (not > 20),
    # at 125 it is 25, so the job is evicted then (MODERN: Preempting/Vacating). Between
    # passes the ad shows the time it was last brought to (124: 24).
    s = startd({"PREEMPT": "TotalClaimRunTime > 20"}, profile=MODERN)
    s.request_claim(100, vanilla("ann"))
    s.activate(100)
    s.advance(124)
    assert s.ad["State"] == "Claimed" and s.ad["TotalClaimRunTime"] == 24
    # Time in each state and activity pair since the startd began: Unclaimed/Idle from 0,
    # Claimed/Busy from 100; pairs never entered (or left at once) are not there.
    pairs = {name: s.ad[name] for name in s.ad if name.startswith("TotalTime")}
    assert pairs == {"TotalTimeUnclaimedIdle": 100, "TotalTimeClaimedBusy": 24}
    s.advance(125)
    assert (125, "Preempting/Vacating") in changes(s)


def test_suspension_and_a_second_job_under_the_same_claim():
    knobs = {
        "WANT_SUSPEND": "True",
        "SUSPEND": "TotalJobRunTime >= 30 && TotalJobSuspendTime =?= undefined",
        "CONTINUE": "TotalJobSuspendTime >= 20",
    }
    s = startd(knobs, profile=MODERN)
    assert not any(name in s.ad for name in TIMES)  # no claim, no totals
    s.request_claim(100, vanilla("ann"))
    assert _times(s) == [None, None, None, None]  # each appears once above 0
    s.activate(100)
    s.advance(140)
    # Suspended at the pass of 130 (30 s run), continued at 150 (20 s suspended).
    assert s.ad["Activity"] == "Suspended" and _times(s) == [30, 10, 30, 10]
    s.advance(200)
    assert _times(s) == [80, 20, 80, 20]
    s.starter_exit(200)
    assert _times(s) == [None, None, 80, 20]  # the job's totals go with it
    s.activate(210, vanilla("ann"))
    s.advance(235)
    assert _times(s) == [25, None, 105, 20]
    s.starter_exit(236)
    s.release(237)
    assert not any(name in s.ad for name in TIMES)
