"""The CEDAR listener: HTCondor's own clients (the ``htcondor`` wheel's ``htcondor2``
module and the tools built on it) served by the same daemon cores as the HTTP API.

One asyncio server per process, started by the master beside uvicorn. Each connection
is read one message at a time: a command number, or DC_AUTHENTICATE with the client's
security policy (security.py) and then the command's payload; the command goes to the
handler of the daemon that runs it in this process (collector.py, schedd.py,
negotiator.py in this package). A connection may carry several commands (the wheel's
advertise sends one per ad, then DC_NOP).

Nothing a peer sends can stop the daemon or hold it for others: every read waits at
most ``CEDAR_TIMEOUT`` seconds, a message may not exceed ``CEDAR_MAX_MESSAGE`` bytes,
at most ``CEDAR_MAX_CONNECTIONS`` connections are served at once (more are closed at
once), and a message that does not decode ends its connection with one line in the
log. The caller is the local user at the other end (the kernel's socket table, as
daemons/identity.py finds it), or the user the FS method proves (authentication.py),
when the pool accepts FS; else no one (this port has no tokens). Each command is
authorized at its level (security/routes.py) by the process's policy, as an HTTP
request is: a refused one is logged (PERMISSION DENIED) and its connection closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..daemons.errors import ApiError, Forbidden
from ..daemons.identity import Caller
from ..security.principal import Principal
from ..security.routes import cedar_levels
from ..security.settings import Security
from .authentication import authenticate
from .commands import DC_AUTHENTICATE, DC_NOP
from .framing import Closed, read_message, write_message
from .security import denial, new_session, policy_reply, refusal_of, resumed, session_ad
from .wire import Reader, WireError, Writer

__all__ = ["CedarServer", "Exchange", "Handler", "Limits"]


class Exchange:
    """One command on a connection: its payload's messages, the replies, the caller."""

    def __init__(self, connection: _Connection, command: int) -> None:
        self.connection = connection
        self.command = command
        self.proved: Principal | None = None  # by the FS method

    @property
    def caller(self) -> Caller:
        """Who sent the command: as FS proved, else the connection's local user."""
        principal = self.proved if self.proved is not None else self.connection.principal
        return self.connection.security.caller(principal)

    async def receive(self) -> Reader:
        """The command's next message."""
        return await self.connection.receive()

    async def send(self, message: Writer) -> None:
        await self.connection.send(message.payload())

    async def authenticate(self) -> Caller:
        """The authentication-method exchange that submit and act run first."""
        uid = (await authenticate(self)).uid
        assert uid is not None
        self.proved = self.connection.security.from_uid(uid, self.connection.peer[0])
        return self.caller


Handler = Callable[[Exchange], Awaitable[None]]


class _Connection:
    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        limits: Limits,
        security: Security,
    ) -> None:
        self.reader, self.writer, self.limits = reader, writer, limits
        self.security = security
        peer = writer.get_extra_info("peername") or (None, None)
        self.peer: tuple[Any, Any] = (peer[0], peer[1])
        local = writer.get_extra_info("sockname") or (None, None)
        self.local: tuple[Any, Any] = (local[0], local[1])
        self.pending: Reader | None = None  # the rest of a message that held a command

    @functools.cached_property
    def principal(self) -> Principal:
        """The local user at the other end, looked up when a command needs it (a
        look-up in the kernel's socket table costs milliseconds)."""
        return self.security.from_connection(self.peer[0], self.peer[1])

    def authorize(self, command: int) -> None:
        """Refuse a command (ApiError) its caller may not send."""
        level = cedar_levels().get(command)
        what = f"CEDAR command {command}"
        if level is None:
            raise Forbidden(f"{what} has no authorization level: refused to everyone")
        if not self.security.open_to_all(level):
            self.security.check(self.principal, level, what)

    async def receive(self) -> Reader:
        if self.pending is not None:
            message, self.pending = self.pending, None
            return message
        payload = await read_message(self.reader, self.limits.message, self.limits.timeout)
        return Reader(payload)

    async def send(self, payload: bytes) -> None:
        write_message(self.writer, payload)
        await asyncio.wait_for(self.writer.drain(), self.limits.timeout)


@dataclass(frozen=True)
class Limits:
    """What the listener's connections may cost: seconds for a whole message
    (CEDAR_TIMEOUT), bytes in one (CEDAR_MAX_MESSAGE), connections at once
    (CEDAR_MAX_CONNECTIONS)."""

    timeout: float
    message: int
    connections: int


class CedarServer:
    """The listener, and the handlers of the daemons this process runs."""

    def __init__(
        self,
        handlers: dict[int, Handler],
        limits: Limits,
        log: logging.Logger,
        security: Callable[[], Security],
    ) -> None:
        self.handlers = handlers
        self.limits = limits
        self.log = log
        self.security = security  # the process's, read anew after a reconfig
        self.active = 0
        self.server: asyncio.Server | None = None
        self.tasks: set[asyncio.Task] = set()

    async def start(self, sock: socket.socket) -> None:
        self.server = await asyncio.start_server(self._serve, sock=sock, limit=1 << 16)

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for task in list(self.tasks):
            task.cancel()
        if self.server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.server.wait_closed(), 2)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.active >= self.limits.connections:
            writer.close()
            return
        self.active += 1
        task = asyncio.current_task()
        if task is not None:
            self.tasks.add(task)
        connection = _Connection(reader, writer, self.limits, self.security())
        try:
            await self._commands(connection)
        except Closed:
            pass
        except TimeoutError:
            self.log.info(
                "CEDAR %s:%s: no whole message within %g s (CEDAR_TIMEOUT)",
                *connection.peer,
                self.limits.timeout,
            )
        except (WireError, ConnectionError) as err:
            self.log.info("CEDAR %s:%s: %s", *connection.peer, err)
        except ApiError as err:  # a command the caller may not send
            self.log.info("CEDAR %s:%s: %s", *connection.peer, err)
        except Exception:
            self.log.exception("CEDAR %s:%s: failed", *connection.peer)
        finally:
            self.active -= 1
            if task is not None:
                self.tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 1)

    async def _commands(self, connection: _Connection) -> None:
        while True:
            message = await connection.receive()
            command = message.int("a command number")
            if command == DC_NOP:
                continue
            if command == DC_AUTHENTICATE:
                policy = message.ad(what="the security policy")
                command = await self._handshake(connection, policy)
                if command == DC_AUTHENTICATE:
                    continue  # a session made for a later command (RESCHEDULE over UDP)
            elif message.left:
                connection.pending = message
            handler = self.handlers.get(command)
            if handler is None:
                raise WireError(f"command {command} is not served here")
            connection.authorize(command)
            await handler(Exchange(connection, command))

    async def _handshake(self, connection: _Connection, policy: Any) -> int:
        """The client's policy answered; the command it is for."""
        command = policy.get("Command")
        if type(command) is not int:
            raise WireError("the security policy names no Command")
        if str(policy.get("UseSession", "")).upper() == "YES":
            await connection.send(Writer().ad(resumed()).payload())
            return command
        refusal = refusal_of(policy)
        if refusal is not None:
            # the client's own word for a refusal: "DENIED" after the policy
            await connection.send(Writer().ad(policy_reply()).payload())
            await connection.send(Writer().ad(denial(str(refusal))).payload())
            raise refusal
        await connection.send(Writer().ad(policy_reply()).payload())
        valid = sorted(self.handlers)
        reply = session_ad(new_session(command), valid)
        await connection.send(Writer().ad(reply).payload())
        return command
