"""condor_gangliad's metric definition files: each file of ``GANGLIAD_METRICS_CONFIG_DIR``
holds ClassAds (new syntax, ``[ Name = "JobsSubmitted"; TargetType = "Scheduler"; ... ]``),
one metric each, read in file-name order as gangliad reads them.

A definition keeps its ad, whose attributes are evaluated with the metric ad as MY and
a daemon ad as TARGET (so ``Value = Cpus`` reads the daemon's Cpus, and ``Name`` may be
an expression such as ``strcat(State, "Cpus")``), and the parts that never change read
once: the target types and the compiled ``Regex``. Lines that begin with ``#`` or ``//``
are comments. Files whose names start with a dot or end with ``~`` (editor backups) are
skipped; a bad ad is one error naming the file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from ..classad import ClassAd, parse_ads
from ..errors import ClassAdSyntaxError, ConfigError

__all__ = ["DEFAULT_METRICS_DIR", "MetricDefinition", "load_definitions", "parse_definitions"]

DEFAULT_METRICS_DIR = Path(str(files("fairpool.monitor") / "metrics.d"))
AGGREGATES = ("sum", "avg", "max", "min")
_KNOWN = {
    "name", "value", "desc", "units", "targettype", "requirements", "regex", "aggregate",
    "aggregategroup", "scale", "derivative", "type", "verbosity", "title", "group",
    "machine", "ip", "lifetime", "cluster",
}  # fmt: skip


@dataclass(frozen=True)
class MetricDefinition:
    """One metric ad, with what is read once: its target types (lower case; "any" for
    every ad), its regular expression, its aggregate function, and where it came from."""

    ad: ClassAd
    targets: frozenset[str]
    regex: re.Pattern[str] | None
    aggregate: str | None
    where: str

    def targets_ad(self, my_type: str, slot_id: object) -> bool:
        """Whether this metric reads an ad of ``my_type`` (``Machine_slot1``: slot 1)."""
        if "any" in self.targets:
            return True
        lowered = my_type.lower()
        if lowered in self.targets:
            return True
        return lowered == "machine" and slot_id == 1 and "machine_slot1" in self.targets


def parse_definitions(text: str, where: str) -> list[MetricDefinition]:
    """The metric ads of one file's text; ``where`` names the file in errors."""
    lines = ["" if line.lstrip().startswith(("#", "//")) else line for line in text.split("\n")]
    try:
        ads = list(parse_ads("\n".join(lines), "new", where))
    except ClassAdSyntaxError as err:
        raise ConfigError(f"metric definitions: {err}") from None
    return [_definition(ad, f"{where}, metric {n}") for n, ad in enumerate(ads, 1)]


def load_definitions(directory: Path | None) -> list[MetricDefinition]:
    """Every metric of the directory's files in name order (the shipped set: None)."""
    folder = directory or DEFAULT_METRICS_DIR
    if not folder.is_dir():
        raise ConfigError(f"GANGLIAD_METRICS_CONFIG_DIR = {folder}: not a directory")
    found: list[MetricDefinition] = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or path.name.endswith("~") or not path.is_file():
            continue
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as err:
            raise ConfigError(f"metric definitions {path}: cannot read: {err}") from None
        found.extend(parse_definitions(text, str(path)))
    return found


def _definition(ad: ClassAd, where: str) -> MetricDefinition:
    if "Name" not in ad and "Regex" not in ad:
        raise ConfigError(f"{where}: a metric needs a Name (or a Regex)")
    unknown = sorted(name for name in ad if name.lower() not in _KNOWN)
    if unknown:
        raise ConfigError(f"{where}: unknown metric attribute {unknown[0]}")
    targets = _literal_text(ad, "TargetType", where) or "any"
    pattern = _literal_text(ad, "Regex", where)
    try:
        regex = re.compile(pattern) if pattern is not None else None
    except re.error as err:
        raise ConfigError(f"{where}: Regex {pattern!r}: {err}") from None
    aggregate = _literal_text(ad, "Aggregate", where)
    if aggregate is not None and aggregate.lower() not in AGGREGATES:
        raise ConfigError(
            f"{where}: Aggregate {aggregate!r}: expected one of {', '.join(AGGREGATES)}"
        )
    return MetricDefinition(
        ad,
        frozenset(t.strip().lower() for t in targets.split(",") if t.strip()),
        regex,
        aggregate.lower() if aggregate else None,
        where,
    )


def _literal_text(ad: ClassAd, name: str, where: str) -> str | None:
    if name not in ad:
        return None
    value = ad.eval(name)
    if not isinstance(value, str):
        raise ConfigError(f"{where}: {name} must be a string, not {ad.lookup(name)}")
    return value
