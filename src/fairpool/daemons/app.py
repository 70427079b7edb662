"""Each daemon as an ASGI application of its own, with one mapping of errors to HTTP.

A daemon's routes become a FastAPI application (its OpenAPI schema at
``/<daemon>/openapi.json``) whose refusals are JSON bodies with the status errors.py
gives them; a request the API cannot read is a 400 naming the field. The master mounts
the applications of the daemons it runs under their names.
"""

from __future__ import annotations

import logging

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from ..errors import FairpoolError
from .errors import error_body, status_of

__all__ = ["daemon_app"]


def daemon_app(name: str, router: APIRouter, summary: str) -> FastAPI:
    """The ASGI application of one daemon's routes."""
    app = FastAPI(title=f"fairpool {name}", summary=summary, version="1")
    app.include_router(router)

    @app.exception_handler(FairpoolError)
    async def refused(request: Request, err: FairpoolError) -> JSONResponse:
        return JSONResponse(error_body(err), status_code=status_of(err)[0])

    @app.exception_handler(RequestValidationError)
    async def malformed(request: Request, err: RequestValidationError) -> JSONResponse:
        first = err.errors()[0] if err.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        message = f"{where}: {first.get('msg', 'malformed request')}"
        return JSONResponse({"error": {"code": "bad_request", "message": message}}, 400)

    @app.exception_handler(Exception)
    async def failed(request: Request, err: Exception) -> JSONResponse:
        logging.getLogger(f"fairpool.{name}").exception(
            "%s %s failed", request.method, request.url.path
        )
        return JSONResponse(error_body(err), status_code=500)

    return app
