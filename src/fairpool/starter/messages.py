"""What a startd and its starter process say to each other over their socket.

The startd asks (``Start``, ``Signal``, ``Stop``); the starter answers each start
(``Started``, or ``Refused`` with the hold HTCondor's starter would give) and reports each
job's end (``Exited``). A start carries everything in plain values, the job ad already
read into a ``JobPlan`` and both ads already written out as the sandbox holds them, so
the starter process neither parses nor evaluates ClassAds.

Each message is msgpack, an array led by its tag, framed by its length (4 bytes, big
endian). Messages of one side are handled in the order they were sent: a signal sent
after a start reaches the job that start made.
"""

from __future__ import annotations

import msgspec

from ..classad import ClassAd, write_old
from ..classad.adtext import OldText
from .hold import Hold, StartError
from .plan import JobPlan, plan_job

__all__ = [
    "Exited",
    "Frames",
    "Refused",
    "Signal",
    "Start",
    "Started",
    "Stop",
    "frame",
    "from_slot",
]


class Start(msgspec.Struct, tag="start", array_like=True, frozen=True):
    """Start the job ``job`` (``"cluster.proc"``) on ``slot`` as the startd's ``run``
    (which the answers name): its plan, its ad and the slot's ad in the old syntax (the
    sandbox's ``.job.ad`` and ``.machine.ad``), the slot's cores and the variables of its
    assigned resources."""

    slot: str
    run: int
    job: str
    plan: JobPlan
    job_ad: bytes
    machine_ad: bytes | None
    cpus: int
    assigned: dict[str, str] = {}

    @classmethod
    def of(
        cls,
        ad: ClassAd,
        *,
        slot: str,
        machine_ad: ClassAd | None = None,
        assigned: dict[str, str] | None = None,
        run: int = 0,
        job_text: OldText | None = None,
        machine_text: OldText | None = None,
    ) -> Start:
        """The start of the job ``ad`` on ``slot``; StartError when the ad itself cannot
        run anywhere (no Iwd, no Cmd...). ``job_text`` and ``machine_text`` write the ads
        when given (a startd keeps one for its jobs and one for each slot)."""
        try:
            plan = plan_job(ad)
        except StartError as error:
            raise StartError(from_slot(error.hold, slot)) from None
        name = f"{ad.get('ClusterId')}.{ad.get('ProcId')}"
        write_job = write_old if job_text is None else job_text.write
        write_machine = write_old if machine_text is None else machine_text.write
        machine = write_machine(machine_ad).encode() if machine_ad is not None else None
        cpus = machine_ad.get("Cpus") if machine_ad is not None else None
        usable = isinstance(cpus, int) and not isinstance(cpus, bool) and cpus > 0
        return cls(
            slot,
            run,
            name,
            plan,
            write_job(ad).encode(),
            machine,
            cpus if usable else plan.cpus,  # type: ignore[arg-type]
            dict(assigned or {}),
        )


class Signal(msgspec.Struct, tag="signal", array_like=True, frozen=True):
    """A startd action on the job of ``slot``: ``suspend``, ``continue``, ``soft kill``,
    ``hard kill`` or ``SIGKILL``."""

    slot: str
    action: str


class Stop(msgspec.Struct, tag="stop", array_like=True, frozen=True):
    """The startd stops: every job is killed, and the starter process ends."""


class Started(msgspec.Struct, tag="started", array_like=True, frozen=True):
    """The job of ``slot`` runs: its pid and start time (its identity after a crash)."""

    slot: str
    run: int
    pid: int
    create_time: float


class Refused(msgspec.Struct, tag="refused", array_like=True, frozen=True):
    """The job of ``slot`` could not start: held for ``hold`` (reason, code, subcode), or
    the machine's trouble (no hold: the job goes back to idle)."""

    slot: str
    run: int
    reason: str
    hold: tuple[str, int, int] | None = None


class Exited(msgspec.Struct, tag="exited", array_like=True, frozen=True):
    """The job of ``slot`` is gone and its sandbox cleaned up: how it ended (``ExitCode``
    or ``ExitSignal``...), what it used (``RemoteUserCpu``...), and the hold when its
    output could not be transferred."""

    slot: str
    run: int
    exit: dict[str, bool | int]
    usage: dict[str, float | int]
    hold: tuple[str, int, int] | None = None


_ENCODER = msgspec.msgpack.Encoder()


def frame(message: msgspec.Struct) -> bytes:
    """A message as it crosses the socket: its length, then its msgpack."""
    body = _ENCODER.encode(message)
    return len(body).to_bytes(4, "big") + body


class Frames:
    """Messages cut from the bytes read off a socket, whatever the reads' boundaries."""

    def __init__(self, kind: type) -> None:
        self._decoder = msgspec.msgpack.Decoder(kind)
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list:
        """The messages ``data`` completes, in order."""
        buffer = self._buffer
        buffer += data
        messages, at = [], 0
        with memoryview(buffer) as view:
            while len(buffer) - at >= 4:
                end = at + 4 + int.from_bytes(view[at : at + 4], "big")
                if end > len(buffer):
                    break
                messages.append(self._decoder.decode(view[at + 4 : end]))
                at = end
        del buffer[:at]
        return messages


def from_slot(hold: Hold, slot: str) -> Hold:
    """HTCondor prefixes the reasons its starter gives with the slot they come from."""
    return Hold(f"Error from {slot}: {hold.reason}", hold.code, hold.subcode)
