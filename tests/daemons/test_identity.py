"""Who is calling (daemons/identity.py), over real loopback TCP connections: the uid that
owns the client's socket, found in the kernel's table by the client's address and port.
"""

from __future__ import annotations

import os
import pwd
import socket
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from fairpool.daemons.identity import Caller, caller_at, local_uid

NOBODY = 65534


@contextmanager
def connection(family: int = socket.AF_INET, host: str = "127.0.0.1") -> Iterator[tuple]:
    """A server on ``host`` and one client connected to it; the client's (host, port) as
    the server sees it."""
    with socket.socket(family, socket.SOCK_STREAM) as server:
        server.bind((host, 0))
        server.listen(1)
        server.settimeout(5)
        with socket.create_connection(server.getsockname()[:2], timeout=5) as client:
            accepted, peer = server.accept()
            with accepted:
                yield peer[0], peer[1], client


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_client_of_a_loopback_connection_is_this_user():
    with connection() as (host, port, client):
        assert (host, port) == client.getsockname()
        assert local_uid(host, port) == os.getuid()
        caller = caller_at(host, port)
    assert caller == Caller(pwd.getpwuid(os.getuid()).pw_name, os.getuid())
    assert caller.local


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not ipv6_loopback(), reason="no IPv6 loopback here")
def test_an_ipv6_client_is_found_too():
    with connection(socket.AF_INET6, "::1") as (host, port, _):
        assert host == "::1"
        assert local_uid(host, port) == os.getuid()


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to connect as another user")
def test_a_client_of_another_user_is_that_user():
    """A forked client that became nobody before connecting: its socket is nobody's."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        server.settimeout(10)
        go_read, go_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: connect as nobody, hold the connection until told
            try:
                os.setgid(NOBODY)
                os.setuid(NOBODY)
                client = socket.create_connection(server.getsockname(), timeout=10)
                os.read(go_read, 1)
                client.close()
            finally:
                os._exit(0)
        try:
            accepted, (host, port) = server.accept()
            with accepted:
                assert local_uid(host, port) == NOBODY
                assert caller_at(host, port).uid == NOBODY
        finally:
            os.write(go_write, b"x")
            os.waitpid(pid, 0)
            os.close(go_read)
            os.close(go_write)


def test_unknown_ports_and_hosts_have_no_user():
    assert local_uid("127.0.0.1", free_port()) is None  # nobody has it now
    assert local_uid("127.0.0.1", 0) is None
    assert local_uid("not an address", 80) is None
    assert local_uid("::ffff:10.0.0.1", 1) is None
    assert caller_at(None, None) == Caller(None, None)
    assert caller_at("127.0.0.1", None) == Caller(None, None)
    assert caller_at("127.0.0.1", free_port()) == Caller(None, None)
    assert not caller_at(None, None).local


def other_uid() -> int:
    """A uid that is neither root nor the pool's."""
    return next(uid for uid in (12345, 12346) if uid != os.getuid())


def test_owners_act_on_their_own_jobs_only():
    alice = Caller("alice", other_uid())
    assert alice.owns("alice")
    assert not alice.owns("bob")
    assert not alice.owns(None)  # a job without an Owner
    assert not Caller(None, None).owns("alice")  # not a local user
    assert not Caller(None, None).owns(None)


def test_an_administrator_acts_on_every_job():
    """Who is one is the pool's policy's answer (tests/security/test_settings.py)."""
    assert Caller("pool", 4242, administrator=True).owns("bob")
    assert Caller(None, None, administrator=True).owns(None)
    assert not Caller("root", 0).owns("bob")  # a uid alone makes no administrator
