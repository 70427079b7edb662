"""The CEDAR listener of one process: the commands of the daemons it runs."""

from __future__ import annotations

from typing import Any

from ..daemons.context import Context, knob_float, knob_int
from .collector import collector_handlers
from .negotiator import negotiator_handlers
from .schedd import schedd_handlers
from .server import CedarServer, Handler, Limits

__all__ = ["cedar_server"]


def cedar_server(ctx: Context, daemons: dict[str, Any]) -> CedarServer:
    """A listener serving the commands of ``daemons`` (by DAEMON_LIST name)."""
    handlers: dict[int, Handler] = {}
    if "COLLECTOR" in daemons:
        handlers.update(collector_handlers(daemons["COLLECTOR"]))
    if "NEGOTIATOR" in daemons:
        handlers.update(negotiator_handlers(daemons["NEGOTIATOR"]))
    if "SCHEDD" in daemons:
        handlers.update(schedd_handlers(daemons["SCHEDD"]))
    config = ctx.config
    limits = Limits(
        timeout=knob_float(config, "CEDAR_TIMEOUT", 20.0, minimum=0.1),
        message=knob_int(config, "CEDAR_MAX_MESSAGE", 16 << 20, minimum=1 << 16),
        connections=knob_int(config, "CEDAR_MAX_CONNECTIONS", 256, minimum=1),
    )
    assert ctx.security is not None
    return CedarServer(handlers, limits, ctx.logger("cedar"), lambda: ctx.security)
