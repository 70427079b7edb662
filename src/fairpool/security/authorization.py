"""Who may do what: HTCondor's ALLOW_<LEVEL> and DENY_<LEVEL> lists, and the decision.

Each list holds entries ``user@domain/host`` (HTCondor's format): the user part may
hold ``*`` wildcards (``*@example.org``), the host part is ``*``, an address
(``10.0.0.7``), an address ending in ``*`` (``10.0.*``), a network (``10.0.0.0/16`` or
``10.0.0.0/255.255.0.0``) or a host name, resolved once when the policy is read. An
entry without a host (``alice@example.org``) is from any host; one without ``@`` is a
host for any user; ``*`` alone is everyone, the unauthenticated too.

A caller holds a level when an ALLOW list of that level, or of a level implying it
(levels.py), names it and DENY_<LEVEL> does not (a denial wins). A level whose lists
are unset is no one's. A token's scope narrows this further: the token is good only
for the levels it lists and what they imply (HTCondor: the intersection of the
identity's authorization and the token's).
"""

from __future__ import annotations

import functools
import ipaddress
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass

from ..config.knob_values import KnobSource, knob_error
from .levels import Level

__all__ = ["Entry", "Policy", "address_of", "parse_entry"]

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class Entry:
    """One entry of an ALLOW or DENY list."""

    text: str
    user: re.Pattern[str] | None  # None: any user
    networks: tuple[Network, ...] | None  # None: any host
    prefix: str = ""  # an address pattern ending in ``*``

    @property
    def everyone(self) -> bool:
        return self.user is None and self.networks is None and not self.prefix

    def matches(self, identity: str, host: Address | None) -> bool:
        if self.user is not None and not self.user.fullmatch(identity):
            return False
        if self.prefix:
            return host is not None and str(host).startswith(self.prefix)
        if self.networks is None:
            return True
        return host is not None and any(host in network for network in self.networks)


def parse_entry(text: str, resolve: Callable[[str], list[str]] | None = None) -> Entry:
    """An entry from its text; ValueError saying what was expected."""
    user, host = _split(text)
    user_pattern = None if user == "*" else _wildcards(user)
    if host == "*":
        return Entry(text, user_pattern, None)
    if host.endswith("*") and "*" not in host[:-1] and "/" not in host:
        return Entry(text, user_pattern, None, host[:-1])
    if "*" in host:
        raise ValueError(
            f"{text!r}: a host may end in * (10.0.*) but not hold one elsewhere "
            "(fairpool looks no host names up from addresses: list addresses or networks)"
        )
    return Entry(text, user_pattern, _networks(text, host, resolve or _resolve))


def _split(text: str) -> tuple[str, str]:
    """``text`` as (user, host), each ``*`` when the entry leaves it out."""
    if text == "*":
        return "*", "*"
    if "/" in text:
        user, host = text.split("/", 1)
        if "@" in user or user == "*":
            return user, host or "*"
        return "*", text  # a network: 10.0.0.0/16
    if "@" in text:
        return text, "*"
    return "*", text


def _wildcards(user: str) -> re.Pattern[str]:
    if "@" not in user:
        raise ValueError(f"{user!r}: expected user@domain (a user part may hold *)")
    return re.compile(".*".join(re.escape(part) for part in user.split("*")))


def _networks(text: str, host: str, resolve: Callable[[str], list[str]]) -> tuple[Network, ...]:
    try:
        return (ipaddress.ip_network(host, strict=False),)
    except ValueError:
        pass
    if "/" in host:
        raise ValueError(f"{text!r}: {host!r} is not a network (10.0.0.0/16)")
    try:
        found = resolve(host)
    except OSError as err:
        raise ValueError(f"{text!r}: the host {host!r} has no address ({err})") from None
    return tuple(ipaddress.ip_network(address) for address in found)


def _resolve(host: str) -> list[str]:
    return sorted({info[4][0] for info in socket.getaddrinfo(host, None)})


@functools.lru_cache(maxsize=4096)
@functools.lru_cache(maxsize=1024)
def address_of(host: str | None) -> Address | None:
    """A client's address as a policy compares it (an IPv4 address mapped into IPv6 as
    the IPv4 one); None when there is none. Remembered: a pool's callers are few, and
    every request asks."""
    if host is None:
        return None
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped if mapped is not None else address


class Policy:
    """The ALLOW and DENY lists of every level, as a configuration sets them."""

    def __init__(self, allow: dict[Level, list[Entry]], deny: dict[Level, list[Entry]]) -> None:
        self.allow = allow
        self.deny = deny

    @classmethod
    def of(cls, config: KnobSource, resolve: Callable[[str], list[str]] | None = None) -> Policy:
        """The lists from ``ALLOW_<LEVEL>`` and ``DENY_<LEVEL>``; ConfigError naming the
        knob for an entry that cannot be read."""
        lists: dict[str, dict[Level, list[Entry]]] = {"ALLOW": {}, "DENY": {}}
        for kind, by_level in lists.items():
            for level in Level:
                name = f"{kind}_{level.value}"
                words = re.split(r"[\s,]+", config.get(name) or "")
                try:
                    by_level[level] = [parse_entry(w, resolve) for w in words if w]
                except ValueError as err:
                    raise knob_error(config, name, f"user@domain/host entries: {err}") from None
        return cls(lists["ALLOW"], lists["DENY"])

    def allows(
        self,
        identity: str,
        host: Address | None,
        level: Level,
        scope: frozenset[Level] | None = None,
    ) -> bool:
        """Whether ``identity`` from ``host`` holds ``level`` (within a token's scope)."""
        if scope is not None and not any(level in granted.implied for granted in scope):
            return False
        if any(entry.matches(identity, host) for entry in self.deny[level]):
            return False
        return any(
            entry.matches(identity, host)
            for granting in level.implied_by
            for entry in self.allow[granting]
        )

    def open_to_all(self, level: Level) -> bool:
        """Whether everyone holds ``level`` whoever they are (``ALLOW_READ = *`` and no
        DENY_READ): then a caller need not be identified to be let in."""
        if self.deny[level]:
            return False
        return any(entry.everyone for g in level.implied_by for entry in self.allow[g])
