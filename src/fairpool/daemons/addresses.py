"""Where a process of the pool listens, the address it gives the others, and the
collectors it reports to: HTCondor's NETWORK_INTERFACE, BIND_ALL_INTERFACES,
COLLECTOR_HOST and COLLECTOR_ARGS.

* ``NETWORK_INTERFACE`` is the address the process listens on and advertises (every daemon
  ad's ``ApiAddress`` and ``MyAddress``): an IPv4 address, a network device (``eth0``), a
  pattern (``192.168.*``, the first address of this host that matches) or ``*`` (the
  host's first address that is not loopback). fairpool's default is ``127.0.0.1``, a
  personal pool reachable from this host only; HTCondor's is ``*``.
* ``BIND_ALL_INTERFACES = True`` listens on every interface (0.0.0.0) and still
  advertises the NETWORK_INTERFACE address. Default False (HTCondor's: True).
* ``COLLECTOR_HOST`` lists the pool's collectors (``host[:port]``, 9618 by default, or a
  URL, ``https://`` for TLS), several separated by commas or blanks as HTCondor's high
  availability configuration lists them.
* A process that runs a collector listens on the port of *its own* entry of the list:
  the one ``COLLECTOR_ARGS = -p PORT`` names (HTCondor's idiom for a second collector on
  one host), else the first entry naming this host, else the only one. Port 0 (``:0``, a
  personal pool's setting) takes any free port; only the collector's own process can use
  such an entry.
"""

from __future__ import annotations

import fnmatch
import ipaddress
import shlex
import socket
from dataclasses import dataclass
from functools import cache

import psutil

from ..config import Config
from ..config.knob_values import knob_error
from ..security.tls import scheme

__all__ = [
    "CollectorHost",
    "Interface",
    "collector_entry",
    "collector_hosts",
    "collector_port",
    "interface",
    "is_local",
    "listed_collectors",
    "own_collector",
]

DEFAULT_PORT = 9618


@dataclass(frozen=True)
class CollectorHost:
    """One entry of COLLECTOR_HOST."""

    host: str
    port: int
    scheme: str = "http"

    @property
    def base(self) -> str:
        """Its process's HTTP server."""
        return f"{self.scheme}://{self.host}:{self.port}"

    @property
    def url(self) -> str:
        """The collector's API."""
        return f"{self.base}/collector"


@dataclass(frozen=True)
class Interface:
    """Where the process listens (``bind``) and the address it gives (``advertised``)."""

    bind: str
    advertised: str


def collector_hosts(config: Config) -> list[CollectorHost]:
    """COLLECTOR_HOST's entries in order; a personal pool's ``127.0.0.1:0`` when unset."""
    return listed_collectors(config, "COLLECTOR_HOST") or [CollectorHost("127.0.0.1", 0)]


def listed_collectors(config: Config, knob: str) -> list[CollectorHost]:
    """The collectors a knob lists (COLLECTOR_HOST, CONDOR_VIEW_HOST)."""
    found = []
    default = scheme(config)  # a pool given a certificate speaks HTTPS everywhere
    for text in config.get_list(knob):
        entry = collector_entry(text, default)
        if entry is None:
            raise knob_error(config, knob, f"host[:port] entries or http(s):// URLs, not {text!r}")
        found.append(entry)
    return found


def collector_entry(text: str, default_scheme: str = "http") -> CollectorHost | None:
    """One collector named as ``host``, ``host:port`` (``default_scheme``) or a URL
    (None: it is none)."""
    scheme, _, rest = text.strip().rpartition("://")
    if scheme not in ("", "http", "https"):
        return None
    where = rest.split("/", 1)[0]
    host, colon, port = where.rpartition(":")
    if not colon:
        host, port = where, str(DEFAULT_PORT)
    if not host or not port.isdigit() or int(port) > 65535:
        return None
    return CollectorHost(host, int(port), scheme or default_scheme)


def interface(config: Config) -> Interface:
    """NETWORK_INTERFACE and BIND_ALL_INTERFACES, as this host's addresses."""
    text = (config.get("NETWORK_INTERFACE") or "").strip() or "127.0.0.1"
    advertised = _choose(config, text)
    every = config.get_bool("BIND_ALL_INTERFACES", False)
    return Interface("0.0.0.0" if every else advertised, advertised)


def _choose(config: Config, text: str) -> str:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        pass
    else:
        if address.version == 4:
            return text
    devices = _local_addresses()
    if devices.get(text):
        return devices[text][0]
    every = [a for found in devices.values() for a in found]
    if text == "*":
        outside = [a for a in every if not ipaddress.ip_address(a).is_loopback]
        return (outside or ["127.0.0.1"])[0]
    if "*" in text or "?" in text:
        matching = [a for a in every if fnmatch.fnmatchcase(a, text)]
        if matching:
            return matching[0]
    raise knob_error(
        config,
        "NETWORK_INTERFACE",
        "an IPv4 address, a network device, a pattern such as 192.168.* or * "
        f"(this host has {', '.join(every) or 'no IPv4 address'})",
    )


def _local_addresses() -> dict[str, list[str]]:
    """This host's IPv4 addresses by network device."""
    return {
        device: [a.address for a in found if a.family == socket.AF_INET]
        for device, found in psutil.net_if_addrs().items()
    }


def is_local(host: str, advertised: str = "127.0.0.1") -> bool:
    """Whether a host name or address names this host."""
    if host in ("localhost", advertised, socket.getfqdn(), socket.gethostname()):
        return True
    address = _resolve(host)
    if address is None:
        return False
    if ipaddress.ip_address(address).is_loopback:
        return True
    return any(address in found for found in _local_addresses().values())


@cache
def _resolve(host: str) -> str | None:
    try:
        return socket.gethostbyname(host)
    except OSError:
        return None


def own_collector(
    config: Config, hosts: list[CollectorHost], runs_collector: bool, advertised: str
) -> int | None:
    """The entry of COLLECTOR_HOST that is this process's collector (None: none is, or
    the collector here is none of them), after checking that every other entry can be
    reached (a port)."""
    own = None
    if runs_collector:
        port = _args_port(config)
        mine = [
            i
            for i, h in enumerate(hosts)
            if is_local(h.host, advertised) and (port is None or h.port == port)
        ]
        if mine:
            own = mine[0]
        elif port is None and len(hosts) == 1:
            own = 0  # the pool's one collector, whatever name this host goes by there
        elif port is None:
            raise knob_error(
                config,
                "COLLECTOR_HOST",
                "an entry naming this host (or COLLECTOR_ARGS = -p PORT naming this "
                "collector's port)",
            )
    for number, entry in enumerate(hosts):
        if entry.port == 0 and number != own:
            raise knob_error(
                config,
                "COLLECTOR_HOST",
                f"a port for {entry.host} (port 0, any free port, only in the collector's "
                "own process)",
            )
    return own


def collector_port(config: Config, hosts: list[CollectorHost], own: int | None) -> int:
    """The port this process's collector listens on."""
    port = _args_port(config)
    return port if port is not None else hosts[own].port if own is not None else 0


def _args_port(config: Config) -> int | None:
    """COLLECTOR_ARGS's ``-p PORT`` (``-f`` and ``-t``, HTCondor's foreground and
    terminal switches, mean nothing here)."""
    text = (config.get("COLLECTOR_ARGS") or "").strip()
    try:
        words = shlex.split(text)
    except ValueError:
        words = ["?"]
    port = None
    while words:
        word = words.pop(0)
        if word == "-p" and words and words[0].isdigit() and int(words[0]) <= 65535:
            port = int(words.pop(0))
        elif word not in ("-f", "-t"):
            raise knob_error(config, "COLLECTOR_ARGS", "-p PORT (fairpool reads no other)")
    return port
