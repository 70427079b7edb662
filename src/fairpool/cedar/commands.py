"""HTCondor's command numbers, as the wheel sends them (they agree with HTCondor's
public condor_commands.h; spec/cedar.md)."""

from __future__ import annotations

__all__ = ["ADVERTISE", "DC_AUTHENTICATE", "DC_NOP", "INVALIDATE", "QUERY"]

DC_AUTHENTICATE = 60010
DC_NOP = 60011

# collector queries: command -> the ad type (collector table) it asks for
QUERY = {
    5: "Machine",
    6: "Scheduler",
    7: "DaemonMaster",
    10: "Machine",  # the startd's private ads: fairpool gives the public ones
    12: "Submitter",
    20: "Collector",
    48: "Any",
    50: "Negotiator",
    74: "Generic",
    78: "Accounting",
}
QUERY_BY_TARGET = (48, 74)  # any and generic ads: the query's TargetType names the type

# UPDATE_*_AD -> ad type; INVALIDATE_*_ADS likewise (numbers the wheel's advertise sent)
ADVERTISE = {
    0: "Machine",
    1: "Scheduler",
    2: "DaemonMaster",
    11: "Submitter",
    19: "Collector",
    49: "Negotiator",
    58: "Generic",
    77: "Accounting",
}
INVALIDATE = {
    13: "Machine",
    14: "Scheduler",
    15: "DaemonMaster",
    18: "Submitter",
    21: "Collector",
    51: "Negotiator",
    59: "Generic",
}

# the schedd
QMGMT_WRITE_CMD = 1112
QUERY_JOB_ADS = 516
ACT_ON_JOBS = 478
QUERY_SCHEDD_HISTORY = 515
RESCHEDULE = 421

# the negotiator
GET_PRIORITY = 451
GET_PRIORITY_ROLLUP = 514
SET_PRIORITYFACTOR = 459
SET_PRIORITY = 449
SET_ACCUMUSAGE = 494
RESET_USAGE = 458
SET_BEGINTIME = 495
SET_LASTTIME = 496
GET_RESLIST = 463
SET_CEILING = 525
DELETE_USER = 482
RESET_ALL_USAGE = 460
