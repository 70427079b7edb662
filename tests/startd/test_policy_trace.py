"""``fairpool policy trace``: one full day of a desktop machine under the seed's default
policy, the coltrane policy through the configuration reader, and bad input."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from fairpool.cli.main import main

DATA = Path(__file__).parent / "data"


def trace(tmp_path, *extra, timeline="desktop_day.csv", config="seed_default.config"):
    out = tmp_path / "trace.json"
    args = [
        "policy",
        "trace",
        "--config",
        str(DATA / config),
        "--machine",
        str(DATA / "desktop.ad"),
        "--job",
        str(DATA / "vanilla_job.ad"),
        "--timeline",
        str(timeline if isinstance(timeline, Path) else DATA / timeline),
        "--json",
        str(out),
        *extra,
    ]
    result = CliRunner().invoke(main, args)
    return result, (json.loads(out.read_text()) if out.exists() else None)


# (time, transition, State/Activity, why) over the day of data/desktop_day.csv. Passes run
# every 300 s (UPDATE_INTERVAL) and every 5 s (POLLING_INTERVAL) while Claimed/Preempting.
DAY = [
    # First pass: KeyboardIdle 100000 > 900, no load -> START T, IsOwner F.
    ("00:00:00", "1", "Unclaimed/Idle", "IsOwner"),
    ("07:55:00", "5", "Claimed/Idle", "START"),
    ("08:00:00", "10", "Claimed/Busy", "START"),
    # Typing from 9:00: KeyboardIdle 0 < 60 -> SUSPEND; the vanilla job wants suspension.
    ("09:00:00", "13", "Claimed/Suspended", "SUSPEND"),
    # Suspended more than 10 min: ActivityTimer 605 > 600 at the 5-s pass 09:10:05;
    # WANT_VACATE is T for vanilla -> Vacating.
    ("09:10:05", "15", "Preempting/Vacating", "PREEMPT"),
    # The job ignores the soft kill: KILL at ActivityTimer 605 -> 09:20:10.
    ("09:20:10", "16", "Preempting/Killing", "KILL"),
    # KILLING_TIMEOUT 30 s -> SIGKILL at 09:20:40; Owner (someone is typing: IsOwner T).
    # The 10:30-10:40 load spike happens while Owner: no change.
    ("09:20:40", "19", "Owner/Idle", None),
    # Typing stops at 12:00; 300-s passes: 12:15 sees KeyboardIdle 900 (not > 900),
    # 12:20 sees 1200.
    ("12:20:00", "1", "Unclaimed/Idle", "IsOwner"),
    ("12:30:00", "5", "Claimed/Idle", "START"),
    ("12:31:00", "10", "Claimed/Busy", "START"),
    # Load 0.8 from 12:40: CpuBusy first seen at the 12:40:00 pass; CpuBusyTime 125 > 120
    # at 12:42:05 (ActivationTimer 665 > 90) -> SUSPEND.
    ("12:42:05", "13", "Claimed/Suspended", "SUSPEND"),
    # Load back to 0 at 12:50: CONTINUE (load <= 0.3, ActivityTimer 475 > 10, KeyboardIdle
    # 3000 > 300).
    ("12:50:00", "14", "Claimed/Busy", "CONTINUE"),
    ("13:00:00", "13", "Claimed/Suspended", "SUSPEND"),
    ("13:10:05", "15", "Preempting/Vacating", "PREEMPT"),
    # The job leaves at 13:12: no waiting claim -> Owner (typing).
    ("13:12:00", "17", "Owner/Idle", None),
    # Typing stops at 17:00 -> first pass with KeyboardIdle > 900 is 17:20.
    ("17:20:00", "1", "Unclaimed/Idle", "IsOwner"),
    # Load 0.7 at 19:00: non-Condor load > 0.3 -> START F while Unclaimed -> Owner; back
    # at the 19:10 pass (load 0.1).
    ("19:00:00", "2", "Owner/Idle", "IsOwner"),
    ("19:10:00", "1", "Unclaimed/Idle", "IsOwner"),
]


def test_a_desktop_day_under_the_seed_default_policy(tmp_path):
    result, document = trace(tmp_path)
    assert result.exit_code == 0, result.output
    seen = [
        (c["time"], c["number"], "/".join(c["to"]), c["expression"]) for c in document["changes"]
    ]
    assert [s[:3] for s in seen] == [d[:3] for d in DAY]
    for (_, _, _, expression), (_, _, _, name) in zip(seen, DAY, strict=True):
        assert (expression or "").startswith(f"{name} = ") if name else expression is None
    kinds = [(a["time"] if "time" in a else a["t"], a["kind"]) for a in document["actions"]]
    assert (33640, "SIGKILL") in kinds  # 09:20:40
    assert "09:10:05" in result.output and "#15" in result.output


def test_text_output_names_transition_and_expression(tmp_path):
    result, _ = trace(tmp_path)
    line = next(x for x in result.output.splitlines() if x.strip().startswith("09:00:00"))
    assert "Claimed/Suspended" in line and "#13" in line
    assert "SUSPEND = ( KeyboardIdle < 60" in result.output


def test_coltrane_policy_through_the_config_file(tmp_path):
    timeline = tmp_path / "t.csv"
    timeline.write_text(
        "time,event,value\n00:00,keyboard,busy\n01:00,claim,coltrane\n01:01,activate,\n"
    )
    result, document = trace(
        tmp_path, "--until", "03:00", timeline=timeline, config="coltrane.config"
    )
    assert result.exit_code == 0, result.output
    # Typing all the time, yet Unclaimed (local START is U) and never suspended.
    assert [(c["time"], "/".join(c["to"])) for c in document["changes"]] == [
        ("00:00:00", "Unclaimed/Idle"),
        ("01:00:00", "Claimed/Idle"),
        ("01:01:00", "Claimed/Busy"),
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("25:99,match,", "bad.csv:3: bad time"),
        ("10:00,explode,", "bad.csv:3: unknown event 'explode'"),
        ("10:00,keyboard,sideways", "bad.csv:3: keyboard: expected busy"),
    ],
)
def test_bad_timeline_lines(tmp_path, line, message):
    timeline = tmp_path / "bad.csv"
    timeline.write_text(f"time,event,value\n00:00,match,\n{line}\n")
    result, _ = trace(tmp_path, timeline=timeline)
    assert result.exit_code != 0
    assert message in result.output
    assert str(timeline) in result.output


def test_bad_config_line(tmp_path):
    config = tmp_path / "p.config"
    config.write_text("START = True\nthis is not a knob\n")
    result = CliRunner().invoke(
        main,
        ["policy", "trace", "--config", str(config), "--timeline", str(DATA / "desktop_day.csv")],
    )
    assert result.exit_code != 0
    assert f"{config}:2: expected NAME = value" in result.output


def test_policy_help():
    result = CliRunner().invoke(main, ["policy", "trace", "--help"])
    assert result.exit_code == 0 and "--timeline" in result.output


def test_same_trace_across_hash_seeds(tmp_path):
    import os
    import subprocess
    import sys

    outputs = []
    for seed in ("0", "12345"):
        out = tmp_path / f"trace{seed}.json"
        args = [
            sys.executable,
            "-m",
            "fairpool.cli",
            "policy",
            "trace",
            "--machine",
            str(DATA / "desktop.ad"),
            "--job",
            str(DATA / "vanilla_job.ad"),
            "--timeline",
            str(DATA / "desktop_day.csv"),
            "--json",
            str(out),
        ]
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run(args, check=True, env=env, capture_output=True)
        outputs.append(out.read_text())
    assert outputs[0] == outputs[1]
    assert len(json.loads(outputs[0])["changes"]) == len(DAY)


def test_bad_machine_ad(tmp_path):
    bad = tmp_path / "m.ad"
    bad.write_text("[Name = ")
    result = CliRunner().invoke(
        main,
        ["policy", "trace", "--machine", str(bad), "--timeline", str(DATA / "desktop_day.csv")],
    )
    assert result.exit_code != 0
    # file:line:column on the first line, then the caret display of parse errors
    assert result.output.splitlines()[0].startswith(f"fairpool: error: {bad}:1:9: ")


def test_two_slot_machine(tmp_path):
    machine = tmp_path / "two.ad"
    machine.write_text('[Name = "slot1@m"; Cpus = 1]\n[Name = "slot2@m"; Cpus = 1]\n')
    timeline = tmp_path / "t.csv"
    timeline.write_text("time,event,value\n00:10,keyboard,touch\n")
    out = tmp_path / "o.json"
    result = CliRunner().invoke(
        main,
        [
            "policy",
            "trace",
            "--machine",
            str(machine),
            "--timeline",
            str(timeline),
            "--until",
            "01:00",
            "--json",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    # Both slots see the same keyboard: Unclaimed at 0, Owner at 00:10 (KeyboardIdle 0),
    # back at the first 300-s pass with KeyboardIdle > 900: 00:30 (1200 s).
    seen = [(c["time"], c["slot"], c["to"][0]) for c in json.loads(out.read_text())["changes"]]
    assert seen == [
        (t, slot, state)
        for t, state in (
            ("00:00:00", "Unclaimed"),
            ("00:10:00", "Owner"),
            ("00:30:00", "Unclaimed"),
        )
        for slot in ("slot1@m", "slot2@m")
    ]


def test_partitionable_machine_events_follow_the_dynamic_slot(tmp_path):
    machine = tmp_path / "p.ad"
    machine.write_text(
        '[Name = "slot1@big"; PartitionableSlot = true; Cpus = 8; Memory = 16384; Disk = 100000]'
    )
    job = tmp_path / "j.ad"
    job.write_text(
        '[Owner = "bob"; JobUniverse = 5; RequestCpus = 2; RequestMemory = 1000; '
        "RequestDisk = 1000]"
    )
    timeline = tmp_path / "t.csv"
    timeline.write_text(
        "time,event,value\n00:01,claim,\n00:02,activate,\n00:03,claim,\n"
        "00:04,activate,\n00:10,exit,slot1_1@big\n00:11,release,slot1_1@big\n"
        "00:12,activate,slot1_9@big\n"
    )
    out = tmp_path / "o.json"
    result = CliRunner().invoke(
        main,
        [
            "policy",
            "trace",
            "--profile",
            "modern",
            "--machine",
            str(machine),
            "--job",
            str(job),
            "--timeline",
            str(timeline),
            "--until",
            "00:20",
            "--json",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    seen = [
        (c["time"], c["slot"], "/".join(c["to"]))
        for c in document["changes"]
        if c["slot"] != "slot1@big"
    ]
    # Activations follow the claim's dynamic slot; exit and release name theirs; the
    # release kills (MODERN), and the emptied dynamic slot goes away.
    assert seen == [
        ("00:01:00", "slot1_1@big", "Claimed/Idle"),
        ("00:02:00", "slot1_1@big", "Claimed/Busy"),
        ("00:03:00", "slot1_2@big", "Claimed/Idle"),
        ("00:04:00", "slot1_2@big", "Claimed/Busy"),
        ("00:10:00", "slot1_1@big", "Claimed/Idle"),
        ("00:11:00", "slot1_1@big", "Preempting/Killing"),
        ("00:11:00", "slot1_1@big", "Owner/Idle"),
        ("00:11:00", "slot1_1@big", "Unclaimed/Idle"),
        ("00:11:00", "slot1_1@big", "Delete/Idle"),
    ]
    # An event for a slot that does not exist is refused.
    assert document["notes"] == ["00:12:00  activate: no slot slot1_9@big"]
