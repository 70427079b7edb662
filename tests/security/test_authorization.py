"""HTCondor's ALLOW_<LEVEL> and DENY_<LEVEL> lists: the entries' format, the levels one
implies, a denial over an allowance, a token's scope, and knobs that cannot be read."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairpool.config import parse_config_text
from fairpool.errors import ConfigError
from fairpool.security.authorization import Policy, address_of, parse_entry
from fairpool.security.levels import Level

R, W, A, D, N = Level.READ, Level.WRITE, Level.ADMINISTRATOR, Level.DAEMON, Level.NEGOTIATOR
HOST = address_of("10.1.2.3")


def policy(text: str) -> Policy:
    """The lists ``text`` sets, every other one empty (not fairpool's defaults)."""
    empty = "".join(f"ALLOW_{level.value} =\n" for level in Level)
    return Policy.of(parse_config_text(empty + text, env={}), resolve=lambda _: ["192.0.2.7"])


@pytest.mark.parametrize(
    ("entry", "identity", "host", "matches"),
    [
        ("*", "unauthenticated@unmapped", None, True),
        ("alice@example.org", "alice@example.org", "10.1.2.3", True),
        ("alice@example.org", "alice@example.org.evil", "10.1.2.3", False),
        ("alice@example.org", "malice@example.org", "10.1.2.3", False),
        ("*@example.org", "bob@example.org", "10.1.2.3", True),
        ("*@example.org", "bob@example.net", "10.1.2.3", False),
        ("alice@*", "alice@anywhere", "10.1.2.3", True),
        ("alice@example.org/10.1.2.3", "alice@example.org", "10.1.2.3", True),
        ("alice@example.org/10.1.2.3", "alice@example.org", "10.1.2.4", False),
        ("*/10.1.*", "anyone@x", "10.1.200.1", True),
        ("*/10.1.*", "anyone@x", "10.2.0.1", False),
        ("10.1.0.0/16", "anyone@x", "10.1.9.9", True),
        ("alice@x/10.1.0.0/255.255.0.0", "alice@x", "10.1.9.9", True),
        ("alice@x/10.1.0.0/17", "alice@x", "10.1.200.1", False),
        ("*/::1", "anyone@x", "::1", True),
        ("*/127.0.0.1", "anyone@x", "::ffff:127.0.0.1", True),  # IPv4 mapped into IPv6
        ("*/submit.example.org", "anyone@x", "192.0.2.7", True),  # resolved once
        ("*/submit.example.org", "anyone@x", "192.0.2.8", False),
        ("10.1.0.0/16", "anyone@x", None, False),  # no address: no host entry matches
    ],
)
def test_entries(entry: str, identity: str, host: str | None, matches: bool) -> None:
    parsed = parse_entry(entry, resolve=lambda name: ["192.0.2.7"])
    assert parsed.matches(identity, address_of(host)) is matches


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("alice/10.0.0.1", "is not a network"),
        ("*/*.example.org", "may end in \\*"),
        ("*/10.0.0.0/99", "is not a network"),
    ],
)
def test_entries_that_cannot_be_read(entry: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_entry(entry)


def test_a_bad_entry_names_its_knob_and_line() -> None:
    with pytest.raises(ConfigError) as caught:
        Policy.of(parse_config_text("ALLOW_READ = *\nDENY_WRITE = */*.evil.org\n", env={}))
    assert caught.value.knob == "DENY_WRITE" and caught.value.line == 2


def test_higher_levels_imply_lower_ones() -> None:
    found = policy("ALLOW_ADMINISTRATOR = admin@x\nALLOW_NEGOTIATOR = cm@x\nALLOW_DAEMON = d@x\n")
    assert [found.allows("admin@x", HOST, level) for level in (R, W, A, D, N)] == [
        True,
        True,
        True,
        False,
        False,
    ]
    assert [found.allows("cm@x", HOST, level) for level in (R, W, A, D, N)] == [
        True,
        False,
        False,
        False,
        True,
    ]
    assert [found.allows("d@x", HOST, level) for level in (R, W, A, D, N)] == [
        True,
        True,
        False,
        True,
        False,
    ]


def test_a_level_no_list_names_is_no_ones() -> None:
    assert not policy("").allows("alice@x", HOST, R)
    assert not policy("ALLOW_WRITE =\n").allows("alice@x", HOST, W)


def test_a_denial_wins_over_an_allowance_at_its_level() -> None:
    found = policy("ALLOW_WRITE = *@x\nDENY_WRITE = mallory@x\nALLOW_ADMINISTRATOR = mallory@x\n")
    assert found.allows("alice@x", HOST, W)
    assert not found.allows("mallory@x", HOST, W)
    assert found.allows("mallory@x", HOST, A)  # DENY_WRITE is about WRITE commands


def test_a_tokens_scope_narrows_what_its_identity_may_do() -> None:
    found = policy("ALLOW_WRITE = *\nALLOW_ADMINISTRATOR = admin@x\n")
    assert found.allows("admin@x", HOST, A, scope=None)
    assert not found.allows("admin@x", HOST, A, scope=frozenset({W}))
    assert found.allows("admin@x", HOST, R, scope=frozenset({W}))  # WRITE implies READ
    assert not found.allows("alice@x", HOST, A, scope=frozenset({A}))  # a scope adds nothing
    assert not found.allows("admin@x", HOST, R, scope=frozenset())


def test_open_to_all_only_when_no_one_can_be_refused() -> None:
    assert policy("ALLOW_READ = *\n").open_to_all(R)
    assert policy("ALLOW_WRITE = *\n").open_to_all(R)  # WRITE implies READ
    assert not policy("ALLOW_READ = *\nDENY_READ = mallory@x\n").open_to_all(R)
    assert not policy("ALLOW_READ = *@x\n").open_to_all(R)
    assert not policy("ALLOW_READ = */10.0.0.0/8\n").open_to_all(R)
    assert not policy("ALLOW_READ = *\n").open_to_all(W)


users = st.from_regex(r"[a-z]{1,8}@[a-z]{1,8}\.(org|net)", fullmatch=True)
addresses = st.ip_addresses(v=4)


@given(identity=users, other=users, host=addresses)
def test_a_literal_entry_names_only_its_own_identity(identity, other, host) -> None:
    entry = parse_entry(identity)
    assert entry.matches(identity, host)
    assert entry.matches(other, host) is (other == identity)


@given(identity=users, host=addresses, level=st.sampled_from(list(Level)))
def test_a_denied_caller_is_refused_whatever_else_allows_it(identity, host, level) -> None:
    allowed = "".join(f"ALLOW_{each.value} = *\n" for each in Level)
    found = policy(f"{allowed}DENY_{level.value} = {identity}\n")
    assert found.allows("someone.else@else.where", host, level)
    assert not found.allows(identity, host, level)


@given(host=addresses, bits=st.integers(0, 32), other=addresses)
def test_a_network_entry_holds_exactly_its_addresses(host, bits, other) -> None:
    network = ipaddress.ip_network(f"{host}/{bits}", strict=False)
    entry = parse_entry(f"*@x/{network}")
    assert entry.matches("a@x", host)
    assert entry.matches("a@x", other) is (other in network)
