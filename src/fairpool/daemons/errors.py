"""What a refused request is, as one value: the error, its HTTP status and its code.

Every daemon's API answers a refusal with a JSON body ``{"error": {"code": ...,
"message": ...}}`` and the status this module gives it; clients turn that body back into
the same exception, so a command prints the daemon's one-line reason and exits non-zero.
Input that fairpool's parsers reject (a bad expression, submit file or configuration) is
a 400 with the parser's message.
"""

from __future__ import annotations

from typing import Any

from ..errors import FairpoolError, InputError
from ..store.group_commit import WriterClosed

__all__ = [
    "ApiError",
    "BadRequest",
    "Conflict",
    "Forbidden",
    "NotFound",
    "Unauthenticated",
    "Unavailable",
    "error_body",
    "error_from_body",
    "status_of",
]


class ApiError(FairpoolError):
    """A request a daemon refuses; ``status`` is its HTTP status."""

    status = 500
    code = "internal"


class BadRequest(ApiError):
    status, code = 400, "bad_request"


class Unauthenticated(ApiError):
    """No identity the daemon accepts: no token where one is required, or a token that
    is not good (docs/security.md)."""

    status, code = 401, "unauthenticated"


class Forbidden(ApiError):
    status, code = 403, "forbidden"


class NotFound(ApiError):
    status, code = 404, "not_found"


class Conflict(ApiError):
    status, code = 409, "conflict"


class Unavailable(ApiError):
    """The daemon cannot be reached, or cannot serve the request now."""

    status, code = 503, "unavailable"


_BY_CODE = {
    cls.code: cls
    for cls in (BadRequest, Unauthenticated, Forbidden, NotFound, Conflict, Unavailable)
}


def status_of(err: Exception) -> tuple[int, str]:
    """The HTTP status and code of an exception raised while serving a request."""
    if isinstance(err, ApiError):
        return err.status, err.code
    if isinstance(err, WriterClosed):  # a request that reached a stopping daemon: later
        return Unavailable.status, Unavailable.code
    if isinstance(err, FairpoolError | InputError):
        return BadRequest.status, BadRequest.code
    return ApiError.status, ApiError.code


def error_body(err: Exception) -> dict[str, Any]:
    status, code = status_of(err)
    message = str(err) if status != 500 else f"internal error: {type(err).__name__}: {err}"
    return {"error": {"code": code, "message": message}}


def error_from_body(status: int, body: object) -> ApiError:
    """The exception a daemon's error response stands for."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        message = str(error.get("message", ""))
        cls = _BY_CODE.get(str(error.get("code")), ApiError)
    else:
        message, cls = f"HTTP {status}", ApiError
    err = cls(message)
    if cls is ApiError:
        err.status = status
    return err
