"""The knobs of high availability (seed 002, "High Availability of the Central Manager"),
read once for the negotiator of a central manager whose DAEMON_LIST names HAD.

* ``HAD_LIST``: the central managers, ``host:port`` each, the first one the primary.
  fairpool has no condor_had process: each entry names a central manager's process, by
  ``HAD_PORT`` when that is set (as HTCondor's sample configurations write HAD_LIST,
  ``$(CM1):$(HAD_PORT)``), else by the port the process serves (its collector's, from
  COLLECTOR_HOST). A central manager finds its own entry as the one with its port whose
  host is an address of this machine (one it can bind to) or its name.
* ``HAD_CONNECTION_TIMEOUT`` (seconds, default 5; fairpool takes fractions): how long a
  central manager waits on the database; the stabilization period is
  ``12 * len(HAD_LIST) * HAD_CONNECTION_TIMEOUT``.
* ``HAD_USE_PRIMARY``: the first central manager of HAD_LIST is active whenever it is up.
* ``HAD_UPDATE_INTERVAL``: seconds between the HAD ads sent to the collector (and one at
  every change).
* ``HAD_CONTROLLEE``: fairpool's HAD controls the NEGOTIATOR only.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config import Config
from ..config.knob_values import knob_error
from .addresses import is_local
from .context import knob_float

__all__ = ["HadSettings", "had_settings"]


@dataclass(frozen=True)
class HadSettings:
    entries: tuple[str, ...]
    me: str
    use_primary: bool
    timeout: float  # HAD_CONNECTION_TIMEOUT
    update_interval: float

    @property
    def index(self) -> int:
        return self.entries.index(self.me)

    @property
    def primary(self) -> str | None:
        return self.entries[0] if self.use_primary else None

    @property
    def stabilization(self) -> float:
        """The seed's stabilization period: how long a failure takes to be recovered
        from; the lease's length, so a standby takes over within it (and one timeout)."""
        return 12 * len(self.entries) * self.timeout


def had_settings(config: Config, port: int) -> HadSettings:
    """The HA knobs of the central manager serving ``port`` (ConfigError naming the knob
    when they do not describe one)."""
    controllee = (config.get("HAD_CONTROLLEE") or "NEGOTIATOR").strip().upper()
    if controllee != "NEGOTIATOR":
        raise knob_error(config, "HAD_CONTROLLEE", "NEGOTIATOR (fairpool's HAD controls it only)")
    entries = tuple(_entry(config, text) for text in config.get_list("HAD_LIST"))
    if len(entries) < 1:
        raise knob_error(config, "HAD_LIST", "the central managers' host:port, comma-separated")
    if len(set(entries)) != len(entries):
        raise knob_error(config, "HAD_LIST", "each central manager once")
    if config.is_set("HAD_PORT"):
        port = config.get_int("HAD_PORT") or 0
    mine = [
        e for e in entries if int(e.rsplit(":", 1)[1]) == port and is_local(e.rsplit(":", 1)[0])
    ]
    if len(mine) != 1:
        found = "no entry" if not mine else "several entries"
        raise knob_error(
            config,
            "HAD_LIST",
            f"one entry naming this central manager ({found} has this machine's host and"
            f" port {port}: HAD_PORT if set, else the port it serves)",
        )
    return HadSettings(
        entries,
        mine[0],
        bool(config.get_bool("HAD_USE_PRIMARY", False)),
        knob_float(config, "HAD_CONNECTION_TIMEOUT", 5.0, minimum=0.01),
        knob_float(config, "HAD_UPDATE_INTERVAL", 300.0, minimum=1.0),
    )


def _entry(config: Config, text: str) -> str:
    """``host:port`` (``<host:port>`` as HTCondor writes addresses is taken too)."""
    host, _, port = text.strip().strip("<>").rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise knob_error(config, "HAD_LIST", f"host:port entries ({text.strip()!r} is not one)")
    return f"{host.lower()}:{int(port)}"
