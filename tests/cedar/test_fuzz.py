"""Whatever arrives on the CEDAR port, the pool goes on serving everyone else: random
bytes, truncated and lying frames, huge counts, garbage ads and commands, clients that
stall or trickle. Each example is followed by a real query that must be answered.

The pool runs with a short CEDAR_TIMEOUT and few connections (CEDAR_MAX_CONNECTIONS), so
that the bounds themselves are what the tests see.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairpool.cedar.wire import Reader, WireError, Writer
from fairpool.classad import ClassAd
from livepool import LivePool

TIMEOUT = 1.0
CONNECTIONS = 6
_FUZZ = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory):
    knobs = {"CEDAR_TIMEOUT": TIMEOUT, "CEDAR_MAX_CONNECTIONS": CONNECTIONS}
    with LivePool(tmp_path_factory.mktemp("fuzz") / "pool", **knobs) as live:
        yield live


def _port(pool: LivePool) -> int:
    return int(pool.cedar_address().split(":")[1].split("?")[0])


def _connect(pool: LivePool) -> socket.socket:
    return socket.create_connection(("127.0.0.1", _port(pool)), timeout=10)


def _frame(payload: bytes, end: int = 1) -> bytes:
    return struct.pack(">BI", end, len(payload)) + payload


def _receive(sock: socket.socket) -> bytes:
    """One whole message (bounded: the socket's timeout)."""
    payload = b""
    while True:
        end, length = struct.unpack(">BI", _exactly(sock, 5))
        payload += _exactly(sock, length)
        if end == 1:
            return payload


def _exactly(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def _collector_names(pool: LivePool) -> list[str]:
    """QUERY_COLLECTOR_ADS without the security handshake, as a plain CEDAR client."""
    query = ClassAd({"MyType": "Query", "TargetType": "Collector", "Requirements": True})
    with _connect(pool) as sock:
        sock.sendall(_frame(Writer().int(20).ad(query).payload()))
        reply = Reader(_receive(sock))
    names = []
    while reply.int():
        names.append(reply.ad()["Name"])
    return names


def _still_serving(pool: LivePool) -> None:
    started = time.monotonic()
    assert len(_collector_names(pool)) == 1
    assert time.monotonic() - started < 5
    assert pool.pid() is not None


def _send_and_close(pool: LivePool, data: bytes) -> None:
    # the listener may close first: that is its right
    with _connect(pool) as sock, contextlib.suppress(OSError):
        sock.sendall(data)


def test_the_plain_client_is_served(pool: LivePool):
    assert _collector_names(pool) == [
        pool.get("/collector/ads", type="Collector")["ads"][0]["Name"]
    ]


@_FUZZ
@given(data=st.binary(max_size=3000))
def test_random_bytes(pool: LivePool, data: bytes):
    _send_and_close(pool, data)
    _still_serving(pool)


_COMMANDS = st.sampled_from([0, 5, 6, 12, 13, 20, 48, 58, 451, 459, 463, 478, 515, 516, 1112])
_LINES = st.lists(
    st.one_of(
        st.text(max_size=40),
        st.builds(
            lambda n, v: f"{n} = {v}",
            st.from_regex(r"[A-Za-z]\w{0,8}", fullmatch=True),
            st.text(max_size=30),
        ),
    ),
    max_size=8,
)


@_FUZZ
@given(
    command=_COMMANDS,
    lines=_LINES,
    count_shift=st.integers(-3, 10**12),
    tail=st.binary(max_size=40),
)
def test_garbage_ads_and_lying_counts(
    pool: LivePool, command: int, lines: list[str], count_shift: int, tail: bytes
):
    payload = Writer().int(command).int(len(lines) + count_shift)
    for line in lines:
        payload.string(line)
    _send_and_close(pool, _frame(payload.payload() + tail))
    _still_serving(pool)


@_FUZZ
@given(
    payload=st.binary(min_size=1, max_size=200),
    claimed=st.one_of(st.integers(0, 300), st.integers(2**20, 2**32 - 1)),
    end=st.integers(0, 255),
    cut=st.integers(0, 250),
)
def test_truncated_and_lying_frames(
    pool: LivePool, payload: bytes, claimed: int, end: int, cut: int
):
    frame = struct.pack(">BI", end, claimed) + payload
    _send_and_close(pool, frame[:cut])
    _still_serving(pool)


@_FUZZ
@given(policy=_LINES, command=_COMMANDS)
def test_garbage_security_policies(pool: LivePool, policy: list[str], command: int):
    message = Writer().int(60010).int(len(policy) + 1).string(f"Command = {command}")
    for line in policy:
        message.string(line)
    _send_and_close(pool, _frame(message.payload()))
    _still_serving(pool)


def _authenticated(pool: LivePool) -> socket.socket:
    """A QMGMT_WRITE_CMD connection past the FS exchange, as this test's own user."""
    sock = _connect(pool)
    sock.sendall(_frame(Writer().int(1112).payload()) + _frame(Writer().int(4).payload()))
    assert Reader(_receive(sock)).int() == 4
    path = Path(Reader(_receive(sock)).string())
    assert path.parent == Path("/tmp") and path.name.startswith("FS_127.0.0.1_")
    path.mkdir(mode=0o700)
    try:
        sock.sendall(_frame(Writer().int(0).payload()))
        assert Reader(_receive(sock)).int() == 0
    finally:
        path.rmdir()
    return sock


_ARGUMENTS = st.lists(
    st.one_of(st.integers(-(2**63), 2**63 - 1), st.text(max_size=30), st.binary(max_size=9)),
    max_size=5,
)
_CALLS = st.lists(
    st.tuples(
        st.one_of(
            st.sampled_from([10002, 10003, 10027, 10032, 10007, 10036]), st.integers(0, 2**20)
        ),
        _ARGUMENTS,
    ),
    max_size=6,
)


@_FUZZ
@given(calls=_CALLS)
def test_garbage_queue_management_calls_after_authentication(pool: LivePool, calls):
    queued = len(pool.jobs())
    with _authenticated(pool) as sock, contextlib.suppress(OSError):
        for call, arguments in calls:
            message = Writer().int(call)
            for argument in arguments:
                if isinstance(argument, int):
                    message.int(argument)
                elif isinstance(argument, str):
                    message.string(argument)
                else:
                    message.parts.append(argument)
            sock.sendall(_frame(message.payload()))
    _still_serving(pool)
    assert len(pool.jobs()) >= queued  # nothing queued can be lost


def test_a_huge_packet_is_refused_at_once(pool: LivePool):
    with _connect(pool) as sock:
        sock.sendall(struct.pack(">BI", 1, 2**32 - 1) + b"x" * 100)
        assert sock.recv(10) == b""  # closed without waiting for four gigabytes
    _still_serving(pool)


def test_a_stalled_client_blocks_nobody_and_is_dropped(pool: LivePool):
    with _connect(pool) as stalled, _connect(pool) as trickling:
        stalled.sendall(b"\x01\x00")  # half a header, then nothing
        trickling.sendall(_frame(Writer().int(20).payload(), end=0))  # a message never ended
        _still_serving(pool)
        started = time.monotonic()
        assert stalled.recv(10) == b""  # the listener drops it after CEDAR_TIMEOUT
        assert trickling.recv(10) == b""
        assert time.monotonic() - started < TIMEOUT + 5
    _still_serving(pool)


def test_too_many_connections_are_closed_at_once_and_the_listener_recovers(pool: LivePool):
    idle = [_connect(pool) for _ in range(CONNECTIONS)]
    try:
        time.sleep(0.2)
        with _connect(pool) as extra:
            extra.settimeout(TIMEOUT / 2)  # closed long before the others time out
            assert extra.recv(10) == b""
    finally:
        for sock in idle:
            sock.close()
    LivePool.wait(lambda: _answers(pool), 10, "the listener to serve again")


def _answers(pool: LivePool) -> bool:
    try:
        return len(_collector_names(pool)) == 1
    except (OSError, WireError):
        return False


def test_refused_accountant_edits_are_logged_not_applied(pool: LivePool):
    """Edits the wheel itself would not send: a short name, a factor below 1."""
    for user, factor in (("nobody", 5.0), ("bob@example.org", 0.5)):
        message = Writer().int(459).string(user).double(factor)
        _send_and_close(pool, _frame(message.payload()))
    _still_serving(pool)
    log = pool.directory / "log" / "NegotiatorLog"
    LivePool.wait(lambda: "0.5 is not a number of 1.0 or more" in log.read_text(), 10, "the log")
    assert "'nobody': expected a full user@domain submitter name" in log.read_text()
    assert set(pool.accountant()) == set()


def test_the_log_says_why_each_connection_ended(pool: LivePool):
    log = (pool.directory / "log" / "CedarLog").read_text()
    assert "more than 1048576" in log  # the huge packet
    assert "no whole message within 1 s (CEDAR_TIMEOUT)" in log  # the stalled clients
    assert "CEDAR 127.0.0.1:" in log
    assert "Traceback" not in log
