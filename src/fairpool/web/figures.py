"""The dashboard's figures, as pure functions of what the daemons' APIs answer.

Each page is a ``Page``: single figures (``figures``), tables (columns, rows and, per
column, an optional link), charts (Chart.js type, labels, datasets) and preformatted
texts. The server renders a page's first view from it (pages.py) and the browser
fetches it again as JSON to update the view in place (static/dashboard.js), so the
figures are computed here only.

A submitter's accounting group is the longest group the negotiator knows whose name
followed by a dot begins the submitter's name (``group_physics.alice@pool`` is in
``group_physics``), else ``<none>``, as HTCondor names submitters of groups.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

from ..schedd.queue import STATUS_NAMES

__all__ = [
    "JOB_STATUS",
    "Page",
    "fairshare_page",
    "group_of",
    "job_page",
    "negotiator_page",
    "pool_page",
    "simulation_page",
]

Page = dict[str, Any]
JOB_STATUS = STATUS_NAMES
JOB_LINK = "job/{}"
NONE_GROUP = "<none>"


def group_of(submitter: str, groups: list[str]) -> str:
    """The accounting group a submitter's name places it in."""
    user = submitter.split("@", 1)[0]
    found = [g for g in groups if user.startswith(g + ".")]
    return max(found, key=len) if found else NONE_GROUP


def _table(columns: list[str], rows: list[list[Any]], links: dict[int, str] | None = None):
    return {
        "columns": columns,
        "rows": rows,
        "links": {str(k): v for k, v in (links or {}).items()},
    }


def _round(value: Any, digits: int = 3) -> Any:
    return round(value, digits) if isinstance(value, float) else value


def pool_page(
    slots: list[dict[str, Any]],
    jobs: list[dict[str, Any]],
    submitters: list[dict[str, Any]],
    groups: list[str],
) -> Page:
    """The pool now: slots by state, jobs by state, each submitter's and group's jobs."""
    by_state: dict[str, list[float]] = {}
    for slot in slots:
        entry = by_state.setdefault(str(slot.get("State", "?")), [0, 0])
        entry[0] += 1
        cpus = slot.get("Cpus")
        entry[1] += cpus if isinstance(cpus, int | float) else 0
    statuses = Counter(JOB_STATUS.get(job.get("JobStatus"), "?") for job in jobs)
    people: dict[str, list[int]] = {}
    for ad in submitters:
        entry = people.setdefault(str(ad.get("Name")), [0, 0, 0])
        for k, attribute in enumerate(("RunningJobs", "IdleJobs", "HeldJobs")):
            value = ad.get(attribute)
            entry[k] += value if isinstance(value, int) else 0
    teams: dict[str, list[int]] = {}
    for name, counts in people.items():
        entry = teams.setdefault(group_of(name, groups), [0, 0, 0])
        for k in range(3):
            entry[k] += counts[k]
    states = sorted(by_state)
    shown = [s for s in JOB_STATUS.values() if statuses.get(s)]
    return {
        "figures": {
            "slots": len(slots),
            "cpus": _round(sum(v[1] for v in by_state.values())),
            "idle": statuses.get("Idle", 0),
            "running": statuses.get("Running", 0),
            "held": statuses.get("Held", 0),
        },
        "tables": {
            "slots": _table(
                ["State", "Slots", "Cpus"], [[s, *map(_round, by_state[s])] for s in states]
            ),
            "jobs": _table(["Status", "Jobs"], [[s, statuses[s]] for s in shown]),
            "submitters": _table(
                ["Submitter", "Running", "Idle", "Held"],
                [[n, *people[n]] for n in sorted(people)],
            ),
            "groups": _table(
                ["Group", "Running", "Idle", "Held"], [[g, *teams[g]] for g in sorted(teams)]
            ),
        },
        "charts": {
            "slots": {
                "type": "doughnut",
                "labels": states,
                "datasets": [{"label": "slots", "data": [by_state[s][0] for s in states]}],
            },
            "jobs": {
                "type": "bar",
                "labels": shown,
                "datasets": [{"label": "jobs", "data": [statuses[s] for s in shown]}],
            },
        },
    }


def fairshare_page(accountant: dict[str, Any], cycles: list[dict[str, Any]]) -> Page:
    """Fair share: each submitter's RUP, EUP, share and limit of the last cycle (with its
    accountant record), each group's usage against its quota, and EUP over the cycles
    the negotiator keeps."""
    last = cycles[-1] if cycles else {}
    records = {c["name"]: c for c in accountant.get("customers", [])}
    summaries = last.get("submitters", {})
    names = sorted(n for n in set(records) | set(summaries) if "@" in n)
    rows = []
    for name in names:
        record, summary = records.get(name, {}), summaries.get(name, {})
        rup = summary.get("rup", record.get("priority"))
        factor = summary.get("factor", record.get("factor"))
        eup = summary.get("eup", rup * factor if rup is not None and factor else None)
        rows.append(
            [
                name,
                _round(rup),
                _round(eup),
                _round(factor),
                _round(summary.get("usage", record.get("weighted_resources_used"))),
                _round(summary.get("share")) if summary.get("share") is not None else "",
                _round(summary.get("limit")) if summary.get("limit") is not None else "",
            ]
        )
    groups = last.get("groups") or accountant.get("groups") or {}
    group_rows = [
        [g, _round(f.get("quota")), _round(f.get("usage")), _round(f.get("requested"))]
        for g, f in sorted(groups.items())
    ]
    return {
        "figures": {"submitters": len(names), "groups": len(groups)},
        "tables": {
            "fairshare": _table(
                ["Submitter", "RUP", "EUP", "Factor", "Usage", "Share", "Limit"], rows
            ),
            "quotas": _table(["Group", "Quota", "Usage", "Requested"], group_rows),
        },
        "charts": {
            "eup": _over_cycles(cycles, names),
            "quotas": {
                "type": "bar",
                "labels": [g for g, *_ in group_rows],
                "datasets": [
                    {"label": "quota", "data": [r[1] for r in group_rows]},
                    {"label": "usage", "data": [r[2] for r in group_rows]},
                ],
            },
        },
    }


def _over_cycles(cycles: list[dict[str, Any]], names: list[str]) -> dict[str, Any]:
    labels = [_clock(c.get("time")) for c in cycles]
    datasets = [
        {
            "label": name,
            "data": [_round(c.get("submitters", {}).get(name, {}).get("eup")) for c in cycles],
        }
        for name in names
    ]
    return {"type": "line", "labels": labels, "datasets": datasets}


def _clock(when: Any) -> str:
    return time.strftime("%H:%M:%S", time.localtime(when)) if isinstance(when, int | float) else ""


def negotiator_page(cycles: list[dict[str, Any]]) -> Page:
    """The negotiator's last cycles (duration, matches, rejections by reason) and the
    jobs the last one left idle, with its reason."""
    rows = []
    for cycle in reversed(cycles):
        reasons = Counter(r.get("reason") for r in cycle.get("rejections", []))
        rows.append(
            [
                _clock(cycle.get("time")),
                _round(cycle.get("duration")),
                len(cycle.get("matches", [])),
                len(cycle.get("rejections", [])),
                "; ".join(f"{reason}: {n}" for reason, n in sorted(reasons.items())),
            ]
        )
    last = cycles[-1] if cycles else {}
    idle = [[r.get("job"), r.get("submitter"), r.get("reason")] for r in last.get("rejections", [])]
    return {
        "figures": {
            "cycles": len(cycles),
            "matches": len(last.get("matches", [])),
            "rejections": len(last.get("rejections", [])),
            "duration": _round(last.get("duration")) if last else "",
        },
        "tables": {
            "cycles": _table(["Time", "Duration (s)", "Matches", "Rejections", "Reasons"], rows),
            "idle": _table(["Job", "Submitter", "Reason"], idle, {0: JOB_LINK}),
        },
        "charts": {
            "cycles": {
                "type": "line",
                "labels": [_clock(c.get("time")) for c in cycles],
                "datasets": [
                    {"label": "matches", "data": [len(c.get("matches", [])) for c in cycles]},
                    {
                        "label": "rejections",
                        "data": [len(c.get("rejections", [])) for c in cycles],
                    },
                ],
            },
        },
    }


_JOB_ATTRIBUTES = (
    "Owner", "AcctGroup", "AcctGroupUser", "Cmd", "Args", "RequestCpus", "RequestMemory",
    "RequestDisk", "Requirements", "QDate", "JobPrio", "NumJobStarts", "RemoteHost", "HoldReason",
    "ExitCode",
)  # fmt: skip


def job_page(job_id: str, ad: dict[str, Any] | None, where: str, analysis: str) -> Page:
    """One job: its state and chief attributes, and the negotiator's analysis of why it
    is idle (``analysis``: condor_q -better-analyze's text, empty when not found)."""
    if ad is None:
        return {
            "figures": {"job": job_id, "status": "not found"},
            "tables": {},
            "charts": {},
            "texts": {"analysis": f"Job {job_id} is neither in a queue nor in a history."},
        }
    rows = [[name, _text(name, ad[name])] for name in _JOB_ATTRIBUTES if name in ad]
    return {
        "figures": {
            "job": job_id,
            "status": JOB_STATUS.get(ad.get("JobStatus"), "?"),
            "where": where,
        },
        "tables": {"attributes": _table(["Attribute", "Value"], rows)},
        "charts": {},
        "texts": {"analysis": analysis},
    }


def _text(name: str, value: Any) -> str:
    if name == "QDate" and isinstance(value, int):
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(value))
    if isinstance(value, str) and value.startswith("/Expr(") and value.endswith(")/"):
        return value[6:-2]
    return str(value)


_SIM_COLUMNS = [
    "Submitter", "Group", "Submitted", "Completed", "Core-hours", "Share", "Entitlement",
    "Mean wait (s)", "Final RUP", "Final EUP",
]  # fmt: skip
_MAX_POINTS = 240  # a chart's points per line: enough for the eye, light for the page


def simulation_page(summary: dict[str, Any], rows: list[dict[str, str]]) -> Page:
    """A simulation's outputs (``fairpool simulate --out DIR``): its summary.json and
    timeseries.csv rows, as figures, tables and charts over simulated hours."""
    pool = summary.get("pool", {})
    submitters = summary.get("submitters", {})
    table = [
        [
            name,
            s.get("group") or NONE_GROUP,
            s.get("submitted"),
            s.get("completed"),
            _round(s.get("core_hours"), 1),
            _round(s.get("share")),
            _round(s.get("entitlement")),
            _round(s.get("wait_mean"), 0),
            _round(s.get("final_rup")),
            _round(s.get("final_eup")),
        ]
        for name, s in sorted(submitters.items())
    ]
    groups = [
        [name, _round(g.get("share")), _round(g.get("entitlement")), _round(g.get("core_hours"), 1)]
        for name, g in sorted(summary.get("groups", {}).items())
    ]
    return {
        "title": Path(str(summary.get("scenario", ""))).name,
        "figures": {
            "hours": _round(summary.get("duration_hours"), 1),
            "utilisation": f"{100 * (pool.get('utilisation') or 0):.1f}%",
            "jain": _round(pool.get("jain_fairness_index")),
            "preemptions": pool.get("preemptions", 0),
            "simcycles": pool.get("cycles", 0),
        },
        "tables": {
            "simsubmitters": _table(_SIM_COLUMNS, table),
            "simgroups": _table(["Group", "Share", "Entitlement", "Core-hours"], groups),
        },
        "charts": {
            "running": _series(rows, "submitter", "submitter", "running"),
            "eup": _series(rows, "submitter", "submitter", "eup"),
            "groupusage": _series(rows, "group", "group", "usage"),
        },
    }


def _series(rows: list[dict[str, str]], kind: str, key: str, column: str) -> dict[str, Any]:
    """One line per ``key`` of the rows of ``kind``: ``column`` over simulated hours."""
    lines: dict[str, dict[float, float]] = {}
    for row in rows:
        if row.get("kind") != kind:
            continue
        try:
            when, value = float(row["time"]), float(row[column])
        except (KeyError, ValueError):
            continue
        lines.setdefault(row.get(key, ""), {})[when] = value
    times = sorted({t for line in lines.values() for t in line})
    step = max(1, len(times) // _MAX_POINTS)
    shown = times[::step]
    return {
        "type": "line",
        "labels": [_round(t / 3600, 1) for t in shown],
        "datasets": [
            {"label": name, "data": [_round(line.get(t)) for t in shown], "pointRadius": 0}
            for name, line in sorted(lines.items())
        ],
    }
