"""condor_gangliad metric definitions evaluated over ads, and their Prometheus text.

Each test builds its ads and definitions; the figures are counted by hand in comments.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from fairpool.classad import ClassAd, parse_ads
from fairpool.config import load_config
from fairpool.errors import ConfigError
from fairpool.monitor import (
    evaluate_metrics,
    exposition,
    family_name,
    load_definitions,
    metric_settings,
    parse_definitions,
)
from fairpool.monitor.evaluation import MetricSettings

OSPOOL = Path(__file__).parent.parent / "data" / "ads" / "ospool" / "pool_sample.ads.gz"


def slot(n: int, machine: str, state: str, cpus: int, **more: object) -> ClassAd:
    return ClassAd(
        {
            "MyType": "Machine",
            "Name": f"slot{n}@{machine}",
            "Machine": machine,
            "SlotID": n,
            "State": state,
            "Cpus": cpus,
            "Memory": 1024 * cpus,
            "TotalCpus": 8,
            **more,
        }
    )


POOL = [
    slot(1, "a", "Claimed", 2),
    slot(2, "a", "Claimed", 1),
    slot(3, "a", "Unclaimed", 5),
    slot(1, "b", "Unclaimed", 4, GPUs=1, TotalGPUs=1),
    ClassAd({"MyType": "Collector", "Name": "pool@cm", "Machine": "cm", "UpdatesTotal": 7}),
    ClassAd(
        {
            "MyType": "Negotiator",
            "Name": "cm",
            "Machine": "cm",
            "LastNegotiationCycleDuration0": 1.5,
            "LastNegotiationCycleRejectionsNoMatchFound0": 3,
            "LastNegotiationCycleRejectionsSubmitterLimitExceeded0": 2,
        }
    ),
]


def values(samples, name):
    return {s.aggregate_group or s.machine: s.value for s in samples if s.name == name}


def run(text: str, ads=POOL, settings: MetricSettings | None = None):
    definitions = parse_definitions(text, "test.metrics")
    return evaluate_metrics(definitions, ads, settings or MetricSettings(), now=1000.0)


def test_aggregates_by_group_with_the_collectors_host():
    samples = run(
        """
        [ Name = "Cpus"; Value = Cpus; TargetType = "Machine"; Aggregate = "SUM";
          AggregateGroup = State; ]
        [ Name = "Biggest"; Value = Cpus; TargetType = "Machine"; Aggregate = "MAX"; ]
        [ Name = "Mean"; Value = Cpus; TargetType = "Machine"; Aggregate = "avg"; Type = "float"; ]
        [ Name = "Least"; Value = Cpus; TargetType = "Machine"; Aggregate = "min"; ]
        """
    )
    assert values(samples, "Cpus") == {"Claimed": 3, "Unclaimed": 9}  # 2+1, 5+4
    assert values(samples, "Biggest") == {"Biggest": 5}
    assert values(samples, "Mean") == {"Mean": 3.0}  # 12 / 4
    assert values(samples, "Least") == {"Least": 1}
    assert {s.machine for s in samples} == {"cm"}  # the Collector ad's Machine


def test_per_ad_metrics_slot1_names_expressions_and_defaults():
    samples = run(
        """
        [ Name = "TotalCpus"; TargetType = "Machine_slot1"; ]
        [ Name = strcat(TARGET.State, "Slots"); Value = 1; TargetType = "Machine";
          Aggregate = "SUM"; ]
        [ Name = "Updates"; Value = UpdatesTotal; Derivative = true; TargetType = "Collector"; ]
        """
    )
    # TotalCpus read from the daemon ad (no Value), once per machine (slot 1 only)
    assert values(samples, "TotalCpus") == {"a": 8, "b": 8}
    assert values(samples, "ClaimedSlots") == {"ClaimedSlots": 2}
    assert values(samples, "UnclaimedSlots") == {"UnclaimedSlots": 2}
    (updates,) = [s for s in samples if s.name == "Updates"]
    # a daemon named name@host is published under that name (gangliad's rule)
    assert (updates.value, updates.kind, updates.machine) == (7, "counter", "pool@cm")
    assert updates.group == "HTCondor Collector"


def test_requirements_verbosity_scale_and_type():
    text = """
        [ Name = "GpuSlots"; Value = GPUs; TargetType = "Machine"; Requirements = TotalGPUs > 0;
          Aggregate = "SUM"; ]
        [ Name = "MemoryBytes"; Value = Memory; Scale = 1048576; TargetType = "Machine";
          Aggregate = "SUM"; ]
        [ Name = "CpusFloat"; Value = Cpus; Type = "float"; TargetType = "Machine_slot1"; ]
        [ Name = "Chatty"; Value = 1; Verbosity = 2; TargetType = "Collector"; ]
    """
    samples = run(text)
    assert values(samples, "GpuSlots") == {"GpuSlots": 1}  # slot1@b only
    assert values(samples, "MemoryBytes") == {"MemoryBytes": 12 * 1024 * 1048576}
    assert values(samples, "CpusFloat") == {"a": 2.0, "b": 4.0}
    assert all(type(s.value) is float for s in samples if s.name == "CpusFloat")
    assert "Chatty" not in {s.name for s in samples}
    assert "Chatty" in {s.name for s in run(text, settings=MetricSettings(verbosity=2))}


def test_regex_makes_a_metric_per_attribute_with_groups_substituted():
    samples = run(
        r"""
        [ Regex = "LastNegotiationCycleRejections([A-Z]\\w*)0"; Name = "Rejected_\\1";
          Desc = "rejected: \\1"; TargetType = "Negotiator"; ]
        [ Regex = "LastNegotiationCycle(Duration)0"; Value = Regex * 1000;
          TargetType = "Negotiator"; ]
        """
    )
    assert values(samples, "Rejected_NoMatchFound") == {"cm": 3}
    assert values(samples, "Rejected_SubmitterLimitExceeded") == {"cm": 2}
    assert {s.desc for s in samples if s.name.startswith("Rejected_")} == {
        "rejected: NoMatchFound",
        "rejected: SubmitterLimitExceeded",
    }
    # no Name: the matched attribute's; Regex stands for its value
    assert values(samples, "LastNegotiationCycleDuration0") == {"cm": 1500.0}


def test_the_knobs_requirements_and_per_execute_node(tmp_path):
    config = tmp_path / "condor_config"
    config.write_text(
        'GANGLIAD_REQUIREMENTS = Machine =!= "b"\n'
        "GANGLIAD_PER_EXECUTE_NODE_METRICS = False\n"
        "GANGLIAD_VERBOSITY = 1\n"
    )
    settings = metric_settings(load_config(str(config), env={}), "cm")
    assert settings.verbosity == 1
    samples = run(
        """
        [ Name = "TotalCpus"; TargetType = "Machine_slot1"; ]
        [ Name = "Cpus"; TargetType = "Machine"; Aggregate = "SUM"; ]
        """,
        settings=settings,
    )
    # per-node metrics of slot ads are left out; machine b's ads are not read at all
    assert values(samples, "TotalCpus") == {}
    assert values(samples, "Cpus") == {"Cpus": 8}  # 2+1+5


def test_bad_values_give_no_sample():
    samples = run(
        """
        [ Name = "Missing"; Value = NoSuchAttribute; TargetType = "Machine"; ]
        [ Name = "Broken"; Value = 1/0; TargetType = "Machine_slot1"; ]
        [ Name = "Words"; Value = "text"; TargetType = "Collector"; ]
        """
    )
    assert {s.name for s in samples} == {"Words"}  # a string metric (kept for Ganglia)
    text, _ = exposition(samples)
    assert b"words" not in text  # Prometheus has no string samples


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[ Name = "x"; Value = ( ]', "test.metrics:1"),
        ('[ Name = "x"; Colour = "red"; ]', "unknown metric attribute Colour"),
        ('[ Name = "x"; Aggregate = "median"; ]', "Aggregate 'median'"),
        ('[ Regex = "("; ]', "Regex '('"),
        ('[ Desc = "no name"; ]', "needs a Name"),
        ('[ Name = "x"; TargetType = 3; ]', "TargetType must be a string"),
    ],
)
def test_bad_definitions_are_one_clear_error(text, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        parse_definitions(text, "test.metrics")


def test_a_directory_of_files_in_name_order(tmp_path):
    (tmp_path / "10_second").write_text('[ Name = "B"; Value = 2; TargetType = "Collector"; ]')
    (tmp_path / "00_first").write_text(
        '# a comment\n[ Name = "A"; Value = 1; TargetType = "Collector"; ]\n'
    )
    (tmp_path / "00_first~").write_text("not read: an editor's backup")
    assert [d.ad["Name"] for d in load_definitions(tmp_path)] == ["A", "B"]
    with pytest.raises(ConfigError, match="not a directory"):
        load_definitions(tmp_path / "absent")


def test_exposition_reads_back_with_labels_and_counters():
    samples = run(
        """
        [ Name = "PoolSlots"; Value = 1; TargetType = "Machine"; Aggregate = "SUM";
          AggregateGroup = State; Desc = "slots"; Units = "slots"; Group = "Pool"; ]
        [ Name = "CollectorUpdates"; Value = UpdatesTotal; Derivative = true;
          TargetType = "Collector"; ]
        """
    )
    text, kind = exposition(samples)
    assert kind.startswith("text/plain")
    families = {f.name: f for f in text_string_to_metric_families(text.decode())}
    slots = families["htcondor_pool_slots"]
    assert slots.type == "gauge" and slots.documentation == "slots (slots)"
    assert {(s.labels["aggregate_group"], s.labels["group"], s.value) for s in slots.samples} == {
        ("Claimed", "Pool", 2.0),
        ("Unclaimed", "Pool", 2.0),
    }
    assert families["htcondor_collector_updates"].type == "counter"
    openmetrics, kind = exposition(samples, openmetrics=True)
    assert kind.startswith("application/openmetrics-text") and openmetrics.endswith(b"# EOF\n")
    duration = family_name("LastNegotiationCycleDuration0")
    assert duration == "htcondor_last_negotiation_cycle_duration0"
    assert family_name("user@host-RUP") == "htcondor_user_host_rup"


def _scalar(text: str) -> str:
    """The same definitions, kept off the slot columns (a Desc that is an expression)."""
    return text.replace('Desc = "d"', 'Desc = strcat("d", "")')


def test_slot_columns_agree_with_the_scalar_path_on_real_slots():
    with gzip.open(OSPOOL, "rt") as handle:
        ads = [ad for ad in parse_ads(handle) if ad.get("MyType") == "Machine"]
    text = """
        [ Name = "Cpus"; Value = Cpus; Aggregate = "SUM"; AggregateGroup = State;
          TargetType = "Machine"; Desc = "d"; ]
        [ Name = "Mem"; Value = Memory; Scale = 0.5; Aggregate = "AVG"; Type = "int32";
          AggregateGroup = TARGET.Machine; Machine = TARGET.Machine; TargetType = "Machine";
          Desc = "d"; ]
        [ Name = "Gpus"; Value = GPUs; Requirements = TotalGPUs > 0; Aggregate = "MAX";
          AggregateGroup = strcat(Arch, "/", OpSys); TargetType = "Machine"; Desc = "d"; ]
        [ Name = "Load"; Value = TotalLoadAvg; Aggregate = "MIN"; TargetType = "Machine_slot1";
          Desc = "d"; ]
        [ Name = "Mixed"; Value = ifThenElse(Cpus > 1, Cpus, 0.5); Aggregate = "SUM";
          AggregateGroup = SlotType; TargetType = "Machine"; Desc = "d"; ]
    """
    columns = run(text, ads)
    scalar = run(_scalar(text), ads)
    assert len(columns) > 20  # every machine has a Mem sample
    key = lambda s: (s.name, s.aggregate_group)  # noqa: E731
    assert sorted(columns, key=key) == sorted(
        (s.__class__(**{**s.__dict__, "desc": "d"}) for s in scalar), key=key
    )


def test_the_default_set_over_the_ospool_sample():
    with gzip.open(OSPOOL, "rt") as handle:
        ads = list(parse_ads(handle))
    definitions = load_definitions(None)
    assert len(definitions) >= 40
    samples = evaluate_metrics(definitions, ads, MetricSettings(collector_host="cm"), 0.0)
    slots = [ad for ad in ads if ad.get("MyType") == "Machine"]
    by_state: dict[str, int] = {}
    for ad in slots:
        by_state[ad["State"]] = by_state.get(ad["State"], 0) + 1
    assert values(samples, "PoolSlots") == by_state
    gpus = sum(ad.eval("GPUs") for ad in slots if (ad.eval("TotalGPUs") or 0) > 0)
    assert sum(values(samples, "PoolGPUs").values()) == gpus > 0
    exposition(samples)  # every default metric is valid Prometheus


def test_the_grafana_dashboard_reads_only_metrics_the_default_set_makes():
    import json
    import re

    dashboard = Path(__file__).parent.parent.parent / "docs" / "grafana" / "fairpool.json"
    panels = json.loads(dashboard.read_text())["panels"]
    read = {
        name
        for panel in panels
        for target in panel["targets"]
        for name in re.findall(r"htcondor_\w+", target["expr"])
    }
    made = set()
    for definition in load_definitions(None):
        name = definition.ad.eval("Name")
        if isinstance(name, str):
            counter = definition.ad.eval("Derivative") is True
            made.add(family_name(name) + ("_total" if counter else ""))
    assert len(panels) >= 10
    assert read <= made, read - made
