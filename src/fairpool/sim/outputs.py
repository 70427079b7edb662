"""Writing a run's results: summary.json, timeseries.csv, jobs.csv and rejections.csv.

Times are seconds from the scenario's start. Numbers are written as Python writes floats
(shortest round-trip form) and rows in a fixed order, so the same scenario and seed give
byte-identical files.

timeseries.csv has one row per sample and submitter (``kind = submitter``: time,
submitter, group, running, idle, rup, eup, factor) and one per sample and group
(``kind = group``: time, group, quota, usage); columns a row does not use are empty.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from .recorder import Recorder

__all__ = [
    "write_jobs",
    "write_outputs",
    "write_rejections",
    "write_summary",
    "write_timeseries",
]

TIMESERIES = [
    "time",
    "kind",
    "submitter",
    "group",
    "running",
    "idle",
    "rup",
    "eup",
    "factor",
    "quota",
    "usage",
]
REJECTIONS = ["time", "submitter", "reason", "count"]
JOBS = ["id", "submitter", "group", "submit", "start", "end", "wait", "cpus", "preemptions"]


def write_outputs(out: Path, recorder: Recorder, summary: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_summary(out / "summary.json", summary)
    write_timeseries(out / "timeseries.csv", recorder)
    write_jobs(out / "jobs.csv", recorder)
    write_rejections(out / "rejections.csv", recorder)


def write_rejections(path: Path, recorder: Recorder) -> None:
    """One row per sample, submitter and reason: the negotiator's rejections since the
    sample before (and at the end, since the last sample)."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(REJECTIONS)
        writer.writerows(recorder.rejection_samples)


def write_summary(path: Path, summary: dict[str, Any]) -> None:
    path.write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def write_timeseries(path: Path, recorder: Recorder) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(TIMESERIES)
        for s in recorder.samples:
            writer.writerow(
                [
                    s.time,
                    "submitter",
                    s.submitter,
                    s.group,
                    s.running,
                    s.idle,
                    s.rup,
                    s.eup,
                    s.factor,
                    "",
                    "",
                ]
            )
        for g in recorder.group_samples:
            writer.writerow([g.time, "group", "", g.group, "", "", "", "", "", g.quota, g.usage])


def write_jobs(path: Path, recorder: Recorder) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(JOBS)
        for r in recorder.jobs.values():
            wait = r.wait()
            writer.writerow(
                [
                    r.id,
                    r.submitter,
                    r.group,
                    r.submit,
                    "" if r.start is None else r.start,
                    "" if r.end is None else r.end,
                    "" if wait is None else wait,
                    r.cpus,
                    r.preemptions,
                ]
            )
