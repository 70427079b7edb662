"""What condor_gangliad sends to Ganglia: the samples as gmond metrics, where to send
them, and for which hosts.

- **Where**: the ``udp_send_channel`` blocks of gmond's own configuration
  (``GANGLIA_CONFIG``), as gangliad finds them through libganglia: each channel's
  ``host`` (or ``mcast_join``) and ``port``.
- **For which hosts**: with ``GANGLIA_SEND_DATA_FOR_ALL_HOSTS = False`` (the default)
  only those Ganglia already monitors, as ``GANGLIA_GSTAT_COMMAND`` lists them (gstat's
  ``--mpifile`` lines, ``host:cpus``); else every host the metrics name.
- **As what**: each sample a metric of its machine, spoofed as "ip:host" (gangliad's
  per-host spoofing, so that a slot's figures land on its machine's page); named by its
  Name, and, for an aggregate whose group is not its name, Name_group (Ganglia has no
  labels: ``PoolSlots_Claimed``); a Derivative metric has slope "positive" (Ganglia
  graphs its rate), the others "both"; TMAX the publication interval, DMAX the metric's
  Lifetime, else three intervals but at least ``GANGLIAD_MIN_METRIC_LIFETIME``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import ConfigError
from .gmond import metric_packets
from .samples import Sample

__all__ = ["Publication", "ganglia_name", "monitored_hosts", "packets", "send_channels"]

_BLOCK = re.compile(r"udp_send_channel\s*\{(.*?)\}", re.S)
_COMMENT = re.compile(r"(#|//)[^\n]*|/\*.*?\*/", re.S)


@dataclass(frozen=True)
class Publication:
    """How metrics are published: the interval (TMAX), the least lifetime (DMAX) and
    the hosts Ganglia monitors (None: every host)."""

    interval: int = 60
    min_lifetime: int = 0
    hosts: frozenset[str] | None = None


def send_channels(text: str, where: str) -> list[tuple[str, int]]:
    """(host, port) of each udp_send_channel of a gmond configuration."""
    found = []
    for block in _BLOCK.findall(_COMMENT.sub("", text)):
        settings = dict(re.findall(r"(\w+)\s*=\s*\"?([^\s\"]+)\"?", block))
        host = settings.get("host") or settings.get("mcast_join")
        try:
            port = int(settings.get("port", "8649"))
        except ValueError:
            raise ConfigError(f"{where}: udp_send_channel port {settings['port']!r}") from None
        if host:
            found.append((host, port))
    if not found:
        raise ConfigError(f"{where}: no udp_send_channel with a host to send metrics to")
    return found


def monitored_hosts(gstat_output: str) -> frozenset[str]:
    """The hosts gstat lists (``--mpifile``: ``host:cpus`` per line), short names too."""
    hosts = set()
    for line in gstat_output.splitlines():
        name = line.strip().split(":", 1)[0].strip()
        if name and not name.startswith("#"):
            hosts.update({name, name.split(".", 1)[0]})
    return frozenset(hosts)


def ganglia_name(sample: Sample) -> str:
    group = sample.aggregate_group
    return sample.name if group in ("", sample.name) else f"{sample.name}_{group}"


def packets(samples: Iterable[Sample], publication: Publication) -> list[tuple[bytes, bytes]]:
    """The (metadata, value) packets of the samples Ganglia takes."""
    out = []
    dmax_default = max(publication.min_lifetime, 3 * publication.interval)
    for sample in samples:
        host = sample.machine
        if not host:
            continue
        if publication.hosts is not None and not (
            host in publication.hosts or host.split(".", 1)[0] in publication.hosts
        ):
            continue
        value = sample.value
        text = repr(value) if isinstance(value, float) else str(value)
        out.append(
            metric_packets(
                host=host,
                ip=sample.ip or host,
                name=ganglia_name(sample),
                value=text,
                type=sample.type,
                units=sample.units,
                slope="positive" if sample.kind == "counter" else "both",
                tmax=publication.interval,
                dmax=max(sample.lifetime or dmax_default, publication.min_lifetime),
                group=sample.group,
                desc=sample.desc,
                title=sample.title,
            )
        )
    return out
