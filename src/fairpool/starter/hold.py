"""Why a job could not run: HTCondor's hold reason, code and subcode.

The starter cannot put a job on hold itself (that is the schedd's job); it reports what
HTCondor's starter would report, so the caller can copy ``Hold.attrs()`` into the job ad.
The codes are HTCondor's ``HoldReasonCode`` table ("Hold Reason Codes" in the HTCondor
manual, codes-other-values/hold-reason-codes): the subcode is the Unix errno for 6, 7, 8, 12,
13 and 14.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import FairpoolError

__all__ = [
    "FAILED_TO_ACCESS_USER_ACCOUNT",
    "FAILED_TO_CREATE_PROCESS",
    "IWD_ERROR",
    "TRANSFER_INPUT_ERROR",
    "TRANSFER_OUTPUT_ERROR",
    "UNABLE_TO_OPEN_INPUT",
    "UNABLE_TO_OPEN_OUTPUT",
    "Hold",
    "HoldError",
    "StartError",
    "TransferError",
]

FAILED_TO_CREATE_PROCESS = 6  # the starter failed to start the executable; subcode errno
UNABLE_TO_OPEN_OUTPUT = 7  # stdout (or stderr) could not be opened; subcode errno
UNABLE_TO_OPEN_INPUT = 8  # stdin could not be opened; subcode errno
TRANSFER_OUTPUT_ERROR = 12  # transferring output files failed; subcode errno
TRANSFER_INPUT_ERROR = 13  # transferring input files failed; subcode errno
IWD_ERROR = 14  # the initial working directory cannot be accessed; subcode errno
FAILED_TO_ACCESS_USER_ACCOUNT = 23  # the job's owner cannot be run as


@dataclass(frozen=True)
class Hold:
    """``HoldReason``, ``HoldReasonCode`` and ``HoldReasonSubCode`` as HTCondor sets them."""

    reason: str
    code: int
    subcode: int = 0

    def attrs(self) -> dict[str, str | int]:
        """The job ad attributes, under HTCondor's names."""
        return {
            "HoldReason": self.reason,
            "HoldReasonCode": self.code,
            "HoldReasonSubCode": self.subcode,
        }

    @classmethod
    def from_errno(cls, code: int, number: int, what: str) -> Hold:
        """A hold whose subcode is an errno, worded as HTCondor words such reasons."""
        return cls(f"{what}: {os.strerror(number)} (errno {number})", code, number)


class HoldError(FairpoolError):
    """A job that HTCondor would put on hold; ``hold`` says why, in the ad's terms."""

    def __init__(self, hold: Hold) -> None:
        self.hold = hold
        super().__init__(hold.reason)

    @property
    def reason(self) -> str:
        return self.hold.reason

    @property
    def code(self) -> int:
        return self.hold.code

    @property
    def subcode(self) -> int:
        return self.hold.subcode

    def __reduce__(self):
        return (type(self), (self.hold,))


class StartError(HoldError):
    """The job could not be started (user, sandbox, input transfer, stdio, Iwd or exec)."""


class TransferError(HoldError):
    """The job ran, but its output could not be transferred back (HoldReasonCode 12)."""
